#include "study/scenario_runner.h"

#include "model/io/band_loader.h"
#include "study/bands.h"

#include <fmt/format.h>

#include "model/io/embedded.h"
#include "model/report/evaluate.h"
#include "model/report/invariants.h"
#include "model/report/rlhf_evaluate.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/feasibility.h"
#include "model/version.h"
#include "sim/isolation.h"
#include "sim/sim_evaluate.h"
#include "sim/simgrid_platform.h"

namespace zerosim::study {

namespace {

// Where a variant's replay is among the simulated ones.
struct SimRunSlot {
  bool simulated = false;
  size_t index = 0;
};

constexpr const char* kAnalyticModel =
    "analytic engine: NCCL's cost model per link tier (rings, all-to-all; the tuner's pick for a "
    "whole-cluster "
    "or in-node TP all-reduce), each collective uncontended, link tiers shared by the queues";

// An RLHF variant ([rlhf]) by phase (model/report/rlhf_evaluate.h), each pass timed by the analytic engine or,
// with `sim`, the replay.
StatusOr<model::VariantReport> EvaluateRlhf(const io::Scenario& s, const io::Variant& v, bool sim,
                                            const sim::SimOptions& o) {
  model::AnalyticEngine analytic(s.calibration);
  sim::SimEngine replay(s.calibration, o);
  model::Engine& engine = sim ? static_cast<model::Engine&>(replay) : analytic;
  return model::EvaluateRlhfVariant(v.name, io::ConfigurationOf(s, v), engine);
}

}  // namespace

StatusOr<io::Scenario> LoadScenarioOrDefault(const std::string& path, const io::LoadOptions& options) {
  if (path.empty()) {
    const io::MemoryFileSource embedded(io::EmbeddedFiles());
    return io::LoadScenario(embedded, io::kDefaultScenario, options);
  }
  const io::DiskFileSource disk;
  return io::LoadScenario(disk, path, options);
}

StatusOr<model::Report> EvaluateAnalyticScenario(const io::Scenario& s, model::ScheduleCache* cache) {
  io::Scenario uniform = s;  // fit's published points are uniform clusters; perturbations are sim-only
  uniform.perturbations = {};
  return EvaluateScenario(uniform, Engine::kAnalytic, {}, nullptr, cache);
}

model::VariantReport InfeasibleVariant(const std::string& name, const std::string& engine,
                                       const model::ModelSpec& m, const model::ZeroConfig& z,
                                       const std::string& reason, const model::ParallelLayout& l) {
  model::VariantReport r;
  r.name = name;
  r.engine = engine;
  r.model = m;
  r.zero = z;
  r.layout = l;
  r.feasible = false;
  r.infeasible_reason = reason;
  return r;
}

StatusOr<model::Report> EvaluateScenario(const io::Scenario& s, Engine engine, const sim::SimOptions& sim_options,
                                         std::vector<sim::SimRun>* sim_runs, model::ScheduleCache* cache) {
  const bool analytic = engine != Engine::kSim;
  const bool simulated = engine != Engine::kAnalytic;
  if (analytic && !s.perturbations.empty()) {
    return Status::Error(fmt::format("{}: [perturbations] are modelled by the sim engine only: use --engine sim",
                                     s.scenario_file.path));
  }
  sim::SimOptions perturbed = sim_options;
  perturbed.perturbations = s.perturbations;
  model::Report r;
  r.provenance = io::ScenarioProvenance(s);
  r.provenance.zerosim_version = Version();
  r.scenario_name = s.name;
  r.cluster = s.cluster;
  r.model = s.variants.empty() ? model::ModelSpec{} : s.variants.front().model;
  if (analytic && simulated) {
    r.provenance.network_model = std::string(kAnalyticModel) + " | " + sim::SimNetworkModel(perturbed);
  } else {
    r.provenance.network_model = analytic ? kAnalyticModel : sim::SimNetworkModel(perturbed);
  }
  if (simulated) r.provenance.simgrid_version = sim::SimGridVersion();
  if (simulated) r.provenance.simgrid_options = sim::SimGridOptions(sim_options);
  // The one feasibility check (model/spec/validate.h) before any schedule is built.
  std::vector<std::string> problems;
  for (const io::Variant& v : s.variants)
    problems.push_back(model::DescribeProblems(io::ValidateVariant(s, v)));
  // The feasible variants' replays, several at once (SimOptions::variant_jobs), each in its own process.
  std::vector<model::Schedule> schedules;
  std::vector<SimRunSlot> slots(s.variants.size());
  std::vector<sim::SimResult> replays;
  if (simulated && !s.rlhf) {
    std::vector<std::string> names;
    for (size_t i = 0; i < s.variants.size(); ++i) {
      // A pipeline is composed of several replays (sim::EvaluateSimVariant), below.
      if (!problems[i].empty() || s.variants[i].parallel.pipeline > 1) continue;
      slots[i] = {true, schedules.size()};
      schedules.push_back(model::BuildSchedule(s.variants[i].model, s.variants[i].zero,
                                               model::RankShape(s.cluster, s.variants[i].parallel)));
      names.push_back(s.variants[i].name);
    }
    std::vector<const model::Schedule*> pointers;
    for (const model::Schedule& schedule : schedules) pointers.push_back(&schedule);
    StatusOr<std::vector<sim::SimResult>> all =
        sim::SimulateAll(pointers, names, s.cluster, s.calibration, perturbed, sim_options.variant_jobs);
    if (!all.ok()) return all.status();
    replays = std::move(all).value();
  }
  for (size_t i = 0; i < s.variants.size(); ++i) {
    const io::Variant& v = s.variants[i];
    if (s.rlhf) {
      for (bool sim : {false, true}) {
        if ((sim && !simulated) || (!sim && !analytic)) continue;
        if (!problems[i].empty()) {
          r.variants.push_back(
              InfeasibleVariant(v.name, sim ? "sim" : "analytic", v.model, v.zero, problems[i], v.parallel));
          continue;
        }
        StatusOr<model::VariantReport> rv = EvaluateRlhf(s, v, sim, perturbed);
        if (!rv.ok()) return Status::Error(fmt::format("variant '{}': {}", v.name, rv.status().message()));
        r.variants.push_back(std::move(rv).value());
        if (sim && sim_runs != nullptr) sim_runs->push_back({});
      }
      continue;
    }
    if (analytic) {
      if (!problems[i].empty()) {
        r.variants.push_back(InfeasibleVariant(v.name, "analytic", v.model, v.zero, problems[i], v.parallel));
      } else {
        r.variants.push_back(model::EvaluateAnalyticVariant(v.name, io::ConfigurationOf(s, v), cache));
      }
    }
    if (simulated) {
      sim::SimRun run;
      if (slots[i].simulated) {
        const model::Schedule& schedule = schedules[slots[i].index];
        r.variants.push_back(
            sim::SimVariantReport(v.name, v.model, v.zero, s.cluster, schedule, replays[slots[i].index]));
        if (sim_runs != nullptr) run = {schedule, std::move(replays[slots[i].index])};
      } else {
        const std::string why = problems[i].empty() ? sim::NotReplayed(v.parallel, perturbed) : problems[i];
        if (why.empty()) {  // a pipeline: its stages' and its sends' replays
          StatusOr<model::VariantReport> rv =
              sim::EvaluateSimVariant(v.name, io::ConfigurationOf(s, v), perturbed);
          if (!rv.ok()) return Status::Error(fmt::format("variant '{}': {}", v.name, rv.status().message()));
          r.variants.push_back(std::move(rv).value());
        } else {
          r.variants.push_back(InfeasibleVariant(v.name, "sim", v.model, v.zero, why, v.parallel));
        }
      }
      if (sim_runs != nullptr) sim_runs->push_back(std::move(run));
    }
  }
  for (const model::VariantReport& v : r.variants) {
    if (Status st = model::InvariantStatus(s.name, v); !st.ok()) return st;
  }
  if (Status st = AttachBands(io::ShippedBands(), s.calibration, &r); !st.ok()) return st;
  return r;
}

}  // namespace zerosim::study
