// Plan's search: for each cluster configuration of a sweep (a point of its axes), the best setting that fits
// in HBM among every variant of the sweep's base scenario (ZeRO, FSDP, HSDP, MiCS, ... mixed), each as
// written and, for a DeepSpeed ZeRO-3 variant, also with every ZeRO++ setting (qwZ on or off, qgZ on or off,
// every hpZ partition size that divides the GPUs per node), optionally at the largest micro-batch that fits
// (model/report/batch_search.h); then the clusters ranked by the expected value (under a budget by time to
// train, under a target time by cost, otherwise by cost per million tokens) with the band of each
// (model/report/band.h), the clusters whose bands overlap (the ranking between them is not resolved), and the
// Pareto front of throughput against cost per token (study/pareto.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/io/loaders.h"
#include "model/io/sweep.h"
#include "model/report/report.h"
#include "model/spec/cost.h"
#include "model/spec/goodput.h"
#include "model/spec/zero_config.h"
#include "model/status.h"

namespace zerosim::study {

struct PlanOptions {
  double budget_usd = 0;      // > 0: keep clusters that train within it, rank by time
  double target_days = 0;     // > 0: keep clusters that train within it, rank by cost
  bool search_batch = false;  // each setting at its largest micro-batch that fits
  int64_t global_batch = 0;   // with search_batch: the target global batch in sequences (0: none)
  // Each variant also with tensor and pipeline parallelism (PlanLayouts), so the plan chooses the layout
  // beside the ZeRO setting (issue 22 item 6).
  bool search_layout = false;
  // With search_layout: the searched tensor-parallel layouts overlap their TP communication with the GEMMs
  // (ParallelLayout::tp_comm_overlap: the user's stack is Megatron-Core with TransformerEngine's userbuffers, or
  // torchtitan with async TP).
  bool tp_comm_overlap = false;
  // With search_layout: an MoE model's layouts of tensor parallelism 2 also with the expert grid folded
  // (PlanLayouts `fold_experts`). Off by default: it makes an MoE plan about 3x slower.
  bool fold_experts = false;
  // false: every hour trains (the ideal figures); true: days, GPU-hours and cost carry the sweep's goodput
  // (io::SweepSpec::goodput, model/spec/goodput.h) unless the sweep switches it off.
  bool goodput = true;
  // Progress on stderr (study/progress.h) for a plan that runs longer than a second.
  bool progress = false;
};

// A setting plan tries: a variant of the sweep's base as written, or a ZeRO-3 variant with other ZeRO++
// switches.
struct PlanSetting {
  std::string name;  // the variant's name, or the variant's name and the switches that differ ("ZeRO-3 +hpZ2")
  const io::Variant* variant = nullptr;  // the variant it comes from (its model)
  model::ZeroConfig zero;
  model::ParallelLayout layout;  // the variant's, or a searched one (" TP<t> SP" in the name)
};

// The fastest setting of one layout on a cluster (PlanChoice::layouts).
struct PlanLayoutBest {
  model::ParallelLayout layout;
  std::string setting;  // its name, as PlanChoice::best's
  model::Strategy strategy = model::Strategy::kZero3;
  double tokens_per_s = 0;
  double tflops_per_gpu = 0;
  double pipeline_bubble_fraction = 0;
};

// A cluster configuration with its best setting.
struct PlanChoice {
  size_t point = 0;
  std::string cluster;                                    // axis values, "key=value key=value"
  // What the cluster is, for a reader: its GPU, nodes x GPUs per node, and the axes other than `topology` and
  // `nodes` ("H100-SXM5-80GB 16x8", "H200-SXM-141GB 32x8 nic.count=4"); its size and its price per GPU-hour
  // (the cost's usd_per_hour / GPUs: the rent, or the owned cluster's amortisation and power) with its source.
  std::string label;
  std::string gpu;
  int nodes = 0;
  int64_t gpus = 0;
  double usd_per_gpu_hour = 0;
  std::string price_source;
  bool rented = true;            // rent (a price per GPU-hour) or own (capital expense and power)
  double capex_per_gpu_usd = 0;  // own: the GPU's capital expense
  std::vector<std::pair<std::string, std::string>> axes;  // the same, key by key
  model::VariantReport best;  // named as its setting, with its band
  // The second-fastest setting that fits (its name, strategy and layout in `runner_up`; none: the best is the
  // only one), so that a plot shows how close the choice was.
  bool has_runner_up = false;
  model::VariantReport runner_up;
  // Every layout that fits with its fastest setting, fastest first (the first is the best's): the runner-up
  // layouts beside the choice (issue 22 item 6).
  std::vector<PlanLayoutBest> layouts;
  // The sweep's first variant as written on the same cluster (the baseline of "vs"); its throughput when it
  // fits (baseline_fits), else none.
  std::string baseline;
  bool baseline_fits = false;
  double baseline_tokens_per_s = 0;
  // The cost at the expected throughput times the goodput: time and cost of a run as a run would see them,
  // interruptions, restarts and checkpoints paid; `ideal_cost` at the expected throughput alone (every hour
  // training). The same when goodput is off.
  model::CostResult cost;
  model::CostResult ideal_cost;
  model::GoodputResult goodput;
  double gpu_hours = 0, ideal_gpu_hours = 0;  // GPUs x time to train
  // The time to train at the band's ends (with the goodput): train_tokens / (tokens/s high or low).
  double time_to_train_s_low = 0, time_to_train_s_high = 0;
  // The band's ends (model/report/band.h): tokens/s x [low, high]; cost per token and time divided by them.
  double tokens_per_s_low = 0, tokens_per_s_high = 0;
  double usd_per_million_tokens_low = 0, usd_per_million_tokens_high = 0;
};

struct Plan {
  std::vector<PlanChoice> choices;  // every cluster that can train the model, in point order
  int infeasible = 0;               // clusters that cannot (an infeasible point, or no setting fits)
  std::vector<size_t> ranked;       // indices into `choices`: those kept by the budget or target, best first
  std::vector<int> front;           // indices into `choices`: the Pareto front, cheapest first
  std::vector<int> rank_of;         // per choice: its 1-based position in `ranked`, 0 when filtered out
  // Per choice: its 1-based position among the kept ones by time to train (fastest first), 0 when filtered out,
  // so that one table ranks by cost and by days.
  std::vector<int> days_rank_of;
  // Per choice: the ranks (1-based, ascending) of the other ranked choices whose band of the ranking's
  // quantity intersects its own (cost per token; with a budget, throughput), so that the ranking between them
  // is not resolved; empty for a choice filtered out.
  std::vector<std::vector<int>> overlaps;
};

// The settings plan tries on cluster `c`: every variant as written, in order (the first is the baseline),
// then for each DeepSpeed ZeRO-3 variant every ZeRO++ setting of PlanZeroSettings not already listed (same
// model and ZeRO config).
// With `search_layout`, then every variant as written with each of PlanLayouts (the model validation drops
// the layouts a strategy or the model cannot take).
std::vector<PlanSetting> PlanSettings(const std::vector<io::Variant>& variants, const model::ClusterSpec& c,
                                      bool search_layout = false, bool tp_comm_overlap = false,
                                      bool fold_experts = false);

// The sequence from which plan --search-layout tries context parallelism, and the largest c it tries.
inline constexpr int kPlanContextMinSequence = 8192;
inline constexpr int kPlanMaxContext = 32;

// The layouts plan tries on cluster `c` beside data parallelism alone: tensor parallelism t = 1, 2, 4, ...
// dividing the GPUs per node (t > 1 with sequence parallelism: Megatron's and torchtitan's pairing for TP,
// Korthikanti et al. 2022) times pipelines of p = 1, 2, 4, ... stages dividing the node count (stages hold
// whole nodes), each with 1F1B and with 2, 4 or 8 model chunks per stage (interleaved 1F1B; Megatron-Bridge's
// recipes run 4-8 on large models). The model validation
// drops those the model or the strategy cannot take (p v dividing the layers; DeepSpeed's pipelines run
// ZeRO-1 only). Not searched: tensor groups across nodes, p that are not powers of two, more chunks. With
// `tp_comm_overlap` every layout of t > 1 overlaps its TP communication (ParallelLayout::tp_comm_overlap).
// For an MoE model of `experts` routed experts, data parallelism alone and each of those layouts also with
// expert parallelism e = 2, 4, ... dividing the experts (the validation drops an e that does not divide d,
// and the strategies and layouts expert parallelism is not modelled with). With `max_context` > 1 (a dense
// model's long sequence: PlanSettings), data parallelism alone and each layout also with context parallelism
// c = 2, 4, ... up to max_context (the validation drops a c that does not divide d or 2c the sequence). For a
// model of `layers` (> 0) that p v does not divide but L + 2 does, the pipelined layout counts the embedding
// and the loss in its split (Megatron-Core's account_for_*_in_pipeline_split, model/spec/pipeline_split.h).
// With `fold_experts`, an MoE layout of t = 2 and e >= 4 folds the expert grid (expert_tensor = 1,
// parallel_layout.h expert_folded: Megatron-Bridge's Qwen3-235B H100 layout, TP 2 EP 32); wider folded tensor
// groups are not searched (a scenario's variants can state them).
std::vector<model::ParallelLayout> PlanLayouts(const model::ClusterSpec& c, bool tp_comm_overlap = false,
                                               int experts = 0, int max_context = 1, int layers = 0,
                                               bool fold_experts = false);

// A searched layout's suffix of a setting's name: " TP8 SP", " PP4", " TP8 SP PP4x2" (p x v), " PP2 EP8",
// " PP8x2+E+L" (the embedding and the loss counted in the split).
std::string PlanLayoutName(const model::ParallelLayout& l);

// The ZeRO++ settings of a ZeRO-3 config on cluster `c`, from `base`: qwZ x qgZ (qgZ only with two nodes or
// more) x every hpZ size model::CheckZero allows (those dividing the GPUs per node); the first has every
// switch off.
std::vector<model::ZeroConfig> PlanZeroSettings(const model::ZeroConfig& base, const model::ClusterSpec& c);

// A derived setting's name: the variant's name and each switch that differs from it ("ZeRO-3 +qwZ +hpZ2",
// "ZeRO++ hpZ2 -qgZ"); the variant's name alone when none does.
std::string PlanSettingName(const io::Variant& from, const model::ZeroConfig& z);

// Plans the expanded sweep `spec` (study::LoadSweep), which must have prices and no ZeRO axes (the caller
// checks). Errors: a variant that breaks an invariant (model/report/invariants.h), named by point and
// cluster.
StatusOr<Plan> PlanSweep(const io::SweepSpec& spec, const PlanOptions& o);

}  // namespace zerosim::study
