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
// Megatron-Core's distributed optimizer, which ZeroSim runs as stage 1, with its DDP overlap options
// (zero_config.h overlap_grad_reduce, overlap_param_gather; megatron/core/distributed/):
//  - overlap_grad_reduce: the gradients are reduce-scattered in buckets of ddp_bucket_size elements
//    (param_and_grad_buffer.py: buckets over the parameters in reverse order, i.e. as the backward makes
//    them final) during the last micro-batch's backward, on a side stream, the compute stream going on;
//    the contiguous gradient buffer's buckets are views (no copy, no per-rank slicing on the host); the
//    optimizer step waits for them all (finish_grad_sync);
//  - overlap_param_gather: the updated parameters are gathered bucket by bucket, each module's first
//    forward waiting for its bucket's all-gather (the forward pre-hook's finish_param_sync), the gathers
//    dispatched ahead in forward order. In the steady state an iteration's gathers follow the step before
//    it, so ZeroSim starts them at the iteration's start, ahead of the first forward.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

#include "model/builders/gradient_reducer.h"
#include "model/builders/op_emitter.h"
#include "model/builders/schedule_builder.h"
#include "model/builders/schedule_parts.h"

namespace zerosim::model {

namespace {

// Megatron-Core's DDP buckets (param_and_grad_buffer.py _ParamAndGradBuffer.__init__): over the parameters in
// the order their gradients become final, a bucket closes once it holds `bucket_elements` or more. Returns
// each parameter's bucket (-1: no gradient).
std::vector<int> MegatronBuckets(const Schedule& s, const ScheduleFrame& f, double bucket_elements,
                                 int* num_buckets) {
  std::vector<int> bucket_of(s.graph.params.size(), -1);
  std::vector<int> ready;
  int bucket = 0;
  double filled = 0;
  for (int step = 0; step < static_cast<int>(f.trace.size()); ++step) {
    ReadyGradients(s, f, step, &ready);
    for (int p : ready) {
      bucket_of[static_cast<size_t>(p)] = bucket;
      filled += s.graph.params[static_cast<size_t>(p)].numel();
      if (filled >= bucket_elements) {
        ++bucket;
        filled = 0;
      }
    }
  }
  *num_buckets = filled > 0 ? bucket + 1 : bucket;
  return bucket_of;
}

}  // namespace

Schedule BuildZero12Schedule(const ModelSpec& m, const ZeroConfig& z_in, const RankShape& c) {
  Schedule s;
  const ScheduleFrame f = BeginSchedule(m, z_in, c, &s);
  const bool megatron_overlap = z_in.overlap_grad_reduce;
  const double dp = s.data_parallel_size();
  // Megatron-Core's default bucket (distributed_data_parallel.py): max(4e7, 1e6 x data-parallel size) elements.
  const double ddp_bucket = z_in.ddp_bucket_size > 0 ? z_in.ddp_bucket_size : std::max(4e7, 1e6 * dp);
  // With overlap_grad_reduce the reducer runs Megatron's buckets: on a side stream, no copy into a bucket
  // buffer (the gradients live in it), no per-rank slicing on the host.
  ZeroConfig z = z_in;
  if (megatron_overlap) {
    z.reduce_bucket_size = ddp_bucket;
    z.overlap_comm = true;
    z.contiguous_gradients = false;
    z.runtime.host_tensor_view_s = 0;
    // Megatron keeps every bucket's async handle (no cap on outstanding reductions, unlike DeepSpeed's).
    z.max_param_reduce_events = std::numeric_limits<int>::max();
  }
  // Stage 2 reduces in every backward as its gradients are partitioned (strategy.h TraitsOf).
  const bool stage2 = TraitsOf(z.strategy).gradients != ShardOver::kNone;
  s.reduce_buffer_elements = z.contiguous_gradients ? z.reduce_bucket_size : 0;
  OpEmitter emit(&s, 1);
  GradientReducer reduce(s.graph, z, c.nodes, c.gpus_per_node, &emit);
  if (megatron_overlap) reduce.CloseBucketsAtSize();  // the buckets MegatronBuckets forms
  // Expert parallelism: the routed experts' states live in the expert-data-parallel group of d / e ranks
  // (GroupKind::kExpertData, placement.h).
  const int edp = s.layout().expert_data_parallel(s.world_size);
  if (s.expert > 1) reduce.ReduceExpertsOver(edp);
  // The all-gathers of updated parameters: `dense` elements over the data-parallel group, `experts` over the
  // expert-data-parallel group (Megatron-Core's expert buffers, distributed_data_parallel.py), each a
  // collective of its group's partitions; returns the last (both on the data-parallel stream, in order).
  auto gather_updated = [&](double dense, double experts, std::initializer_list<int> deps) {
    const double bytes = BytesPerElement(m.dtype);
    int last = -1;
    if (dense > 0) {
      last = emit.Collective(Queue::kNcclDp, CollectiveKind::kAllGather, GroupKind::kGlobal, dense * bytes,
                             bytes, Purpose::kForwardAllGather, deps);
    }
    if (experts > 0 && edp > 1) {
      const double buffer = experts * bytes;
      last = last >= 0 ? emit.Collective(Queue::kNcclDp, CollectiveKind::kAllGather, GroupKind::kExpertData,
                                         buffer, bytes, Purpose::kForwardAllGather, {last})
                       : emit.Collective(Queue::kNcclDp, CollectiveKind::kAllGather, GroupKind::kExpertData,
                                         buffer, bytes, Purpose::kForwardAllGather, deps);
    }
    return last;
  };

  // overlap_param_gather: the buckets' all-gathers on the data-parallel stream in forward order (the last
  // bucket holds the first modules' parameters): the first at the iteration's start, each next one when the
  // forward first needs the bucket before it (finish_param_sync dispatches the next bucket, then waits).
  int num_buckets = 0;
  std::vector<int> bucket_of;
  std::vector<double> bucket_elements;
  std::vector<double> bucket_expert_elements;  // the routed experts' share of each (expert parallelism)
  std::vector<int> gather_op;  // per bucket: its all-gather (-1: not issued yet)
  int issued = 0;              // buckets gathered so far, in forward order (num_buckets - 1 first)
  auto issue_gathers_through = [&](int forward_index) {
    for (; issued <= std::min(forward_index, num_buckets - 1); ++issued) {
      const int b = num_buckets - 1 - issued;
      // The bucket padded to a multiple of the data-parallel size (param_and_grad_buffer.py pads it); the
      // experts' part of it (expert parallelism) over their expert-data-parallel group.
      const double experts =
          bucket_expert_elements.empty() ? 0.0 : bucket_expert_elements[static_cast<size_t>(b)];
      const double padded = std::ceil((bucket_elements[static_cast<size_t>(b)] - experts) / dp) * dp;
      gather_op[static_cast<size_t>(b)] = gather_updated(padded, std::ceil(experts / edp) * edp, {});
    }
  };
  if (z.overlap_param_gather) {
    bucket_of = MegatronBuckets(s, f, ddp_bucket, &num_buckets);
    bucket_elements.assign(static_cast<size_t>(num_buckets), 0.0);
    for (size_t p = 0; p < bucket_of.size(); ++p) {
      if (bucket_of[p] >= 0) bucket_elements[static_cast<size_t>(bucket_of[p])] += s.graph.params[p].numel();
    }
    if (s.expert > 1) {
      bucket_expert_elements.assign(static_cast<size_t>(num_buckets), 0.0);
      for (size_t p = 0; p < bucket_of.size(); ++p) {
        if (bucket_of[p] >= 0 && s.graph.params[p].expert)
          bucket_expert_elements[static_cast<size_t>(bucket_of[p])] += s.graph.params[p].numel();
      }
    }
    gather_op.assign(static_cast<size_t>(num_buckets), -1);
    emit.SetContext(Phase::kForward, 0, -1);
    issue_gathers_through(0);
  }
  std::vector<char> gathered(static_cast<size_t>(num_buckets), 0);

  std::vector<int> ready;
  std::vector<int> all;  // stage 1: every parameter, in the order their gradients became final
  for (int micro = 0; micro < z.gradient_accumulation_steps; ++micro) {
    const bool boundary = micro == z.gradient_accumulation_steps - 1;
    int last_compute = -1;
    for (int step = 0; step < static_cast<int>(f.trace.size()); ++step) {
      const TraceStep& ts = f.trace[static_cast<size_t>(step)];
      emit.SetContext(ts.phase, micro, ts.module);
      if (micro == 0 && ts.phase == Phase::kForward && !gather_op.empty()) {
        // The forward pre-hook: this module's parameters' buckets must be gathered.
        for (int p : s.graph.modules[static_cast<size_t>(ts.module)].params) {
          const int b = bucket_of[static_cast<size_t>(p)];
          if (b < 0 || gathered[static_cast<size_t>(b)]) continue;
          gathered[static_cast<size_t>(b)] = 1;
          issue_gathers_through(num_buckets - b);  // this bucket's and the next one's
          emit.Wait(Queue::kCompute, {gather_op[static_cast<size_t>(b)]});
        }
      }
      last_compute = EmitModuleCompute(s, f, ts, &emit, {});
      if (ts.phase != Phase::kBackward) continue;
      ReadyGradients(s, f, step, &ready);
      if (stage2 || (megatron_overlap && boundary)) {
        reduce.OnGradientsReady(ready, last_compute);
      } else if (boundary) {
        all.insert(all.end(), ready.begin(), ready.end());
      }
    }
    emit.SetContext(Phase::kBackward, micro, -1);
    if (stage2 || (megatron_overlap && boundary)) {
      reduce.Epilogue();
    } else if (boundary) {
      reduce.OnGradientsReady(all, last_compute);
      reduce.Epilogue();
    }
  }

  const int step_op = EmitOptimizerStep(z, &s, &emit);
  if (z.overlap_param_gather) {  // the gathers ran ahead of the forward
    FinishSchedule(&s);
    return s;
  }
  // all_gather_dp_groups: pieces of the updated partitions, gathered on the default stream.
  if (s.expert > 1) {
    // Megatron-Core's distributed optimizer gathers the dense buffers over the data-parallel group and the
    // expert buffers over the expert-data-parallel group, each once (its buckets' gathers without
    // overlap_param_gather).
    const double experts = std::ceil(s.expert_elements / edp) * edp;
    const double dense = std::ceil((s.partitioned_elements - s.expert_elements) / dp) * dp;
    emit.Wait(Queue::kCompute, {gather_updated(dense, experts, {step_op})});
    FinishSchedule(&s);
    return s;
  }
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
