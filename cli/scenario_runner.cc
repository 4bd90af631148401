#include "cli/scenario_runner.h"

#include <fmt/format.h>

#include "model/evaluate.h"
#include "model/io/embedded.h"
#include "model/version.h"
#include "sim/simgrid_platform.h"

namespace zerosim::cli {

namespace {

constexpr const char* kAnalyticModel =
    "analytic engine: NCCL's ring/all-to-all cost model per link tier, each collective uncontended";

}  // namespace

StatusOr<io::Scenario> LoadScenarioOrDefault(const std::string& path) {
  if (path.empty()) {
    const io::MemoryFileSource embedded(io::EmbeddedFiles());
    return io::LoadScenario(embedded, io::kDefaultScenario);
  }
  const io::DiskFileSource disk;
  return io::LoadScenario(disk, path);
}

model::Report EvaluateAnalyticScenario(const io::Scenario& s) {
  io::Scenario uniform = s;  // fit's published points are uniform clusters; perturbations are sim-only
  uniform.perturbations = {};
  StatusOr<model::Report> r = EvaluateScenario(uniform, Engine::kAnalytic);
  return std::move(r).value();  // the analytic engine always succeeds
}

StatusOr<model::Report> EvaluateScenario(const io::Scenario& s, Engine engine, const sim::SimOptions& sim_options,
                                         std::vector<sim::SimRun>* sim_runs) {
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
  for (const io::Variant& v : s.variants) {
    if (analytic) {
      r.variants.push_back(model::EvaluateAnalyticVariant(v.name, v.model, v.zero, s.cluster, s.calibration));
    }
    if (simulated) {
      sim::SimRun run;
      StatusOr<model::VariantReport> sv =
          sim::EvaluateSimVariant(v.name, v.model, v.zero, s.cluster, s.calibration, perturbed, &run);
      if (!sv.ok()) return sv.status();
      r.variants.push_back(std::move(sv).value());
      if (sim_runs != nullptr) sim_runs->push_back(std::move(run));
    }
  }
  return r;
}

}  // namespace zerosim::cli
