// DeepSpeed ZeRO stages 1 and 2 (deepspeed/runtime/zero/stage_1_and_2.py, DeepSpeedZeroOptimizer): the
// fp16/bf16 parameters are whole on every GPU, so the forward and backward gather nothing; the optimizer
// states (and with stage 2 the gradients) are partitioned over the P ranks.
//  - Gradients: stage 2 reduces them during every backward, in reduce_bucket_size buckets as their hooks
//    fire (reduce_independent_p_g_buckets_and_remove_grads -> average_tensor); stage 1 reduces only at the
//    accumulation boundary, after the last backward (engine.allreduce_gradients -> reduce_gradients), the
//    same buckets in the same order. Without overlap_comm (DeepSpeed's default for stages 1 and 2:
//    zero/config.py overlap_comm_valid) the reduction runs on the default stream. GradientReducer emits both.
//  - Step: Adam on the rank's 1/P partition, then the updated fp16 partitions are all-gathered on the
//    default stream (step -> all_gather_dp_groups, runtime/utils.py) in max(1, partition * P /
//    allgather_bucket_size) pieces.
#include <algorithm>
#include <cmath>
#include <vector>

#include "model/schedule/gradient_reducer.h"
#include "model/schedule/op_emitter.h"
#include "model/schedule/schedule_builder.h"
#include "model/schedule/schedule_parts.h"

namespace zerosim::model {

Schedule BuildZero12Schedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c) {
  Schedule s;
  const ScheduleFrame f = BeginSchedule(m, z, c, &s);
  // Stage 2 reduces in every backward as its gradients are partitioned (strategy.h TraitsOf).
  const bool stage2 = TraitsOf(z.strategy).gradients != ShardOver::kNone;
  s.reduce_buffer_elements = z.contiguous_gradients ? z.reduce_bucket_size : 0;
  OpEmitter emit(&s, c, 1);
  GradientReducer reduce(s.graph, z, c.nodes, c.gpus_per_node, &emit);

  std::vector<int> ready;
  std::vector<int> all;  // stage 1: every parameter, in the order their gradients became final
  for (int micro = 0; micro < z.gradient_accumulation_steps; ++micro) {
    const bool boundary = micro == z.gradient_accumulation_steps - 1;
    int last_compute = -1;
    for (int step = 0; step < static_cast<int>(f.trace.size()); ++step) {
      const TraceStep& ts = f.trace[static_cast<size_t>(step)];
      emit.SetContext(ts.phase, micro, ts.module);
      last_compute = EmitModuleCompute(s, f, ts, &emit, {});
      if (ts.phase != Phase::kBackward) continue;
      ReadyGradients(s, f, step, &ready);
      if (stage2) {
        reduce.OnGradientsReady(ready, last_compute);
      } else if (boundary) {
        all.insert(all.end(), ready.begin(), ready.end());
      }
    }
    emit.SetContext(Phase::kBackward, micro, -1);
    if (stage2) {
      reduce.Epilogue();
    } else if (boundary) {
      reduce.OnGradientsReady(all, last_compute);
      reduce.Epilogue();
    }
  }

  const int step_op = EmitOptimizerStep(z, &s, &emit);
  // all_gather_dp_groups: pieces of the updated partitions, gathered on the default stream.
  const double partition = std::ceil(s.partitioned_elements / s.data_parallel_size());
  const double pieces =
      std::max(1.0, std::floor(partition * s.data_parallel_size() / std::max(1.0, z.allgather_bucket_size)));
  const double piece = std::ceil(partition / pieces);
  int last = step_op;
  for (int i = 0; i < static_cast<int>(pieces); ++i) {
    last = emit.Collective(Queue::kNcclDp, CollectiveKind::kAllGather, GroupKind::kGlobal,
                           piece * s.data_parallel_size() * BytesPerElement(m.dtype),
                           BytesPerElement(m.dtype), Purpose::kForwardAllGather, {last});
  }
  emit.Wait(Queue::kCompute, {last});
  FinishSchedule(&s);
  return s;
}

}  // namespace zerosim::model
