// Evaluating one sweep point: every variant of the point by the analytic engine or the SimGrid replay,
// each report checked against the model's invariants.
#pragma once

#include <vector>

#include "model/report/evaluate.h"
#include "model/report/report.h"
#include "model/status.h"
#include "sim/sim_options.h"
#include "study/sweep_grid.h"

namespace zerosim::study {

// One report per variant (infeasible points give reports with feasible = false). With `sim`, each variant
// is replayed on SimGrid (sim/sim_evaluate.h) with `sim_options`. Errors: a failed simulation, a broken
// invariant (model/report/invariants.h); both name the point.
StatusOr<std::vector<model::VariantReport>> EvaluatePoint(const SweepPoint& p, model::ScheduleCache* cache,
                                                          bool sim = false,
                                                          const sim::SimOptions& sim_options = {});

}  // namespace zerosim::study
