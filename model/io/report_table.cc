#include "model/io/report_table.h"

#include "model/io/rlhf_report.h"

#include <cmath>
#include <functional>
#include <vector>

#include <fmt/format.h>

#include "model/evaluate.h"
#include "model/units.h"

namespace zerosim::io {
namespace {

using model::VariantReport;

bool MixedEngines(const std::vector<VariantReport>& v) {
  for (const VariantReport& r : v) {
    if (r.engine != v.front().engine) return true;
  }
  return false;
}

constexpr int kLabelWidth = 34;
constexpr int kColumnWidth = 19;

class Table {
 public:
  using Cell = std::function<std::string(const VariantReport&)>;

  explicit Table(const std::vector<VariantReport>& v) : v_(v) {}

  void Header() {
    out_ += fmt::format("{:<{}}", "", kLabelWidth);
    for (const VariantReport& r : v_) out_ += fmt::format(" {:>{}}", r.name, kColumnWidth - 1);
    out_ += "\n";
    if (MixedEngines(v_)) Setting("engine", [](const VariantReport& r) { return r.engine; });
  }
  // Rows after a section title are indented under it.
  void Section(const std::string& title) {
    out_ += fmt::format("  {}\n", title);
    indent_ = "    ";
  }
  // A row of numbers of a run: "-" for a variant that does not fit (model::Ran), whose reason follows the
  // table.
  void Row(const std::string& label, const Cell& cell) { Line(label, cell, model::Ran); }
  // A row every variant has: its settings.
  void Setting(const std::string& label, const Cell& cell) {
    Line(label, cell, [](const VariantReport&) { return true; });
  }
  // A row of its memory estimate: shown for a variant that does not fit too (it is why), "-" without one.
  void Memory(const std::string& label, const Cell& cell) { Line(label, cell, model::HasMemoryEstimate); }
  std::string str() const { return out_; }

 private:
  void Line(const std::string& label, const Cell& cell, bool (*show)(const VariantReport&)) {
    out_ += fmt::format("{:<{}}", indent_ + label, kLabelWidth);
    // A space before every cell, so that one as wide as the column ("H100 fsdp compute n44") stays apart from
    // the one before it.
    for (const VariantReport& r : v_) {
      out_ += fmt::format(" {:>{}}", show(r) ? cell(r) : "-", kColumnWidth - 1);
    }
    out_ += "\n";
  }

  const std::vector<VariantReport>& v_;
  std::string out_;
  std::string indent_ = "  ";
};

std::string Num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

// The first variant evaluated by the same engine as `v` (the baseline of its speedup).
const VariantReport* BaselineOf(const std::vector<VariantReport>& all, const VariantReport& v) {
  for (const VariantReport& r : all) {
    if (r.engine == v.engine) return &r;
  }
  return &v;
}

// A variant's cross-node volume against its baseline's, in words that read right either way: "4.00x less
// than ZeRO-3", "1.06x more than ZeRO-3", "the same as ZeRO-3" (within half a percent).
std::string VolumeAgainst(double bytes, double base_bytes, const std::string& base_name) {
  if (std::abs(bytes / base_bytes - 1) < 0.005) return "the same as " + base_name;
  if (bytes < base_bytes) return fmt::format("{:.2f}x less than {}", base_bytes / bytes, base_name);
  return fmt::format("{:.2f}x more than {}", bytes / base_bytes, base_name);
}

// With both engines: each variant's sim result against its analytic one.
std::string EngineComparison(const std::vector<VariantReport>& all) {
  std::string out = "\nsim vs analytic\n";
  out += fmt::format("  {:<14}{:>14}{:>14}{:>12}{:>16}{:>14}\n", "variant", "analytic (s)", "sim (s)", "sim - an.",
                     "exposed an. (s)", "sim (s)");
  for (const VariantReport& a : all) {
    if (a.engine != "analytic") continue;
    for (const VariantReport& s : all) {
      if (s.engine != "sim" || s.name != a.name) continue;
      if (!model::Ran(a) || !model::Ran(s)) {
        out += fmt::format("  {:<14}{:>14}\n", a.name, "infeasible");
        continue;
      }
      out += fmt::format("  {:<14}{:>14.4f}{:>14.4f}{:>+11.2f}%{:>16.4f}{:>14.4f}\n", a.name, a.iteration_time_s,
                         s.iteration_time_s, 100.0 * (s.iteration_time_s / a.iteration_time_s - 1.0),
                         a.exposed_comm_s, s.exposed_comm_s);
    }
  }
  return out;
}

}  // namespace

std::string FormatReportTable(const model::Report& r) {
  const model::Provenance& p = r.provenance;
  const model::ClusterSpec& c = r.cluster;
  const model::ModelSpec& m = r.model;
  std::string out;
  out += fmt::format("ZeroSim {} · {}\n", p.zerosim_version, p.network_model);
  out += fmt::format("scenario     {} · {} ({})\n", r.scenario_name, p.scenario.path, p.scenario.hash);
  out += fmt::format("cluster      {}: {} nodes x {} {} = {} GPUs; NVSwitch {:g} GB/s per GPU; {} x {:g} Gbps NIC per node; "
                     "{}\n",
                     c.name, c.nodes, c.gpus_per_node, c.gpu.name, c.total_gpus(), c.intra.bandwidth_Bps / 1e9,
                     c.nic.count, c.nic.bandwidth_Bps * 8 / 1e9, model::FabricKindName(c.fabric.kind));
  out += fmt::format("model        {}: {:.2f} B parameters, {} layers, hidden {}, {} heads, vocab {}\n", m.name,
                     model::TotalParams(m) / 1e9, m.layers, m.hidden, m.heads, m.vocab);
  // Provenance texts can be long: the table shows their start, the JSON report all of it.
  auto clip = [](const std::string& text) { return text.size() <= 160 ? text : text.substr(0, 157) + "..."; };
  out += fmt::format("calibration  {} ({}): {}\n", p.calibration.path, p.calibration_source, clip(p.calibration_provenance));
  out += fmt::format("GEMM eff.    {}\n", clip(p.gemm_efficiency_source));
  if (!p.fp8_gemm_efficiency_source.empty())
    out += fmt::format("FP8 GEMM     {}\n", clip(p.fp8_gemm_efficiency_source));
  if (!p.deepspeed_config.path.empty()) {
    // Every key of the DeepSpeed config ZeroSim does not model, never dropped silently.
    std::string ignored;
    for (const std::string& k : p.ignored_config_keys) ignored += (ignored.empty() ? "" : ", ") + k;
    out += fmt::format("ds_config    {} ({}); ignored (not modelled): {}\n", p.deepspeed_config.path,
                       p.deepspeed_config.hash, ignored.empty() ? "none" : ignored);
  }
  out += "\n";
  if (!r.variants.empty() && !r.variants.front().phases.empty()) return out + FormatRlhfPhases(r.variants);

  Table t(r.variants);
  t.Header();
  bool one_model = true;
  for (const VariantReport& v : r.variants) one_model = one_model && v.model.name == m.name;
  if (!one_model) {
    t.Setting("model (B parameters)", [](const VariantReport& v) { return Num(model::TotalParams(v.model) / 1e9, 1); });
  }
  t.Setting("strategy", [](const VariantReport& v) {
    const int shard = v.zero.shard_group_size();
    return model::HasShardGroup(v.zero.strategy) && shard > 0
               ? fmt::format("{} s={}", model::StrategyLabel(v.zero.strategy), shard)
               : std::string(model::StrategyLabel(v.zero.strategy));
  });
  t.Setting("qwZ / hpZ / qgZ", [](const VariantReport& v) {
    return fmt::format("{}/{}/{}", v.zero.zero_quantized_weights ? "on" : "-", v.zero.zero_hpz_partition_size,
                       v.zero.zero_quantized_gradients ? "on" : "-");
  });
  t.Setting("launcher",
            [](const VariantReport& v) { return std::string(model::LauncherName(v.zero.effective_launcher())); });
  t.Setting("  CUDA_DEVICE_MAX_CONNECTIONS",
            [](const VariantReport& v) { return std::to_string(v.zero.cuda_device_max_connections); });
  t.Setting("tokens per GPU (seq x micro)", [](const VariantReport& v) {
    return fmt::format("{}x{}", v.model.seq_len, v.zero.train_micro_batch_size_per_gpu);
  });
  t.Row("iteration time (s)", [](const VariantReport& v) { return Num(v.iteration_time_s, 3); });
  t.Row("  band (s)", [](const VariantReport& v) {
    return fmt::format("{}-{}", Num(v.iteration_time_s / v.band.high, 3), Num(v.iteration_time_s / v.band.low, 3));
  });
  t.Row("TFLOPs per GPU (with recompute)", [](const VariantReport& v) { return Num(v.tflops_per_gpu, 1); });
  t.Row("MFU (6N + 12lhs, no recompute)", [](const VariantReport& v) { return fmt::format("{:.1f}%", 100 * v.mfu); });
  t.Row("tokens per second", [](const VariantReport& v) { return Num(v.tokens_per_s, 0); });
  t.Row("  band", [](const VariantReport& v) {
    return fmt::format("{}-{}", Num(v.tokens_per_s * v.band.low, 0), Num(v.tokens_per_s * v.band.high, 0));
  });
  // The band's group (model/band.h; "ds" = deepspeed): its own when validated (with its points); "*": another
  // family's, widened, for a GPU whose compute is derived from it; "outside": the widest band.
  t.Row("  band from", [](const VariantReport& v) {
    std::string g = v.band.group;
    if (const size_t at = g.find(" deepspeed "); at != std::string::npos) g.replace(at, 11, " ds ");
    if (v.band.validated) return fmt::format("{} n{}", g, v.band.n);
    return g.empty() ? std::string("outside (widest)") : g + "*";
  });
  t.Row("speedup vs " + (r.variants.empty() ? std::string() : r.variants.front().name), [&](const VariantReport& v) {
    const VariantReport& base = *BaselineOf(r.variants, v);
    return model::Ran(base) ? fmt::format("{:.2f}x", base.iteration_time_s / v.iteration_time_s) : "-";
  });
  t.Row("compute (s)", [](const VariantReport& v) { return Num(v.compute_s, 3); });
  t.Row("  GEMMs", [](const VariantReport& v) { return Num(v.gemm_s, 3); });
  t.Row("  attention", [](const VariantReport& v) { return Num(v.attention_s, 3); });
  t.Row("  memory-bound kernels", [](const VariantReport& v) { return Num(v.memory_bound_s, 3); });
  t.Row("  kernel gaps", [](const VariantReport& v) { return Num(v.kernel_gaps_s, 3); });
  t.Row("quantization + copies (s)", [](const VariantReport& v) { return Num(v.gpu_side_s, 3); });
  t.Row("optimizer step (s)", [](const VariantReport& v) { return Num(v.optimizer_s, 3); });
  t.Row("exposed communication (s)", [](const VariantReport& v) { return Num(v.exposed_comm_s, 3); });
  t.Row("  waiting for data", [](const VariantReport& v) { return Num(v.waiting_for_data_s, 3); });
  t.Row("  SMs held by NCCL", [](const VariantReport& v) { return Num(v.comm_interference_s, 3); });
  t.Row("  one hardware queue", [](const VariantReport& v) { return Num(v.queue_blocking_s, 3); });

  auto volume_rows = [&](const char* title, auto tier) {
    t.Section(title);
    t.Row("forward all-gather", [&](const VariantReport& v) { return Num(tier(v).forward_allgather / kGB, 1); });
    t.Row("backward all-gather", [&](const VariantReport& v) { return Num(tier(v).backward_allgather / kGB, 1); });
    t.Row("gradient reduction", [&](const VariantReport& v) { return Num(tier(v).gradient_reduce / kGB, 1); });
    t.Row("total", [&](const VariantReport& v) { return Num(tier(v).total() / kGB, 1); });
  };
  volume_rows("cross-node GB per iteration, all GPUs", [](const VariantReport& v) { return v.bytes.cross_node; });
  volume_rows("intra-node GB per iteration, all GPUs", [](const VariantReport& v) { return v.bytes.intra_node; });

  t.Section("memory per GPU (GiB)");
  t.Memory("parameters + gradients", [](const VariantReport& v) {
    return Num((v.memory.parameters_bytes + v.memory.gradients_bytes) / kGiB, 2);
  });
  t.Memory("optimizer states", [](const VariantReport& v) { return Num(v.memory.optimizer_states_bytes / kGiB, 2); });
  t.Memory("hpZ secondary partition", [](const VariantReport& v) { return Num(v.memory.hpz_secondary_bytes / kGiB, 2); });
  t.Memory("gathered parameters", [](const VariantReport& v) { return Num(v.memory.gathered_parameters_bytes / kGiB, 2); });
  t.Memory("buffers", [](const VariantReport& v) { return Num(v.memory.buffers_bytes / kGiB, 2); });
  t.Memory("activations", [](const VariantReport& v) { return Num(v.memory.activations_bytes / kGiB, 2); });
  // The process's memory besides its tensors (model/runtime_memory.h).
  t.Memory("CUDA context, NCCL, cuBLAS", [](const VariantReport& v) {
    const model::MemoryBreakdown& mem = v.memory;
    return Num((mem.cuda_context_bytes + mem.nccl_buffers_bytes + mem.cublas_workspace_bytes) / kGiB, 2);
  });
  t.Memory("allocator rounding",
           [](const VariantReport& v) { return Num(v.memory.allocator_rounding_bytes / kGiB, 2); });
  t.Memory("reserve", [](const VariantReport& v) { return Num(v.memory.reserve_bytes / kGiB, 2); });
  t.Memory("total / HBM", [](const VariantReport& v) {
    return fmt::format("{:.1f}/{:.0f}", v.memory.total_bytes / kGiB, v.memory.hbm_bytes / kGiB);
  });
  t.Setting("feasible", [](const VariantReport& v) { return std::string(v.feasible ? "yes" : "NO"); });
  out += t.str();
  for (const VariantReport& v : r.variants) {
    if (!v.feasible) out += fmt::format("  {} is infeasible: {}\n", v.name, v.infeasible_reason);
  }
  if (MixedEngines(r.variants)) out += EngineComparison(r.variants);

  // Cross-node volume per node in units of M, each variant's model size in fp16 bytes.
  if (r.variants.size() >= 2 && c.nodes > 1) {
    const int gpus = c.total_gpus();
    out += fmt::format("\ncross-node volume per node in units of M (the model in fp16: {:.1f} GB for {}); ring factor "
                       "(P-1)/P = {:.4f}, all-to-all factor (K-1)/K = {:.4f}\n",
                       2.0 * model::TotalParams(m) / kGB, m.name, (gpus - 1.0) / gpus, (c.nodes - 1.0) / c.nodes);
    const bool mixed = MixedEngines(r.variants);
    for (const VariantReport& v : r.variants) {
      const VariantReport& base = *BaselineOf(r.variants, v);
      const std::string label = mixed ? fmt::format("{} ({})", v.name, v.engine) : v.name;
      if (!model::Ran(v)) {
        out += fmt::format("  {:<{}} infeasible\n", label, mixed ? 18 : 12);
        continue;
      }
      const double per_node = 1.0 / (c.nodes * 2.0 * model::TotalParams(v.model));
      const model::PhaseBytes& b = v.bytes.cross_node;
      out += fmt::format("  {:<{}} {:.4f}M forward + {:.4f}M backward + {:.4f}M gradients = {:.4f}M", label, mixed ? 18 : 12,
                         b.forward_allgather * per_node, b.backward_allgather * per_node, b.gradient_reduce * per_node,
                         model::CrossNodeVolumeInM(v, c.nodes));
      if (&v != &base && model::Ran(base) && b.total() > 0 && v.model.name == base.model.name) {
        out += "   (" + VolumeAgainst(b.total(), base.bytes.cross_node.total(), base.name) + ")";
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace zerosim::io
