// Loading a scenario (from disk, or the embedded default) and evaluating all its variants into a Report.
// Shared by the subcommands that evaluate scenarios.
#pragma once

#include <string>
#include <vector>

#include "model/io/loaders.h"
#include "model/report/evaluate.h"
#include "model/report/report.h"
#include "model/status.h"
#include "sim/sim_evaluate.h"
#include "sim/sim_options.h"

namespace zerosim::study {

// kAnalytic: NCCL's cost model per collective (model/analytic/analytic.h). kSim: the SimGrid replay (sim/).
// kBoth: each variant by both, the analytic column first.
enum class Engine { kAnalytic, kSim, kBoth };

// `path` empty: the embedded default scenario.
StatusOr<io::Scenario> LoadScenarioOrDefault(const std::string& path, const io::LoadOptions& options = {});

// The report of a variant (with its layout `l`) that is not evaluated because it cannot run (`reason`).
model::VariantReport InfeasibleVariant(const std::string& name, const std::string& engine,
                                       const model::ModelSpec& m, const model::ZeroConfig& z,
                                       const std::string& reason, const model::ParallelLayout& l = {});

// Every variant of `s` by the analytic engine; with `cache`, schedules come from it (a fit that changes
// only bandwidth efficiencies builds each schedule once).
StatusOr<model::Report> EvaluateAnalyticScenario(const io::Scenario& s, model::ScheduleCache* cache = nullptr);

// Evaluates every variant of `s` with `engine`; the sim engine runs each variant's simulation in its own
// child process with `sim_options`, up to `sim_options.variant_jobs` of them at once (the report's bytes do
// not depend on it). `sim_runs`, if given, receives each simulated variant's schedule and
// replay (in variant order; a variant that is not simulated gets an empty run). A variant that fails
// model::Validate (io::ValidateVariant) is not evaluated: its report is infeasible with the problems as the
// reason. Errors: a failed simulation, or a report that breaks an invariant (model/report/invariants.h).
// `cache`, if given, supplies the analytic engine's schedules.
StatusOr<model::Report> EvaluateScenario(const io::Scenario& s, Engine engine,
                                         const sim::SimOptions& sim_options = {},
                                         std::vector<sim::SimRun>* sim_runs = nullptr,
                                         model::ScheduleCache* cache = nullptr);

}  // namespace zerosim::study
