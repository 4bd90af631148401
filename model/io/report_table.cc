#include "model/io/report_table.h"

#include <cmath>
#include <functional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "model/io/report_fields.h"
#include "model/io/rlhf_report.h"
#include "model/report/evaluate.h"
#include "model/spec/intra_fabric.h"
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
    if (MixedEngines(v_)) Line("engine", [](const VariantReport& r) { return r.engine; });
  }
  // Rows after a section title are indented under it.
  void Section(const std::string& title) {
    out_ += fmt::format("  {}\n", title);
    indent_ = "    ";
  }
  // A row every variant has a cell in: its settings, and the field list's lines (whose cell is "-" where the
  // variant lacks what the field needs: TableCell).
  void Line(const std::string& label, const Cell& cell) {
    out_ += fmt::format("{:<{}}", indent_ + label, kLabelWidth);
    // A space before every cell, so that one as wide as the column ("H100 fsdp compute n44") stays apart from
    // the one before it.
    for (const VariantReport& r : v_) out_ += fmt::format(" {:>{}}", cell(r), kColumnWidth - 1);
    out_ += "\n";
  }
  std::string str() const { return out_; }

 private:
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
  // A node that is an NVLink domain over several trays (GB200 NVL72) says so; a one-tray node prints as before.
  const std::string trays =
      c.intra.trays > 1 ? fmt::format(" (an NVLink domain of {} trays x {} GPUs, {} NICs per tray)", c.intra.trays,
                                      c.gpus_per_tray(), c.nic.count / c.intra.trays)
                        : std::string();
  const std::string power =
      c.gpu.power_limit_W > 0 ? fmt::format(" (power-capped at {:g} W)", c.gpu.power_limit_W) : std::string();
  // The intra-node fabric: NVSwitch prints as before; a PCIe node and an NVLink mesh name theirs and say the
  // per-GPU bandwidth is their ring's (intra_fabric.h).
  const std::string fabric =
      c.intra.fabric == model::IntraFabric::kNvSwitch ? std::string("NVSwitch")
      : c.intra.fabric == model::IntraFabric::kPcie
          ? fmt::format("PCIe ({} switches, {} socket{}), ring", model::PcieSwitches(c), c.intra.pcie.sockets,
                        c.intra.pcie.sockets > 1 ? "s" : "")
          : fmt::format("NVLink mesh ({:g} GB/s per pair), ring", c.intra.pair_Bps / 1e9);
  out += fmt::format("cluster      {}: {} nodes x {} {}{} = {} GPUs{}; {} {:g} GB/s per GPU; {} x {:g} Gbps NIC per "
                     "node; {}\n",
                     c.name, c.nodes, c.gpus_per_node, c.gpu.name, power, c.total_gpus(), trays, fabric,
                     c.intra.bandwidth_Bps / 1e9,
                     c.nic.count, c.nic.bandwidth_Bps * 8 / 1e9, model::FabricKindName(c.fabric.kind));
  out += fmt::format("model        {}: {:.2f} B parameters, {} layers, hidden {}, {} heads, vocab {}\n", m.name,
                     model::TotalParams(m) / 1e9, m.layers, m.hidden, m.heads, m.vocab);
  // Provenance texts can be long: the table shows their start, the JSON report all of it.
  auto clip = [](const std::string& text) { return text.size() <= 160 ? text : text.substr(0, 157) + "..."; };
  out += fmt::format("calibration  {} ({}): {}\n", p.calibration.path, p.calibration_source, clip(p.calibration_provenance));
  out += fmt::format("GEMM eff.    {}\n", clip(p.gemm_efficiency_source));
  if (!p.fp8_gemm_efficiency_source.empty())
    out += fmt::format("FP8 GEMM     {}\n", clip(p.fp8_gemm_efficiency_source));
  if (!p.power_model.empty()) out += fmt::format("power        {}\n", clip(p.power_model));
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
    t.Line("model (B parameters)",
           [](const VariantReport& v) { return Num(model::TotalParams(v.model) / 1e9, 1); });
  }
  t.Line("strategy", [](const VariantReport& v) {
    const int shard = v.zero.shard_group_size();
    return model::HasShardGroup(v.zero.strategy) && shard > 0
               ? fmt::format("{} s={}", model::StrategyLabel(v.zero.strategy), shard)
               : std::string(model::StrategyLabel(v.zero.strategy));
  });
  t.Line("qwZ / hpZ / qgZ", [](const VariantReport& v) {
    return fmt::format("{}/{}/{}", v.zero.zero_quantized_weights ? "on" : "-", v.zero.zero_hpz_partition_size,
                       v.zero.zero_quantized_gradients ? "on" : "-");
  });
  // Each with where it came from (stated in the input, the stated launcher's, or the default): issue 35.
  t.Line("launcher", [](const VariantReport& v) {
    return fmt::format("{} ({})", model::LauncherName(v.zero.effective_launcher()), v.zero.launcher_origin());
  });
  t.Line("  CUDA_DEVICE_MAX_CONNECTIONS", [](const VariantReport& v) {
    return fmt::format("{} ({})", v.zero.runtime.cuda_device_max_connections, v.zero.queue_origin());
  });
  t.Line("tokens per GPU (seq x micro)", [](const VariantReport& v) {
    // A context-parallel rank holds s / c of each sequence (parallel_layout.h `context`).
    const int cp = v.layout.context;
    return cp > 1 ? fmt::format("{}x{} (of {})", v.model.seq_len / cp, v.zero.train_micro_batch_size_per_gpu,
                                v.model.seq_len)
                  : fmt::format("{}x{}", v.model.seq_len, v.zero.train_micro_batch_size_per_gpu);
  });
  // The reported quantities, one line each, from the field list (report_fields.h: TablePlace) in its order,
  // each under its section's heading; "-" where a variant lacks what the field needs (a variant that does not
  // fit has no numbers of a run, whose reason follows the table, but keeps its memory estimate).
  const std::string first = r.variants.empty() ? std::string() : r.variants.front().name;
  const char* section = nullptr;
  for (const ReportField& f : TableFields()) {
    if (f.table.section != nullptr && (section == nullptr || std::string_view(section) != f.table.section)) {
      t.Section(f.table.section);
      section = f.table.section;
    }
    std::string label = f.table.label;
    if (const size_t at = label.find("{}"); at != std::string::npos) label.replace(at, 2, first);
    t.Line(label, [&](const VariantReport& v) {
      return TableCell(f, FieldOf(f, {&v, &c, r.scenario_name, BaselineOf(r.variants, v)}));
    });
  }
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
