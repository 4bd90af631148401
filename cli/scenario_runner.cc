#include "cli/scenario_runner.h"

#include "model/evaluate.h"
#include "model/io/embedded.h"
#include "model/version.h"

namespace zerosim::cli {

StatusOr<io::Scenario> LoadScenarioOrDefault(const std::string& path) {
  if (path.empty()) {
    const io::MemoryFileSource embedded(io::EmbeddedFiles());
    return io::LoadScenario(embedded, io::kDefaultScenario);
  }
  const io::DiskFileSource disk;
  return io::LoadScenario(disk, path);
}

model::Report EvaluateScenario(const io::Scenario& s, Engine engine) {
  model::Report r;
  r.provenance = io::ScenarioProvenance(s);
  r.provenance.zerosim_version = Version();
  r.scenario_name = s.name;
  r.cluster = s.cluster;
  r.model = s.variants.empty() ? model::ModelSpec{} : s.variants.front().model;
  switch (engine) {
    case Engine::kAnalytic:
      r.provenance.network_model =
          "analytic engine: NCCL's ring/all-to-all cost model per link tier, each collective uncontended";
      for (const io::Variant& v : s.variants) {
        r.variants.push_back(model::EvaluateAnalyticVariant(v.name, v.model, v.zero, s.cluster, s.calibration));
      }
      break;
  }
  return r;
}

}  // namespace zerosim::cli
