// The size that meets the target (issue 38 item 3): when no cluster of a plan trains within `--target-days`, for
// each candidate (a cluster of the sweep without its node count: its GPU, topology and other axes' values) the
// smallest node count that would, or the days at the largest size searched. The same search as the plan's
// (study/plan_search.h PlanSweep: every variant and setting, the layouts and batches it searches), on the same
// sweep narrowed to the candidate's axis values with other node counts: doublings of the sweep's largest size
// (up to 64 times it, the model's node and GPU limits), then quarter steps between the last size that misses
// and the first that meets it.
#pragma once

#include <string>
#include <vector>

#include "model/io/sweep.h"
#include "model/status.h"
#include "study/plan_search.h"

namespace zerosim::study {

struct TargetAnswer {
  std::string candidate;  // the candidate's GPU and axis values other than nodes ("H100-SXM5-80GB topology=...")
  bool meets = false;     // a size within the search meets the target
  // The smallest size that meets the target (meets), else the fastest size searched, with its best setting,
  // days (with goodput) and cost.
  PlanChoice choice;
  int largest_nodes_searched = 0;
  // With `meets`: the largest size searched that misses the target (0: none below the answer was searched, the
  // answer is a size of the sweep).
  int missing_nodes = 0;
};

// For each candidate of `plan` (PlanSweep of `spec` with `o`; o.target_days > 0), in the order of its first
// point: the answer above. Errors: those of PlanSweep on the narrowed sweeps.
StatusOr<std::vector<TargetAnswer>> SizesForTarget(const io::SweepSpec& spec, const Plan& plan,
                                                   const PlanOptions& o);

// The answers as text, one line each, under a title naming the target.
std::string FormatTargetAnswers(const std::vector<TargetAnswer>& answers, double target_days);

}  // namespace zerosim::study
