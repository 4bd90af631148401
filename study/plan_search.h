// Plan's search: for each cluster configuration of a sweep (a point of its axes), the best ZeRO setting
// (qwZ on or off, qgZ on or off, every hpZ partition size that divides the GPUs per node) that fits in HBM,
// optionally at the largest micro-batch that fits (model/batch_search.h); then the clusters ranked (under a
// budget by time to train, under a target time by cost, otherwise by cost per million tokens) and the
// Pareto front of throughput against cost per token (model/pareto.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/cost.h"
#include "model/io/sweep.h"
#include "model/report.h"
#include "model/status.h"
#include "model/zero_config.h"

namespace zerosim::study {

struct PlanOptions {
  double budget_usd = 0;      // > 0: keep clusters that train within it, rank by time
  double target_days = 0;     // > 0: keep clusters that train within it, rank by cost
  bool search_batch = false;  // each setting at its largest micro-batch that fits
  int64_t global_batch = 0;   // with search_batch: the target global batch in sequences (0: none)
};

// A cluster configuration with its best setting.
struct PlanChoice {
  size_t point = 0;
  std::string cluster;                                    // axis values, "key=value key=value"
  std::vector<std::pair<std::string, std::string>> axes;  // the same, key by key
  model::VariantReport best;
  double zero3_tokens_per_s = 0;  // plain ZeRO-3 on the same cluster (0 when it does not fit)
  model::CostResult cost;
};

struct Plan {
  std::vector<PlanChoice> choices;  // every cluster that can train the model, in point order
  int infeasible = 0;               // clusters that cannot (an infeasible point, or no setting fits)
  std::vector<size_t> ranked;       // indices into `choices`: those kept by the budget or target, best first
  std::vector<int> front;           // indices into `choices`: the Pareto front, cheapest first
  std::vector<int> rank_of;         // per choice: its 1-based position in `ranked`, 0 when filtered out
};

// The ZeRO settings plan tries on cluster `c`, from `base`: qwZ x qgZ (qgZ only with two nodes or more) x
// every hpZ size dividing the GPUs per node; the first is plain ZeRO-3.
std::vector<model::ZeroConfig> PlanZeroSettings(const model::ZeroConfig& base, const model::ClusterSpec& c);

// A setting's short name: "ZeRO-3", or its switches ("qwZ hpZ8 qgZ").
std::string PlanSettingName(const model::ZeroConfig& z);

// Plans the expanded sweep `spec` (study::LoadSweep), which must have prices and no ZeRO axes (the caller
// checks). Errors: a variant that breaks an invariant (model/invariants.h), named by point and cluster.
StatusOr<Plan> PlanSweep(const io::SweepSpec& spec, const PlanOptions& o);

}  // namespace zerosim::study
