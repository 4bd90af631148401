#include "model/io/rlhf_report.h"

#include <functional>

#include <fmt/format.h>

namespace zerosim::io {
namespace {

using model::PhaseReport;
using model::VariantReport;
using nlohmann::ordered_json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr int kLabel = 34;
constexpr int kColumn = 14;

const VariantReport* BaselineOf(const std::vector<VariantReport>& all, const VariantReport& v) {
  for (const VariantReport& r : all) {
    if (r.engine == v.engine) return &r;
  }
  return &v;
}

ordered_json BytesJson(const model::PhaseBytes& b, double scale) {
  return {{"forward_allgather", b.forward_allgather * scale},
          {"backward_allgather", b.backward_allgather * scale},
          {"gradient_reduce", b.gradient_reduce * scale},
          {"total", b.total() * scale}};
}

}  // namespace

std::string FormatRlhfPhases(const std::vector<VariantReport>& v) {
  std::string out = fmt::format("{:<{}}", "", kLabel);
  for (const VariantReport& r : v) out += fmt::format("{:>{}}", r.name, kColumn);
  out += "\n";
  // `row`: numbers of a run, "-" for a variant that does not fit (model::Ran); `shown`: what every variant
  // with phases has (its settings, its memory: why it does not fit).
  using Cell = std::function<std::string(const VariantReport&)>;
  auto line = [&](const std::string& label, const Cell& cell, bool always) {
    out += fmt::format("{:<{}}", label, kLabel);
    for (const VariantReport& r : v) {
      const bool show = always ? r.feasible || !r.phases.empty() : model::Ran(r);
      out += fmt::format("{:>{}}", show ? cell(r) : "-", kColumn);
    }
    out += "\n";
  };
  auto row = [&](const std::string& label, const Cell& cell) { line(label, cell, false); };
  auto shown = [&](const std::string& label, const Cell& cell) { line(label, cell, true); };
  shown("  engine", [](const VariantReport& r) { return r.engine; });
  shown("  qwZ / hpZ / qgZ / MixZ++", [](const VariantReport& r) {
    return fmt::format("{}/{}/{}/{}", r.zero.zero_quantized_weights ? "on" : "-",
                       r.zero.zero_hpz_partition_size, r.zero.zero_quantized_gradients ? "on" : "-",
                       r.zero.zero_quantized_nontrainable_weights ? "on" : "-");
  });
  shown("  CUDA_DEVICE_MAX_CONNECTIONS", [](const VariantReport& r) {
    return fmt::format("{} ({})", r.zero.runtime.cuda_device_max_connections, r.zero.queue_origin());
  });
  shown("  launcher", [](const VariantReport& r) {
    return fmt::format(" {} ({})", model::LauncherName(r.zero.effective_launcher()), r.zero.launcher_origin());
  });
  shown("  feasible", [](const VariantReport& r) { return std::string(r.feasible ? "yes" : "NO"); });
  if (v.empty() || v.front().phases.empty()) return out;
  for (size_t i = 0; i < v.front().phases.size(); ++i) {
    const PhaseReport& first = v.front().phases[i];
    out += fmt::format("  {} ({})\n", first.name, first.composition);
    auto cell = [i](const VariantReport& r) -> const PhaseReport& { return r.phases[i]; };
    row(fmt::format("    {} per GPU", first.throughput_unit),
        [&](const VariantReport& r) { return fmt::format("{:.3f}", cell(r).throughput); });
    row("    vs first variant", [&](const VariantReport& r) {
      const VariantReport& b = *BaselineOf(v, r);
      return model::Ran(b) ? fmt::format("{:.2f}x", cell(r).throughput / b.phases[i].throughput) : "-";
    });
    row("    time (s)", [&](const VariantReport& r) { return fmt::format("{:.3f}", cell(r).time_s); });
    row("    compute / exposed comm. (s)", [&](const VariantReport& r) {
      return fmt::format("{:.2f}/{:.2f}", cell(r).compute_s, cell(r).exposed_comm_s);
    });
    row("    cross-node GB per GPU", [&](const VariantReport& r) {
      return fmt::format("{:.2f}", cell(r).bytes.cross_node.total() / r.gpus / 1e9);
    });
    row("    intra-node GB per GPU", [&](const VariantReport& r) {
      return fmt::format("{:.2f}", cell(r).bytes.intra_node.total() / r.gpus / 1e9);
    });
    shown("    memory per GPU (GiB)",
          [&](const VariantReport& r) { return fmt::format("{:.1f}", cell(r).memory_bytes / kGiB); });
    if (first.kv_cache_bytes > 0) {
      shown("      of which KV cache (GiB)",
            [&](const VariantReport& r) { return fmt::format("{:.2f}", cell(r).kv_cache_bytes / kGiB); });
    }
  }
  out += "  PPO step (generation + experience + training)\n";
  row("    time (s)", [](const VariantReport& r) { return fmt::format("{:.2f}", r.iteration_time_s); });
  row("    vs first variant", [&](const VariantReport& r) {
    const VariantReport& b = *BaselineOf(v, r);
    return model::Ran(b) ? fmt::format("{:.2f}x", b.iteration_time_s / r.iteration_time_s) : "-";
  });
  for (const VariantReport& r : v) {
    if (!r.feasible) out += fmt::format("  {} ({}): infeasible: {}\n", r.name, r.engine, r.infeasible_reason);
  }
  return out;
}

ordered_json PhasesToJson(const std::vector<PhaseReport>& phases, int gpus, bool ran) {
  ordered_json list = ordered_json::array();
  const double per_gpu = gpus > 0 ? 1.0 / gpus : 0.0;
  for (const PhaseReport& p : phases) {
    ordered_json j;
    j["name"] = p.name;
    j["composition"] = p.composition;
    if (ran) {
      j["time_s"] = p.time_s;
      j["throughput_per_gpu"] = p.throughput;
      j["throughput_unit"] = p.throughput_unit;
      j["compute_s"] = p.compute_s;
      j["exposed_comm_s"] = p.exposed_comm_s;
      j["bytes"] = {{"cross_node", BytesJson(p.bytes.cross_node, 1.0)},
                    {"intra_node", BytesJson(p.bytes.intra_node, 1.0)}};
      j["bytes_per_gpu"] = {{"cross_node", BytesJson(p.bytes.cross_node, per_gpu)},
                            {"intra_node", BytesJson(p.bytes.intra_node, per_gpu)}};
    }
    j["memory_per_gpu_bytes"] = {{"resident", p.resident_bytes}, {"gathered_parameters", p.gathered_bytes},
                                 {"kv_cache", p.kv_cache_bytes}, {"activations", p.activations_bytes},
                                 {"runtime", p.runtime_bytes},   {"total", p.memory_bytes}};
    list.push_back(j);
  }
  return list;
}

}  // namespace zerosim::io
