#include "sim/sim_evaluate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/report/evaluate.h"
#include "model/report/pipeline_evaluate.h"
#include "model/builders/schedule_builder.h"
#include "sim/isolation.h"
#include "sim/pipeline_sends.h"
#include "sim/simgrid_platform.h"

namespace zerosim::sim {

StatusOr<model::TimedSchedule> SimEngine::Time(const model::Schedule& s, const model::ClusterSpec& c,
                                               bool /*timeline: the replay always records it*/) {
  StatusOr<SimResult> r = SimulateIsolated(s, c, cal_, o_);
  if (!r.ok()) return r.status();
  return model::TimedSchedule{std::move(r->timing), r->volumes};
}

StatusOr<double> SimEngine::SendSeconds(double bytes, const model::ClusterSpec& c, const model::ParallelLayout& l) {
  return SimulateSendStepIsolated(c, l, bytes, o_);
}

StatusOr<model::VariantReport> EvaluateSimVariant(const std::string& name, const model::Configuration& config,
                                                  const SimOptions& o, SimRun* run) {
  const model::ModelSpec& m = config.model;
  const model::ZeroConfig& z = config.zero;
  const model::ClusterSpec& c = config.cluster;
  const model::Calibration& cal = config.calibration;
  const model::ParallelLayout& l = config.layout;
  if (std::string why = NotReplayed(l, o); !why.empty())
    return Status::Error(fmt::format("{}: {}", name, why));
  if (l.pipeline > 1) {
    SimEngine engine(cal, o);
    StatusOr<model::VariantReport> v = model::ComposePipeline(name, config, engine);
    if (!v.ok()) return Status::Error(fmt::format("{}: {}", name, v.status().message()));
    return v;
  }
  model::Schedule s = model::BuildSchedule(m, z, model::RankShape(c, l));
  StatusOr<SimResult> r = SimulateIsolated(s, c, cal, o);
  if (!r.ok()) return Status::Error(fmt::format("{}: {}", name, r.status().message()));
  model::VariantReport v = SimVariantReport(name, m, z, c, s, *r);
  if (run != nullptr) {
    run->schedule = std::move(s);
    run->result = std::move(r).value();
  }
  return v;
}

std::string NotReplayed(const model::ParallelLayout& l, const SimOptions& o) {
  if (l.pipeline <= 1 || o.perturbations.empty()) return "";
  return fmt::format(
      "the SimGrid replay of a pipeline ({} stages) takes no perturbations: its stages are replayed on "
      "platforms of their own nodes, the middle ones as one (model/report/pipeline_evaluate.h)",
      l.pipeline);
}

model::VariantReport SimVariantReport(const std::string& name, const model::ModelSpec& m, const model::ZeroConfig& z,
                                      const model::ClusterSpec& c, const model::Schedule& s, const SimResult& r) {
  model::VariantReport v = model::AssembleVariant(name, "sim", m, z, c, s, r.timing, r.volumes);
  const SimStats& st = r.stats;
  v.link_load = {true, st.nic_capacity_bytes_measured, st.nic_capacity_bytes_planned,
                 st.nvlink_capacity_bytes_measured, st.nvlink_capacity_bytes_planned};
  return v;
}

std::vector<std::string> SimGridOptions(const SimOptions& o) {
  std::vector<std::string> out;
  for (const std::string& c : o.simgrid_cfg) out.push_back("--cfg=" + c);
  for (const std::string& l : o.simgrid_log) out.push_back("--log=" + l);
  return out;
}

std::string SimNetworkModel(const SimOptions& o) {
  const Perturbations& p = o.perturbations;
  std::string text = fmt::format(
      "sim engine: SimGrid {} flow-level max-min sharing ({}); {} collectives, NCCL's latency per protocol "
      "as "
      "delays, its bandwidth factor as wire overhead, tier efficiency through the bandwidth-factor callback; "
      "{} "
      "replay",
      SimGridVersion(), SimGridNetworkConfig(), FidelityName(o.fidelity),
      o.fidelity == Fidelity::kStep ? "full" : ReductionName(o.reduction));
  if (!p.empty()) {
    text += fmt::format("; perturbed cluster: {} slow node(s), {} degraded link(s), {} background flow(s)",
                        p.slow_nodes.size(), p.links.size(), p.background.size());
  }
  if (!o.simgrid_cfg.empty() || !o.simgrid_log.empty()) {
    text += fmt::format("; user's SimGrid options: {}", fmt::join(SimGridOptions(o), " "));
  }
  return text;
}

}  // namespace zerosim::sim
