// Evaluate a configuration: build its schedule, time it, and assemble the VariantReport (throughput,
// exposed communication, per-tier volumes, memory and feasibility). The SimGrid engine reuses
// AssembleVariant with its own timing and measured volumes.
#pragma once

#include <deque>
#include <string>

#include "model/analytic/analytic.h"
#include "model/placement/placement.h"
#include "model/placement/traffic.h"
#include "model/report/engine.h"
#include "model/report/memory.h"
#include "model/report/report.h"
#include "model/schedule/schedule.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/configuration.h"
#include "model/spec/model_spec.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

// Turns a schedule's timing and volumes into a report. Feasibility: the memory estimate must fit the
// GPU's HBM. Throughput counts the micro-batches of the d = P / t data-parallel ranks (Schedule::tensor).
// `residency`: a pipeline stage's activations in flight (memory.h; the default: none, one micro-batch).
VariantReport AssembleVariant(const std::string& name, const std::string& engine, const ModelSpec& m,
                              const ZeroConfig& z, const ClusterSpec& c, const Schedule& s, const Timing& t,
                              const TierVolumes& v, const PipelineResidency& residency = {});

// The throughput of `r` from its iteration_time_s: TFLOPs per GPU (IterationFlops over the cluster's P
// GPUs), tokens per second of the `data_parallel` ranks' micro-batches and the MFU, for the whole model `m`.
void SetThroughput(VariantReport* r, const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                   int data_parallel);

class ScheduleCache;

// A variant timed by `engine` (engine.h): a pipelined layout (p > 1) is its stages' schedules composed by the
// pipeline (pipeline_evaluate.h ComposePipeline); otherwise its schedule (BuildSchedule for the layout: one
// tensor-parallel rank's; from `cache` when given) timed on the whole cluster and assembled (AssembleVariant,
// engine.name()). Errors: the engine's. The replay's own entry point (sim/sim_evaluate.h) adds its link-load
// statistics and batches many variants' replays; the analytic engine's is this one.
StatusOr<VariantReport> EvaluateVariant(const std::string& name, const Configuration& v, Engine& engine,
                                        ScheduleCache* cache = nullptr);

// EvaluateVariant with the analytic engine, which cannot fail.
VariantReport EvaluateAnalyticVariant(const std::string& name, const Configuration& v,
                                      ScheduleCache* cache = nullptr);
// The same with a schedule already built for `v` (BuildSchedule(v.model, v.zero, RankShape(v.cluster,
// v.layout))).
VariantReport EvaluateAnalyticVariant(const std::string& name, const Configuration& v, const Schedule& s);

// Keeps the last few schedules built (least recently used out) and rebuilds only for a model, ZeRO config
// or cluster shape it does not hold (sweeps order their axes so that consecutive points share them). The
// key is BuildSchedule's input: the whole ModelSpec and ZeroConfig (every field, micro-batch and bucket
// sizes included) and the cluster's RankShape; clusters that differ in links, bandwidths or GPU share it.
class ScheduleCache {
 public:
  explicit ScheduleCache(size_t capacity = 8) : capacity_(capacity < 1 ? 1 : capacity) {}
  // The returned schedule stays valid (entries never move: a deque) until it is evicted, which takes at
  // least `capacity` calls that build a new schedule after its last use.
  const Schedule& Get(const ModelSpec& m, const ZeroConfig& z, const RankShape& shape);
  int builds() const { return builds_; }

 private:
  struct Entry {
    ModelSpec m;
    ZeroConfig z;
    RankShape shape;
    Schedule s;
    long last_use = 0;
  };
  size_t capacity_;
  std::deque<Entry> entries_;
  long clock_ = 0;
  int builds_ = 0;
};

// Cross-node bytes per node per iteration in units of M, the model's size in fp16 bytes (the ZeRO++
// paper's "3M vs 0.75M"): bytes.cross_node.total / (nodes * 2 * parameters).
double CrossNodeVolumeInM(const VariantReport& v, int nodes);

// Model FLOPs per trained token for MFU: 6 N + 12 l h s (PaLM, app. B), no recompute.
double ModelFlopsPerToken(const ModelSpec& m);

// Model FLOPs per trained token as NVIDIA's training stacks count them for the "model TFLOP/s/GPU" of their
// performance tables (no recompute; Narayanan et al. 2021, appendix: 3 passes x 2 FLOPs per multiply-add):
// 12 l h^2 x [(1 + g/a + c s/h) x q/h + (f/h) x (3/2 for a gated MLP) + V / (2 l h)], g the key/value heads, a the
// query heads, q = a x head width the query projection's width, and c the share of the s x s score square counted:
//  - causal = false, c = 1: Megatron-LM's num_floating_point_operations (megatron/training/training.py, r0.8),
//    which NeMo 24.07's tables use;
//  - causal = true, c = 1/2: Megatron-Bridge's transformer_flops (src/megatron/bridge/training/utils/
//    flop_utils.py), "q*s/2" for causal attention: the Megatron-Bridge tables of 2025-26.
// Unlike PaLM's count (ModelFlopsPerToken) it has no embedding-table or norm terms.
double MegatronModelFlopsPerToken(const ModelSpec& m, bool causal);

// Model TFLOP/s per GPU of `v`'s headline throughput (tokens/s x band centre) at `flops_per_token` (one of the
// counts above); 0 without GPUs.
double HeadlineModelTflopsPerGpu(const VariantReport& v, double flops_per_token);

// FLOPs counted per iteration for throughput (Megatron's accounting, TrainingFlops) over all GPUs.
double IterationFlops(const ModelSpec& m, const ZeroConfig& z, int world_size);

}  // namespace zerosim::model
