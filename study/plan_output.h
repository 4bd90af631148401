// What `zerosim plan` prints and writes (study/plan_search.h): the ranking of the clusters by the expected value
// with each one's band and the clusters whose bands overlap, the Pareto front, and the `--jsonl` lines the
// procurement notebook plots (docs/sweeps.md).
#pragma once

#include <string>

#include "model/io/sweep.h"
#include "study/plan_search.h"

namespace zerosim::study {

// The title, the first `top` clusters of the ranking and the Pareto front, as a table: per cluster its best
// setting, TFLOPs per GPU, tokens/s with its band, the gain over the sweep's first variant, cost per million
// tokens with its band, time and cost of a run, and the ranks its band overlaps.
std::string FormatPlan(const io::SweepSpec& spec, const Plan& plan, const PlanOptions& o, int top);

// One JSON line per planned cluster (every choice, in point order), each ending in "\n".
std::string PlanJsonl(const Plan& plan);

}  // namespace zerosim::study
