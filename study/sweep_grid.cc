#include "study/sweep_grid.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/spec/feasibility.h"

namespace zerosim::study {

using io::Axis;
using io::AxisValue;
using io::Variant;

Status ExpandSweep(io::SweepSpec* sp) {
  io::SweepSpec& s = *sp;
  const std::string& path = s.file.path;
  s.product_index.clear();
  // Enumerate the product and keep the points that satisfy the constraints.
  size_t product = 1;
  for (const Axis& a : s.axes) {
    if (a.values.size() > io::kMaxSweepPoints / product) {
      return Status::Error(
          fmt::format("{}: [axes] {}: the axes' product has more than {:.0e} points with this axis; "
                      "split the sweep into several files",
                      a.where.empty() ? path : a.where, a.key, static_cast<double>(io::kMaxSweepPoints)));
    }
    product *= a.values.size();
  }
  int fewest = 0, most = 0;  // GPUs of the points, for the message when the constraints keep none
  for (size_t i = 0; i < product; ++i) {
    s.product_index.push_back(i);
    const SweepPoint p = MakePoint(s, s.product_index.size() - 1);
    const int gpus = p.cluster.total_gpus();
    fewest = i == 0 ? gpus : std::min(fewest, gpus);
    most = std::max(most, gpus);
    const bool keep = (s.total_gpus == 0 || gpus == s.total_gpus) &&
                      (s.min_total_gpus == 0 || gpus >= s.min_total_gpus) &&
                      (s.max_total_gpus == 0 || gpus <= s.max_total_gpus);
    if (!keep) s.product_index.pop_back();
  }
  if (s.product_index.empty()) {
    std::vector<std::string> set;
    if (s.total_gpus > 0) set.push_back(fmt::format("total_gpus = {}", s.total_gpus));
    if (s.min_total_gpus > 0) set.push_back(fmt::format("min_total_gpus = {}", s.min_total_gpus));
    if (s.max_total_gpus > 0) set.push_back(fmt::format("max_total_gpus = {}", s.max_total_gpus));
    return Status::Error(fmt::format(
        "{}: [constraints] {}: no point of the sweep satisfies it (its points have {} "
        "to {} GPUs)",
        s.constraints_where.empty() ? path : s.constraints_where, fmt::join(set, ", "), fewest, most));
  }

  // Owned clusters need a price for every NIC bandwidth they use.
  if (s.has_price) {
    for (size_t i = 0; i < s.product_index.size(); ++i) {
      const model::ClusterSpec c = MakePoint(s, i).cluster;
      const model::PriceModel& price = io::PriceOf(s, c);  // the point's GPU's prices (model/io/prices.h)
      if (price.rented()) continue;
      const double bw = c.nic.bandwidth_Bps;
      for (const auto* table : {&price.nic_usd_by_Bps, &price.switch_port_usd_by_Bps}) {
        if (table->count(bw) == 0) {
          return Status::Error(
              fmt::format("{}: [cost] has no NIC or switch-port price for {:g} Gbps NICs (add e.g. "
                          "\"{:g}Gbps\" = ... to [cost.nic_usd] and [cost.switch_port_usd])",
                          path, bw * 8 / 1e9, bw * 8 / 1e9));
        }
      }
    }
  }
  return Status::Ok();
}

StatusOr<io::SweepSpec> LoadSweep(const io::FileSource& fs, const std::string& path) {
  StatusOr<io::SweepSpec> s = io::ParseSweep(fs, path);
  if (!s.ok()) return s.status();
  if (Status st = ExpandSweep(&s.value()); !st.ok()) return st;
  return s;
}

size_t PointCount(const io::SweepSpec& s) { return s.product_index.size(); }

SweepPoint MakePoint(const io::SweepSpec& s, size_t index) {
  SweepPoint p;
  p.index = index;
  p.cluster = s.base.cluster;
  p.calibration = s.base.calibration;
  p.variants = s.base.variants;
  p.topology_file = s.base.topology_file;
  p.model_file = s.base.model_file;
  p.calibration_file = s.base.calibration_file;
  // Decode the mixed-radix product index, last axis fastest.
  size_t rest = s.product_index[index];
  std::vector<const AxisValue*> chosen(s.axes.size());
  for (size_t a = s.axes.size(); a-- > 0;) {
    const size_t n = s.axes[a].values.size();
    chosen[a] = &s.axes[a].values[rest % n];
    rest /= n;
  }
  for (size_t a = 0; a < s.axes.size(); ++a) p.axes.emplace_back(s.axes[a].key, chosen[a]->text);
  auto value = [&](const char* key) -> const AxisValue* {
    for (size_t a = 0; a < s.axes.size(); ++a) {
      if (s.axes[a].key == key) return chosen[a];
    }
    return nullptr;
  };
  // Whole files first, then the fields that override them.
  if (const AxisValue* v = value("topology")) {
    p.cluster = s.topologies[static_cast<size_t>(v->file)].first.cluster;
    p.calibration = s.topologies[static_cast<size_t>(v->file)].second;
    p.topology_file = s.topologies[static_cast<size_t>(v->file)].first.file;
    p.calibration_file = s.topology_calibration_files[static_cast<size_t>(v->file)];
  }
  if (const AxisValue* v = value("model")) {
    p.model_file = s.models[static_cast<size_t>(v->file)].file;
    for (Variant& var : p.variants) {
      const int seq = var.model.seq_len;
      var.model = s.models[static_cast<size_t>(v->file)].model;
      var.model.seq_len = seq;
    }
  }
  // Every other axis through its target (io::AxisTargetOf): the cluster's fields, then each variant's; the
  // sequence length before tokens_per_gpu, which reads it.
  for (size_t a = 0; a < s.axes.size(); ++a) {
    if (const io::AxisTarget& t = io::AxisTargetOf(s.axes[a].key); t.cluster != nullptr) {
      t.cluster(*chosen[a], &p.cluster);
    }
  }
  for (Variant& var : p.variants) {
    for (size_t a = 0; a < s.axes.size(); ++a) {
      if (const io::AxisTarget& t = io::AxisTargetOf(s.axes[a].key); t.variant != nullptr) {
        t.variant(*chosen[a], &var);
      }
    }
    if (const AxisValue* v = value("tokens_per_gpu")) {
      const int64_t tokens = static_cast<int64_t>(v->number);  // at most 2^44 (AxisRules)
      const int64_t seq = std::max(1, var.model.seq_len);
      if (tokens % seq != 0 && p.infeasible.empty()) {
        p.infeasible =
            fmt::format("{} tokens per GPU is not a whole number of {}-token sequences", tokens, seq);
      }
      const int64_t micro = std::max<int64_t>(1, tokens / seq);
      if (micro > model::kMaxMicroBatch && p.infeasible.empty()) {
        p.infeasible =
            fmt::format("{} tokens per GPU are {} sequences of {} tokens, more than ZeroSim's limit of {}",
                        tokens, micro, seq, model::kMaxMicroBatch);
      }
      var.zero.train_micro_batch_size_per_gpu =
          static_cast<int>(std::min<int64_t>(micro, model::kMaxMicroBatch));
    }
  }

  // Combinations that cannot run are results, with the reason: the one feasibility check
  // (model/spec/validate.h), the same the loaders report as errors.
  // Each variant on its own: one variant's problem does not make the others' rows infeasible.
  for (const Variant& var : p.variants) {
    p.variant_infeasible.push_back(
        model::DescribeProblems(io::ValidateVariant(s.base, var, p.cluster, p.calibration)));
  }
  return p;
}

namespace {

// Ok when some variant runs (an empty reason) or there are none: a variant that cannot run is an
// infeasible result of the run (EvaluateScenario checks each variant). When none can, the what-ifs
// themselves are the problem: "WHAT: no variant can run: variant "V": reasons".
Status NoVariantRuns(const std::vector<io::Variant>& variants, const std::vector<std::string>& reasons,
                     const std::string& what) {
  for (const std::string& why : reasons) {
    if (why.empty()) return Status::Ok();
  }
  if (variants.empty() || reasons.empty()) return Status::Ok();
  return Status::Error(fmt::format("{}: no variant can run: variant \"{}\": {}", what, variants.front().name,
                                   reasons.front()));
}

}  // namespace

StatusOr<io::Scenario> ApplySettings(const io::FileSource& fs, const io::Scenario& base,
                                     const std::vector<std::string>& settings) {
  StatusOr<io::SweepSpec> parsed = io::ParseSettings(fs, base, settings);
  if (!parsed.ok()) return parsed.status();
  io::SweepSpec& s = parsed.value();
  s.product_index = {0};
  const SweepPoint p = MakePoint(s, 0);
  // `--set nodes` is the scenario's `nodes` key given on the command line: the same range (at most the nodes
  // of the topology, the one set or the one the scenario names), and a part of a cluster named for its own
  // count.
  const io::Axis* nodes = nullptr;
  const io::Axis* topology = nullptr;
  for (const io::Axis& a : s.axes) {
    if (a.key == "nodes") nodes = &a;
    if (a.key == "topology") topology = &a;
  }
  if (nodes != nullptr) {
    const int n = static_cast<int>(nodes->values[0].number);
    const model::ClusterSpec& whole =
        topology != nullptr ? s.topologies[static_cast<size_t>(topology->values[0].file)].first.cluster
                            : base.cluster;
    const int topology_nodes = topology != nullptr ? whole.nodes : base.topology_nodes;
    const std::string topology_name = topology != nullptr ? whole.name : base.topology_cluster_name;
    if (topology_nodes > 0) {
      if (const std::string beyond = io::NodesBeyondTopology(n, topology_nodes, topology_name);
          !beyond.empty()) {
        return Status::Error(fmt::format("--set {}: {}", fmt::join(settings, " "), beyond));
      }
    }
  }
  io::Scenario out = base;
  out.cluster = p.cluster;
  out.calibration = p.calibration;
  out.variants = p.variants;
  // A `topology` or `model` setting names other files: the provenance says which.
  out.topology_file = p.topology_file;
  out.model_file = p.model_file;
  out.calibration_file = p.calibration_file;
  if (topology != nullptr) {
    out.topology_cluster_name = p.cluster.name;
    out.topology_nodes = s.topologies[static_cast<size_t>(topology->values[0].file)].first.cluster.nodes;
  }
  // A scenario on part of its topology's cluster was named for its count: the name follows the new one.
  if (nodes != nullptr && topology == nullptr && base.cluster.name != base.topology_cluster_name &&
      !base.topology_cluster_name.empty()) {
    out.cluster.name = io::PartClusterName(base.topology_cluster_name, out.cluster.nodes);
  }
  if (!settings.empty()) out.name = fmt::format("{} (--set {})", base.name, fmt::join(settings, " "));
  if (!p.infeasible.empty()) {
    return Status::Error(fmt::format("--set {}: {}", fmt::join(settings, " "), p.infeasible));
  }
  // The point's per-variant reasons are the check (MakePoint ran it on the configuration as it will run).
  if (Status st = NoVariantRuns(out.variants, p.variant_infeasible,
                                fmt::format("--set {}", fmt::join(settings, " ")));
      !st.ok()) {
    return st;
  }
  return out;
}

Status CheckSomeVariantRuns(const io::Scenario& s, const std::string& what) {
  std::vector<std::string> reasons;
  for (const io::Variant& v : s.variants) {
    reasons.push_back(model::DescribeProblems(io::ValidateVariant(s, v)));
  }
  return NoVariantRuns(s.variants, reasons, what);
}

}  // namespace zerosim::study
