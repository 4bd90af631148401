#include "model/builders/schedule_builder.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/builders/fetch_coordinator.h"
#include "model/builders/gradient_reducer.h"
#include "model/builders/op_emitter.h"
#include "model/builders/schedule_parts.h"
#include "model/spec/precision.h"

namespace zerosim::model {
namespace {

// DeepSpeed stage 3 (and ZeRO++ on it), or MiCS: stage 3 over a shard group (mics.py MiCS_Init,
// MiCS_Optimizer: the partition count is the shard size and the gradient partitions are all-reduced across
// the replication group at the accumulation boundary).
Schedule BuildStage3Schedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c) {
  Schedule s;
  const ScheduleFrame f = BeginSchedule(m, z, c, &s);
  const bool mics = TraitsOf(z.strategy).parameters == ShardOver::kShardGroup;
  const int shards = s.param_shards;  // the shard group (MiCS) or the data-parallel group
  s.reduce_buffer_elements = z.contiguous_gradients ? z.reduce_bucket_size : 0;
  OpEmitter emit(&s, z.zero_hpz_partition_size);
  FetchCoordinator fetch(s.graph, z, &emit);
  GradientReducer reduce(s.graph, z, c.nodes, c.gpus_per_node, &emit);

  std::vector<int> ready;
  for (int micro = 0; micro < z.gradient_accumulation_steps; ++micro) {
    reduce.SetAccumulationBoundary(micro == z.gradient_accumulation_steps - 1);
    fetch.BeginPass(&f.trace);
    for (int step = 0; step < static_cast<int>(f.trace.size()); ++step) {
      const TraceStep& ts = f.trace[static_cast<size_t>(step)];
      emit.SetContext(ts.phase, micro, ts.module);
      emit.Host(z.runtime.host_overhead_per_module_s);
      const int gathered = fetch.Fetch(step);
      const int compute = EmitModuleCompute(s, f, ts, &emit, {gathered});
      fetch.Release(step);
      if (ts.phase == Phase::kBackward) {
        ReadyGradients(s, f, step, &ready);
        reduce.OnGradientsReady(ready, compute);
      }
    }
    emit.SetContext(Phase::kBackward, micro, -1);
    fetch.EndPass();
    reduce.Epilogue();
  }
  EmitOptimizerStep(z, &s, &emit);
  if (z.precision.fp8_weight_all_gather) {
    // precompute_float8_dynamic_scale_for_fsdp after the step: the amax of every FP8 weight's shard (one
    // read). Its all-reduce of one fp32 per weight tensor is not emitted (a few KB; latency only).
    double fp8_partition = 0;
    const std::vector<bool> fp8 = Fp8Params(s.graph);
    for (size_t i = 0; i < fp8.size(); ++i) {
      if (fp8[i]) fp8_partition += std::ceil(s.graph.params[i].numel() / shards);
    }
    emit.Memory(Queue::kCompute, kFp8AmaxBytes * fp8_partition, {});
  }
  // DeepSpeed stage 3's _post_step (v0.6 to v0.10): the persistent parameters (numel below
  // stage3_param_persistence_threshold), just updated, are gathered again through
  // _allgather_params_coalesced, which issues one all-gather per parameter in the model's dtype (never
  // quantized) over the partition group (MiCS: its shard group), then torch.cuda.synchronize(): tiny,
  // latency-bound collectives in a row, exposed at the end of every step.
  const GroupKind partition_group = mics ? GroupKind::kShard : GroupKind::kGlobal;
  const double element_bytes = BytesPerElement(m.dtype);
  int last_gather = -1;
  for (const Param& p : s.graph.params) {
    if (p.numel() >= z.stage3_param_persistence_threshold) continue;
    last_gather = emit.Collective(Queue::kNcclDp, CollectiveKind::kAllGather, partition_group,
                                  std::ceil(p.numel() / shards) * shards * element_bytes, element_bytes,
                                  Purpose::kForwardAllGather, {emit.tail(Queue::kCompute)});
  }
  if (last_gather >= 0) emit.Host(0.0, last_gather);
  FinishSchedule(&s);
  s.peak_gathered_elements = fetch.peak_live_elements();
  s.persistent_elements = fetch.persistent_elements();
  return s;
}

}  // namespace

Schedule BuildSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c) {
  switch (TraitsOf(z.strategy).builder) {
    case StrategyTraits::Builder::kZero12:
      return BuildZero12Schedule(m, z, c);
    case StrategyTraits::Builder::kStage3:
      return BuildStage3Schedule(m, z, c);
    case StrategyTraits::Builder::kFsdp:
      return BuildFsdpSchedule(m, z, c);
  }
  return BuildStage3Schedule(m, z, c);
}

}  // namespace zerosim::model
