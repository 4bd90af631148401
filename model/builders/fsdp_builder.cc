// PyTorch FSDP (torch/distributed/fsdp/, FSDP1: FullyShardedDataParallel) and FSDP2 (fully_shard,
// torch/distributed/_composable/fsdp/) as schedules.
//
// Wrapping unit: one FlatParameter (FSDP1, _flat_param.py FlatParamHandle) or one FSDPParamGroup (FSDP2)
// per transformer block, as llm-foundry's FSDP config and Hugging Face's transformer auto-wrap policy wrap
// (transformer_auto_wrap_policy on the block class); the parameters outside the blocks (embeddings, final
// norm, untied head) belong to the root unit. FSDP1 pads each FlatParameter to a multiple of the shard
// group (_flat_param.py: the padded unsharded numel divides the world size); FSDP2 shards every parameter
// on dim 0, each padded to a multiple of the group (_fsdp_param.py, torch.chunk semantics).
//
// Per unit and micro-step (_runtime_utils.py):
//  - pre-forward (_pre_forward_unshard): unshard = all-gather of the unit on the unshard stream; the compute
//    stream waits for it. With limit_all_gathers the host first waits for the free event of the unshard
//    two back (_limiter_utils.py _FreeEventQueue: at most 2 in flight; events recorded in _reshard).
//    forward_prefetch (off by default) also unshards the next unit.
//  - post-forward (_post_forward_reshard): FULL_SHARD and HYBRID_SHARD free the unsharded parameters
//    (reshard_after_forward); SHARD_GRAD_OP keeps them until the backward; the root is never resharded
//    after forward.
//  - pre-backward (_pre_backward_hook): unshard again where resharded; BACKWARD_PRE (the default) then
//    prefetches the next unit in backward order (_prefetch_handle); BACKWARD_POST prefetches it from the
//    post-backward hook instead.
//  - post-backward (_post_backward_hook): reshard; the post-backward stream waits for the compute stream
//    and reduce-scatters the unit's gradient over the shard group; HYBRID_SHARD then all-reduces the shard
//    over the replicate group (_inter_node_pg); NO_SHARD all-reduces the whole gradient.
//  - end of backward (_post_backward_final_callback): the compute stream waits for the post-backward
//    stream; every micro-step reduces (no no_sync).
//
// FSDP2 in a pipeline stage (RankShape::pipeline_stage; torchtitan's 3D, the layout's stages built by
// model/report/pipeline_evaluate.h): torchtitan's apply_fsdp does not reshard after forward when the pipeline
// is on
// (`reshard_after_forward = not pp_enabled`, models/llama3/infra/parallelize.py), and torch.distributed.
// pipelining runs every backward with set_reshard_after_backward(False) and
// set_requires_gradient_sync(False), then, after the last micro-batch's backward, calls every param group's
// post_backward (reshard and reduce- scatter) and the final callback (stage.py backward_maybe_with_nosync,
// run_post_backward). So each unit is gathered once per iteration (the first micro-batch's forward), its
// unsharded gradients accumulate over the micro-batches (in the reduce dtype:
// FSDPParam.unsharded_accumulated_grad), and the reduce-scatters run after the last backward, unit by unit in
// registration order (root first). The all-gathers and reduce-scatters of one process group share its NCCL
// stream ("for NCCL backend, any collectives, even if issued in different streams, contend for the same
// per-device NCCL stream": torch/distributed/fsdp/api.py BackwardPrefetch; ProcessGroupNCCL keeps one stream
// per device and communicator), so they queue on kNcclDp; the replicate group's all-reduce has its own
// communicator (kNcclCrossNode).
//
// FSDP2 differs where its code does (_fsdp_param_group.py, _fsdp_collectives.py): the all-gather input is
// copied in (foreach_all_gather copy-in, on the all-gather copy-in stream) and the output copied out into
// the parameters on the compute stream (foreach_all_gather_copy_out in wait_for_unshard); instead of a host
// limiter, the next all-gather's streams wait for the previous copy-out (AllGatherState event), which is
// its implicit forward prefetch; backward prefetches one group explicitly; the reduce-scatter input is
// copied in on the reduce-scatter stream (foreach_reduce).
//
// Number formats (model/spec/precision.h):
//  - communication_data_type (FSDP's MixedPrecision(reduce_dtype=...) / FSDP2's
//    MixedPrecisionPolicy(reduce_dtype=torch.float32), torchtitan's default mixed_precision_reduce =
//    "float32"): the gradient is reduced in that format. FSDP1 casts the unsharded gradient on the
//    post-backward stream before the reduce-scatter (_runtime_utils.py _post_backward_hook:
//    `flat_param.grad.data = flat_param.grad.to(handle._reduce_dtype)`), a pass reading 2 and writing 4
//    bytes per element; FSDP2 allocates its reduce-scatter input in the reduce dtype and casts while copying
//    in (_fsdp_collectives.py foreach_reduce: reduce_scatter_input = torch.empty(..., dtype=reduce_dtype),
//    foreach_reduce_scatter_copy_in), the same pass in place of its 16-bit copy-in. The reduce-scatter, the
//    HSDP replicas' all-reduce and NO_SHARD's all-reduce then carry 4 bytes per element.
//  - fp8_weight_all_gather (torchao's enable_fsdp_float8_all_gather, FSDP2 only: feasibility.cc): the
//    block linear weights' shards are cast to FP8 by WeightWithDynamicFloat8CastTensor.fsdp_pre_all_gather
//    (torchao/float8/fsdp_utils.py), which runs inside foreach_all_gather on the all-gather copy-in stream
//    (read 2, write 1 bytes per element: the scale comes from precompute_float8_dynamic_scale_for_fsdp after
//    the optimizer step, one amax pass over the shards, emitted there); FSDP2 gathers mixed dtypes as one
//    uint8 buffer, so the wire carries 1 byte per FP8 element and 2 per other one, and the copy-out and
//    the unsharded parameters (fsdp_post_all_gather wraps the gathered codes as a Float8 tensor) hold the
//    same bytes.
#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

#include "model/builders/op_emitter.h"
#include "model/builders/schedule_builder.h"
#include "model/builders/schedule_parts.h"
#include "model/spec/precision.h"

namespace zerosim::model {
namespace {

class FsdpEmulator {
 public:
  FsdpEmulator(const Schedule* s, const ZeroConfig& z, OpEmitter* emit, double element_bytes,
               bool pipeline_stage)
      : z_(z), emit_(emit), bytes_(element_bytes), reduce_bytes_(GradientReduceBytes(z.precision)) {
    const ModuleGraph& g = s->graph;
    const int units = g.num_blocks + 1;  // unit 0: the root; unit b + 1: block b
    unit_numel_.assign(static_cast<size_t>(units), 0);
    unit_shard_.assign(static_cast<size_t>(units), 0);
    unit_padded_.assign(static_cast<size_t>(units), 0);
    unit_fp8_shard_.assign(static_cast<size_t>(units), 0);
    unsharded_.assign(static_cast<size_t>(units), false);
    ready_.assign(static_cast<size_t>(units), -1);
    const StrategyTraits& traits = TraitsOf(z.strategy);
    hybrid_ = traits.parameters == ShardOver::kShardGroup;
    no_shard_ = traits.parameters == ShardOver::kNone;
    fsdp2_ = z.strategy == Strategy::kFsdp2;
    pipelined_ = fsdp2_ && pipeline_stage;
    shard_group_ = hybrid_ ? GroupKind::kShard : GroupKind::kGlobal;
    shards_ = no_shard_ ? 1 : emit->group_size(shard_group_);
    std::vector<int> unit_of_param(g.params.size(), 0);
    const std::vector<bool> fp8 =
        z.precision.fp8_weight_all_gather ? Fp8Params(g) : std::vector<bool>(g.params.size(), false);
    for (const Module& mod : g.modules) {
      for (int p : mod.params) unit_of_param[static_cast<size_t>(p)] = mod.layer >= 0 ? mod.layer + 1 : 0;
    }
    for (size_t p = 0; p < g.params.size(); ++p) {
      const Param& param = g.params[p];
      const auto u = static_cast<size_t>(unit_of_param[p]);
      unit_numel_[u] += param.numel();
      if (fsdp2_) {  // dim-0 chunks of ceil(rows / shards) rows
        const double cols = param.cols > 0 ? static_cast<double>(param.cols) : 1.0;
        const double chunk = std::ceil(static_cast<double>(param.rows) / shards_) * cols;
        unit_shard_[u] += chunk;
        if (fp8[p]) unit_fp8_shard_[u] += chunk;
      }
    }
    for (size_t u = 0; u < unit_numel_.size(); ++u) {
      if (!fsdp2_) unit_shard_[u] = std::ceil(unit_numel_[u] / shards_);
      unit_padded_[u] = unit_shard_[u] * shards_;
      largest_padded_ = std::max(largest_padded_, unit_padded_[u]);
    }
  }

  int unit_of(const Module& mod) const { return mod.layer >= 0 ? mod.layer + 1 : 0; }
  // Bytes of unit `u` gathered, per rank's shard and unsharded (FP8 weights at 1 byte an element).
  double shard_bytes(size_t u) const {
    return kFp8Bytes * unit_fp8_shard_[u] + bytes_ * (unit_shard_[u] - unit_fp8_shard_[u]);
  }
  double gathered_bytes(size_t u) const { return shard_bytes(u) * shards_; }
  // FP8 elements of every unit's shard (the amax pass after the optimizer step).
  double fp8_shard_elements() const {
    double e = 0;
    for (double x : unit_fp8_shard_) e += x;
    return e;
  }
  int units() const { return static_cast<int>(unit_numel_.size()); }
  double peak_live_bytes() const { return peak_live_; }
  double largest_padded() const { return largest_padded_; }
  bool reshard_after_forward() const { return z_.strategy != Strategy::kFsdpShardGradOp && !pipelined_; }
  // FSDP2 in a pipeline stage: no reshard or gradient sync in the backward but after the last one's.
  bool pipelined() const { return pipelined_; }
  // Every unit's unsharded numel together (the gradients a pipelined stage accumulates).
  double total_numel() const {
    double e = 0;
    for (double x : unit_numel_) e += x;
    return e;
  }

  void Hook() { emit_->Host(z_.runtime.host_overhead_per_module_s); }

  // _unshard: all-gather unit `u` if it is sharded.
  void Unshard(int u, Purpose purpose) {
    const auto i = static_cast<size_t>(u);
    if (u < 0 || u >= units() || no_shard_ || unsharded_[i] || unit_numel_[i] <= 0) return;
    const double buffer = gathered_bytes(i);
    if (fsdp2_) {
      // The next all-gather waits for the previous one's copy-out; torchao's fsdp_pre_all_gather casts the
      // FP8 weights' shards first (read 2, write 1), then the input is copied in.
      if (unit_fp8_shard_[i] > 0) {
        emit_->Memory(Queue::kAllGatherStream, (kFp8CastBytes - kFp8AmaxBytes) * unit_fp8_shard_[i],
                      {last_copy_out_});
      }
      emit_->Memory(Queue::kAllGatherStream, 2.0 * shard_bytes(i), {last_copy_out_});
    } else if (z_.fsdp.limit_all_gathers && free_events_.size() >= 2) {
      emit_->Host(0.0, free_events_.front());  // event.synchronize() on the oldest free
      free_events_.pop_front();
    }
    const double wire = unit_fp8_shard_[i] > 0 ? kFp8Bytes : bytes_;
    const int ag = emit_->Collective(Queue::kNcclDp, CollectiveKind::kAllGather, shard_group_, buffer, wire,
                                     purpose, {emit_->tail(Queue::kAllGatherStream)});
    ready_[i] = emit_->Wait(Queue::kAllGatherStream, {ag});
    unsharded_[i] = true;
    live_ += gathered_bytes(i);
    peak_live_ = std::max(peak_live_, live_);
  }

  // What unit `u`'s first compute must wait for (FSDP2: the copy-out, emitted here).
  int Ready(int u) {
    const auto i = static_cast<size_t>(u);
    if (fsdp2_ && ready_[i] >= 0) {
      last_copy_out_ = emit_->Memory(Queue::kCompute, 2.0 * gathered_bytes(i), {ready_[i]});
      ready_[i] = -1;
      return last_copy_out_;
    }
    const int r = ready_[i];
    ready_[i] = -1;
    return r;
  }

  // _reshard: free unit `u`'s unsharded parameters (recording the limiter's free event).
  void Reshard(int u) {
    const auto i = static_cast<size_t>(u);
    if (!unsharded_[i]) return;
    unsharded_[i] = false;
    live_ -= gathered_bytes(i);
    if (!fsdp2_ && z_.fsdp.limit_all_gathers) free_events_.push_back(emit_->tail(Queue::kCompute));
  }

  // The post-backward reduction of unit `u`'s gradient, produced by compute op `compute`.
  void Reduce(int u, int compute) {
    const auto i = static_cast<size_t>(u);
    if (unit_numel_[i] <= 0) return;
    emit_->Wait(Queue::kReduceStream, {compute});
    const Purpose grad = Purpose::kGradientReduce;
    const double wire = reduce_bytes_;
    const bool cast = wire != bytes_;
    if (no_shard_) {
      if (cast)
        emit_->Memory(Queue::kReduceStream, (bytes_ + wire) * unit_numel_[i], {});  // grad.to(reduce_dtype)
      const int ar =
          emit_->Collective(Queue::kNcclDp, CollectiveKind::kAllReduce, GroupKind::kGlobal,
                            unit_numel_[i] * wire, wire, grad, {emit_->tail(Queue::kReduceStream)});
      emit_->Wait(Queue::kReduceStream, {ar});
      return;
    }
    if (fsdp2_) {
      emit_->Memory(Queue::kReduceStream, (bytes_ + wire) * unit_padded_[i], {});  // copy-in (and cast)
    } else if (cast) {
      emit_->Memory(Queue::kReduceStream, (bytes_ + wire) * unit_padded_[i], {});  // grad.to(reduce_dtype)
    }
    const int rs = emit_->Collective(Queue::kNcclDp, CollectiveKind::kReduceScatter, shard_group_,
                                     unit_padded_[i] * wire, wire, grad, {emit_->tail(Queue::kReduceStream)});
    emit_->Wait(Queue::kReduceStream, {rs});
    if (hybrid_ && emit_->group_size(GroupKind::kReplica) > 1) {
      const int ar =
          emit_->Collective(Queue::kNcclCrossNode, CollectiveKind::kAllReduce, GroupKind::kReplica,
                            unit_shard_[i] * wire, wire, grad, {emit_->tail(Queue::kReduceStream)});
      emit_->Wait(Queue::kReduceStream, {ar});
    }
  }

 private:
  const ZeroConfig& z_;
  OpEmitter* emit_;
  double bytes_;
  double reduce_bytes_;  // the gradient reduction's element bytes (communication_data_type)
  bool hybrid_ = false, no_shard_ = false, fsdp2_ = false, pipelined_ = false;
  GroupKind shard_group_ = GroupKind::kGlobal;
  int shards_ = 1;
  std::vector<double> unit_numel_, unit_shard_, unit_padded_;
  std::vector<double> unit_fp8_shard_;  // FSDP2 with the FP8 all-gather: the FP8 weights' shard elements
  std::vector<bool> unsharded_;
  std::vector<int> ready_;
  std::deque<int> free_events_;
  int last_copy_out_ = -1;
  double live_ = 0, peak_live_ = 0, largest_padded_ = 0;  // live_, peak_live_: unsharded bytes
};

}  // namespace

Schedule BuildFsdpSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c) {
  Schedule s;
  const ScheduleFrame f = BeginSchedule(m, z, c, &s);
  OpEmitter emit(&s, 1);
  FsdpEmulator fsdp(&s, z, &emit, BytesPerElement(m.dtype), c.pipeline_stage);
  s.reduce_buffer_elements = fsdp.largest_padded();
  const ModuleGraph& g = s.graph;
  const int n = static_cast<int>(f.trace.size());

  for (int micro = 0; micro < z.gradient_accumulation_steps; ++micro) {
    int current = -1;  // the unit whose hooks ran last
    int compute = -1;
    for (int step = 0; step < n; ++step) {
      const TraceStep& ts = f.trace[static_cast<size_t>(step)];
      const Module& mod = g.modules[static_cast<size_t>(ts.module)];
      const int u = fsdp.unit_of(mod);
      const bool forward = ts.phase == Phase::kForward;
      emit.SetContext(ts.phase, micro, ts.module);
      int wait = -1;
      if (step == 0) {  // the root's pre-forward: the root unit first
        fsdp.Hook();
        fsdp.Unshard(0, Purpose::kForwardAllGather);
        wait = fsdp.Ready(0);
      }
      if (u > 0 && u != current) {
        fsdp.Hook();
        const Purpose purpose = forward ? Purpose::kForwardAllGather : Purpose::kBackwardAllGather;
        fsdp.Unshard(u, purpose);
        // The compute stream waits for this unit before the prefetch is issued (FSDP1 _pre_backward_hook:
        // wait_stream, then _prefetch_handle; FSDP2 pre_backward: wait_for_unshard, then _backward_prefetch).
        wait = fsdp.Ready(u);
        if (forward && z.fsdp.forward_prefetch) fsdp.Unshard(u + 1, purpose);
        if (!forward && z.fsdp.backward_prefetch == FsdpBackwardPrefetch::kBackwardPre) {
          fsdp.Unshard(u - 1, purpose);
        }
      }
      if (u > 0) current = u;
      compute = EmitModuleCompute(s, f, ts, &emit, {wait});
      const int b = mod.layer;
      if (forward && b >= 0 && ts.module == g.block_end[static_cast<size_t>(b)] - 1) {
        fsdp.Hook();  // post-forward
        if (fsdp.reshard_after_forward()) fsdp.Reshard(u);
        current = -1;
      }
      if (ts.phase == Phase::kBackward && b >= 0 && ts.module == g.block_begin[static_cast<size_t>(b)] &&
          !fsdp.pipelined()) {
        fsdp.Hook();  // post-backward
        fsdp.Reshard(u);
        if (z.fsdp.backward_prefetch == FsdpBackwardPrefetch::kBackwardPost) {
          fsdp.Unshard(u - 1, Purpose::kBackwardAllGather);
        }
        fsdp.Reduce(u, compute);
        current = -1;
      }
    }
    emit.SetContext(Phase::kBackward, micro, -1);
    if (fsdp.pipelined()) {
      // torch.distributed.pipelining: after the last micro-batch's backward, every param group's
      // post_backward in registration order (the root, then the blocks), then the final callback.
      if (micro + 1 < z.gradient_accumulation_steps) continue;
      for (int u = 0; u < fsdp.units(); ++u) {
        fsdp.Hook();
        fsdp.Reshard(u);
        fsdp.Reduce(u, compute);
      }
      emit.Wait(Queue::kCompute, {emit.tail(Queue::kReduceStream)});
      continue;
    }
    // The root's post-backward after the last backward module, then the final callback.
    fsdp.Hook();
    fsdp.Reshard(0);
    fsdp.Reduce(0, compute);
    emit.Wait(Queue::kCompute, {emit.tail(Queue::kReduceStream)});
  }
  EmitOptimizerStep(z, &s, &emit);
  if (fsdp.fp8_shard_elements() > 0) {
    // precompute_float8_dynamic_scale_for_fsdp after the step: the amax of every FP8 weight's shard (one
    // read). Its all-reduce of one fp32 per weight tensor is not emitted (a few KB; latency only).
    emit.Memory(Queue::kCompute, kFp8AmaxBytes * fsdp.fp8_shard_elements(), {});
  }
  FinishSchedule(&s);
  s.peak_gathered_bytes = fsdp.peak_live_bytes();
  if (fsdp.pipelined()) {
    // The stage's unsharded gradients, kept to the last backward: in the reduce dtype once a second
    // micro-batch accumulates into them (FSDPParam.unsharded_accumulated_grad), the model's dtype otherwise.
    const double grad_bytes =
        z.gradient_accumulation_steps > 1 ? GradientReduceBytes(z.precision) : BytesPerElement(m.dtype);
    s.accumulated_gradient_bytes = grad_bytes * fsdp.total_numel();
  }
  s.peak_gathered_elements = fsdp.peak_live_bytes() / BytesPerElement(m.dtype);
  return s;
}

}  // namespace zerosim::model
