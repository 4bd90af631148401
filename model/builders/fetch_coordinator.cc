#include "model/builders/fetch_coordinator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "model/cost/kernel_cost.h"

namespace zerosim::model {

std::vector<TraceStep> BuildTrace(const ModuleGraph& g, bool activation_checkpointing) {
  return BuildTrace(
      g, std::vector<bool>(static_cast<size_t>(std::max(0, g.num_blocks)), activation_checkpointing));
}

std::vector<TraceStep> BuildTrace(const ModuleGraph& g, const std::vector<bool>& recompute_block) {
  std::vector<TraceStep> trace;
  const int n = static_cast<int>(g.modules.size());
  for (int i = 0; i < n; ++i) trace.push_back({i, Phase::kForward});
  const int first_block = g.num_blocks > 0 ? g.block_begin.front() : n;
  const int after_blocks = g.num_blocks > 0 ? g.block_end.back() : n;
  for (int i = n - 1; i >= after_blocks; --i) trace.push_back({i, Phase::kBackward});
  for (int b = g.num_blocks - 1; b >= 0; --b) {
    const int begin = g.block_begin[static_cast<size_t>(b)];
    const int end = g.block_end[static_cast<size_t>(b)];
    if (static_cast<size_t>(b) < recompute_block.size() && recompute_block[static_cast<size_t>(b)]) {
      for (int i = begin; i < end; ++i) trace.push_back({i, Phase::kRecompute});
    }
    for (int i = end - 1; i >= begin; --i) trace.push_back({i, Phase::kBackward});
  }
  for (int i = first_block - 1; i >= 0; --i) trace.push_back({i, Phase::kBackward});
  return trace;
}

double QuantizationGroupSize(double numel, double target) {
  const auto n = static_cast<int64_t>(std::llround(numel));
  if (n <= 0) return 0;
  const auto initial = static_cast<int64_t>(std::ceil(static_cast<double>(n) / target));
  // DeepSpeed searches groups = initial, initial + 1, ... for the first count with n % (8 * groups) == 0,
  // i.e. the smallest divisor of n / 8 that is at least `initial`. Find it among the divisors directly.
  if (n % 8 != 0) {
    // DeepSpeed asserts here (shards must divide by 8); keep the target-sized groups.
    return static_cast<double>(n) / static_cast<double>(initial);
  }
  const int64_t m = n / 8;
  int64_t groups = m;  // m itself always divides m
  for (int64_t d = 1; d * d <= m; ++d) {
    if (m % d != 0) continue;
    if (d >= initial) groups = std::min(groups, d);
    if (m / d >= initial) groups = std::min(groups, m / d);
  }
  if (groups >= n) return static_cast<double>(n) / static_cast<double>(initial);
  while (n % (16 * groups) == 0 && static_cast<double>(n) / static_cast<double>(groups) > target) groups *= 2;
  return static_cast<double>(n) / static_cast<double>(groups);
}

FetchCoordinator::FetchCoordinator(const ModuleGraph& g, const ZeroConfig& z, OpEmitter* emit)
    : g_(g), z_(z), emit_(emit) {
  const size_t np = g.params.size();
  status_.assign(np, Status::kNotAvailable);
  handle_of_.assign(np, -1);
  most_recent_step_.assign(np, std::numeric_limits<long>::min() / 2);
  for (size_t p = 0; p < np; ++p) {
    if (g.params[p].numel() < z.stage3_param_persistence_threshold) status_[p] = Status::kPersistent;
  }
  if (z.precision.fp8_weight_all_gather) fp8_ = Fp8Params(g);
}

double FetchCoordinator::persistent_elements() const {
  double total = 0;
  for (size_t p = 0; p < status_.size(); ++p) {
    if (status_[p] == Status::kPersistent) total += g_.params[p].numel();
  }
  return total;
}

void FetchCoordinator::BeginPass(const std::vector<TraceStep>* trace) {
  trace_ = trace;
  queue_.clear();
  for (int step = 0; step < static_cast<int>(trace->size()); ++step) {
    for (int p : g_.modules[static_cast<size_t>((*trace)[static_cast<size_t>(step)].module)].params) {
      queue_.push_back({p, step});
    }
  }
  std::fill(most_recent_step_.begin(), most_recent_step_.end(), std::numeric_limits<long>::min() / 2);
}

double FetchCoordinator::GroupSize(double shard_elements) {
  const auto key = static_cast<int64_t>(std::llround(shard_elements));
  const auto it = group_size_cache_.find(key);
  if (it != group_size_cache_.end()) return it->second;
  const double g =
      QuantizationGroupSize(shard_elements, static_cast<double>(z_.weight_quantization_group_target));
  group_size_cache_.emplace(key, g);
  return g;
}

bool FetchCoordinator::StoredQuantized(int param) const {
  return z_.zero_quantized_nontrainable_weights && g_.params[static_cast<size_t>(param)].frozen;
}

bool FetchCoordinator::UsesSecondary(int param, Phase use_phase, Phase hook_phase) const {
  if (!z_.hpz_enabled()) return false;
  if (g_.params[static_cast<size_t>(param)].frozen) return true;  // its secondary tensor never expires
  if (z_.hpz_recompute_uses_secondary) return use_phase != Phase::kForward;
  return hook_phase == Phase::kBackward;  // DeepSpeed v0.10: forward=False only in backward hooks
}

void FetchCoordinator::Gather(const std::vector<int>& params, const std::vector<Phase>& use_phase,
                              Phase hook_phase) {
  // DeepSpeed gathers the stored-quantized parameters first (quantize=True), then the others; within each,
  // those that have a secondary tensor first.
  for (bool stored_quantized : {true, false}) {
    for (bool secondary : {true, false}) {
      for (Purpose purpose : {Purpose::kForwardAllGather, Purpose::kBackwardAllGather}) {
        std::vector<int>& part = part_;
        part.clear();
        for (size_t i = 0; i < params.size(); ++i) {
          const Purpose pi =
              use_phase[i] == Phase::kForward ? Purpose::kForwardAllGather : Purpose::kBackwardAllGather;
          if (pi == purpose && UsesSecondary(params[i], use_phase[i], hook_phase) == secondary &&
              StoredQuantized(params[i]) == stored_quantized) {
            part.push_back(params[i]);
          }
        }
        if (!part.empty()) IssueGather(part, secondary, purpose, stored_quantized);
      }
    }
  }
}

// all_gather_coalesced's per-rank Python loops (deepspeed/runtime/zero/partition_parameters.py, read at
// v0.6.2, v0.10.0 and v0.16.4, unchanged in substance between them). With one parameter it gathers straight
// into the parameter's buffer: no loop. With two or more (`else` branch):
//  - before the call, unless quantized: `for i in range(world_size):
//  partitions.append(flat_tensor.narrow(...))`,
//    one view per rank of the flat output (world_size = the gather's group: num_ranks_in_param_group for
//    hpZ's secondary partition in v0.10);
//  - AllGatherCoalescedHandle.wait: with qwZ first one view per rank of the dequantized buffer; then per
//    parameter, for every rank whose slice starts inside the parameter, `partitions[rank].narrow(...)`, and
//    after the torch.cat one `record_stream` per such slice. The rank count of parameter p is
//    min(world_size, ceil(numel / s)) with s its per-rank slice (ceil(numel / P) elements, times P / h for
//    hpZ's secondary partition).
// PyTorch 1.10.2 (the Azure runs) exports torch.distributed._all_gather_base (torch/distributed/__init__.py),
// so DeepSpeed's torch_allgather_fn and _allgather_param(s_coalesced) take their `_all_gather_base` branch:
// their own per-rank loops (the fallback to all_gather over a list of views) do not run, nor does
// ProcessGroupNCCL's per-output copy-back of a list all_gather. Each view, narrow and record_stream is one
// Python-level call into a PyTorch op, counted at host_tensor_view_s (record_stream at the view's cost is an
// assumption: no published timing of it alone).
FetchCoordinator::PerRankOps FetchCoordinator::CoalescedPerRankOps(const std::vector<int>& params, int world,
                                                                   int group_size, bool secondary,
                                                                   bool quantized) const {
  PerRankOps ops;
  if (params.size() < 2 || z_.strategy != Strategy::kZero3) return ops;
  const double h = group_size;
  if (!quantized) ops.issue = h;
  if (quantized) ops.wait += h;
  for (int p : params) {
    const double numel = g_.params[static_cast<size_t>(p)].numel();
    double slice = std::ceil(numel / world);
    if (secondary) slice *= static_cast<double>(world) / group_size;
    const double ranks = std::min(h, std::ceil(numel / slice));
    ops.wait += 2.0 * ranks;  // narrow + record_stream
  }
  return ops;
}

void FetchCoordinator::IssueGather(const std::vector<int>& params, bool secondary, Purpose purpose,
                                   bool stored_quantized) {
  // MiCS partitions over its shard group instead of the world (mics.py MiCS_Init.num_partitions).
  const bool mics = TraitsOf(z_.strategy).parameters == ShardOver::kShardGroup;
  const int world = emit_->group_size(mics ? GroupKind::kShard : GroupKind::kGlobal);
  const GroupKind group = secondary ? GroupKind::kHpz : mics ? GroupKind::kShard : GroupKind::kGlobal;
  const int group_size = emit_->group_size(group);
  // Each rank's shard: ceil(numel / P) elements per parameter (DeepSpeed pads partitions); the hpZ
  // secondary shard is the primary shard times P / h.
  double shard = 0;
  for (int p : params) shard += std::ceil(g_.params[static_cast<size_t>(p)].numel() / world);
  if (secondary) shard *= static_cast<double>(world) / group_size;

  Handle h;
  h.shard_elements = shard * group_size;
  if (group_size > 1) {
    const Queue q = secondary ? Queue::kNcclHpz : Queue::kNcclDp;
    const int inter = emit_->group_size(GroupKind::kShardCrossNode);
    if (mics && z_.mics_hierarchical_params_gather && inter > 1) {
      // _hierarchical_all_gather_params: all-gather across nodes among the shard group's same-local-rank
      // ranks (enqueued synchronously), copy the result into place, then all-gather inside the node.
      const int a =
          emit_->Collective(Queue::kNcclCrossNode, CollectiveKind::kAllGather, GroupKind::kShardCrossNode,
                            shard * inter * 2.0, 2.0, purpose, {emit_->tail(Queue::kAllGatherStream)});
      emit_->Wait(Queue::kAllGatherStream, {a});
      emit_->Memory(Queue::kAllGatherStream, 2.0 * shard * inter * 2.0,
                    {});  // param_chunk.copy_: read + write
      h.ops[0] =
          emit_->Collective(Queue::kNcclLocal, CollectiveKind::kAllGather, GroupKind::kLocal,
                            shard * group_size * 2.0, 2.0, purpose, {emit_->tail(Queue::kAllGatherStream)});
    } else if (z_.zero_quantized_weights || stored_quantized) {
      const int bits = z_.weight_quantization_bits;
      h.quantized = true;
      // MixZ++'s stored-int8 path (v0.10.1) was not read: no per-rank host work counted for it.
      if (!stored_quantized)
        h.wait_host_ops = CoalescedPerRankOps(params, world, group_size, secondary, true).wait;
      h.group_size = GroupSize(shard);
      int quant = emit_->tail(Queue::kAllGatherStream);
      if (!stored_quantized) {
        KernelSpec k{Kernel::kQuantizeInt8, shard, bits, h.group_size, 1, 0};
        k.bytes = KernelBytes(k.kernel, k.elements, k.bits, k.group_size, k.fan_in);
        quant = emit_->Kernel(Queue::kAllGatherStream, k, {});
      }
      const double code_bytes = bits / 8.0;
      h.ops[0] = emit_->Collective(q, CollectiveKind::kAllGather, group, shard * group_size * code_bytes,
                                   code_bytes, purpose, {quant});
      const double scale_bytes = 4.0 * (shard / h.group_size);
      h.ops[1] = emit_->Collective(q, CollectiveKind::kAllGather, group, scale_bytes * group_size, 4.0,
                                   purpose, {quant});
    } else if (!fp8_.empty()) {
      // FP8 weight all-gather (precision.h, torchao's fsdp_pre_all_gather): the Float8Linear weights' shards
      // are cast to FP8 on the gather stream (the amax is precomputed: read 2 bytes, write 1) and gathered at
      // 1 byte an element with the 16-bit rest, as one byte buffer (FSDP2 all-gathers its inputs as uint8).
      double fp8_shard = 0;
      for (int p : params) {
        if (fp8_[static_cast<size_t>(p)])
          fp8_shard += std::ceil(g_.params[static_cast<size_t>(p)].numel() / world);
      }
      if (secondary) fp8_shard *= static_cast<double>(world) / group_size;
      int dep = emit_->tail(Queue::kAllGatherStream);
      if (fp8_shard > 0)
        dep = emit_->Memory(Queue::kAllGatherStream, (kFp8CastBytes - kFp8AmaxBytes) * fp8_shard, {});
      const double bytes = (kFp8Bytes * fp8_shard + 2.0 * (shard - fp8_shard)) * group_size;
      h.ops[0] = emit_->Collective(q, CollectiveKind::kAllGather, group, bytes,
                                   fp8_shard > 0 ? kFp8Bytes : 2.0, purpose, {dep});
    } else {
      const PerRankOps per_rank = CoalescedPerRankOps(params, world, group_size, secondary, false);
      emit_->Host(per_rank.issue * z_.runtime.host_tensor_view_s);
      h.wait_host_ops = per_rank.wait;
      h.ops[0] = emit_->Collective(q, CollectiveKind::kAllGather, group, shard * group_size * 2.0, 2.0,
                                   purpose, {emit_->tail(Queue::kAllGatherStream)});
    }
  }
  const int id = static_cast<int>(handles_.size());
  handles_.push_back(h);
  for (int p : params) {
    status_[static_cast<size_t>(p)] = Status::kInflight;
    handle_of_[static_cast<size_t>(p)] = id;
    live_ += g_.params[static_cast<size_t>(p)].numel();
  }
  peak_live_ = std::max(peak_live_, live_);
}

void FetchCoordinator::WaitHandle(int id) {
  Handle& h = handles_[static_cast<size_t>(id)];
  if (h.complete) return;
  h.complete = true;
  if (h.quantized) {
    // AllGatherHandle.wait(): dequantize the gathered codes on the all-gather stream.
    KernelSpec k{Kernel::kDequantizeInt8, h.shard_elements, z_.weight_quantization_bits, h.group_size, 1, 0};
    k.bytes = KernelBytes(k.kernel, k.elements, k.bits, k.group_size, k.fan_in);
    emit_->Kernel(Queue::kAllGatherStream, k, {h.ops[0], h.ops[1]});
  } else if (h.ops[0] >= 0) {
    emit_->Wait(Queue::kAllGatherStream, {h.ops[0]});
  }
  // The per-parameter, per-rank split after the stream wait (CoalescedPerRankOps).
  emit_->Host(h.wait_host_ops * z_.runtime.host_tensor_view_s);
}

int FetchCoordinator::Fetch(int step) {
  const TraceStep& ts = (*trace_)[static_cast<size_t>(step)];
  const Module& mod = g_.modules[static_cast<size_t>(ts.module)];

  // 1. Gather what the module needs and nobody fetched.
  need_.clear();
  for (int p : mod.params) {
    if (status_[static_cast<size_t>(p)] == Status::kNotAvailable) need_.push_back(p);
  }
  if (!need_.empty()) {
    use_phase_.assign(need_.size(), ts.phase);
    Gather(need_, use_phase_, ts.phase);
  }

  // 2. Wait for the module's in-flight parameters.
  for (int p : mod.params) {
    if (status_[static_cast<size_t>(p)] != Status::kInflight) continue;
    if (static_cast<int>(fetch_events_.size()) > z_.max_ongoing_fetch_events) {
      emit_->Host(0.0, fetch_events_.front());
      fetch_events_.pop_front();
    }
    WaitHandle(handle_of_[static_cast<size_t>(p)]);
    status_[static_cast<size_t>(p)] = Status::kAvailable;
    handle_of_[static_cast<size_t>(p)] = -1;
    fetch_events_.push_back(emit_->tail(Queue::kAllGatherStream));
  }
  const int compute_waits_for = emit_->tail(Queue::kAllGatherStream);

  // 3. Prefetch. First pop this module's own entries off the parameter queue.
  size_t not_yet_fetched = 0;
  for (int p : mod.params) {
    if (most_recent_step_[static_cast<size_t>(p)] < step) ++not_yet_fetched;
  }
  for (size_t popped = 0; !queue_.empty() && popped < not_yet_fetched; ++popped) {
    const Entry e = queue_.front();
    queue_.pop_front();
    most_recent_step_[static_cast<size_t>(e.param)] = e.step;
  }
  if (z_.stage3_prefetch_bucket_size > 0) {
    const double budget = std::min(z_.stage3_max_live_parameters - live_, z_.stage3_prefetch_bucket_size);
    double numel = 0;
    std::vector<int>& prefetch = prefetch_;
    std::vector<Phase>& use_phase = use_phase_;
    prefetch.clear();
    use_phase.clear();
    while (!queue_.empty() && numel < budget) {
      const Entry e = queue_.front();
      queue_.pop_front();
      const auto p = static_cast<size_t>(e.param);
      const bool fetch = status_[p] == Status::kNotAvailable &&
                         std::find(prefetch.begin(), prefetch.end(), e.param) == prefetch.end();
      most_recent_step_[p] = std::max(most_recent_step_[p], static_cast<long>(e.step));
      if (fetch) {
        prefetch.push_back(e.param);
        use_phase.push_back((*trace_)[static_cast<size_t>(e.step)].phase);
        numel += g_.params[p].numel();
      }
    }
    if (!prefetch.empty()) Gather(prefetch, use_phase, ts.phase);
  }
  return compute_waits_for;
}

void FetchCoordinator::Release(int step) {
  const Module& mod = g_.modules[static_cast<size_t>((*trace_)[static_cast<size_t>(step)].module)];
  const long next = step + 1;
  std::vector<int>& candidates = candidates_;
  candidates.clear();
  for (int p : mod.params) {
    const auto i = static_cast<size_t>(p);
    if (status_[i] != Status::kPersistent && most_recent_step_[i] <= next) candidates.push_back(p);
  }
  double traversed = 0;
  for (size_t s = static_cast<size_t>(next); s < trace_->size() && !candidates.empty(); ++s) {
    if (traversed >= z_.stage3_max_reuse_distance) break;
    for (int p : g_.modules[static_cast<size_t>((*trace_)[s].module)].params) {
      candidates.erase(std::remove(candidates.begin(), candidates.end(), p), candidates.end());
      traversed += g_.params[static_cast<size_t>(p)].numel();
    }
  }
  for (int p : candidates) {
    const auto i = static_cast<size_t>(p);
    if (status_[i] != Status::kAvailable) continue;
    status_[i] = Status::kNotAvailable;
    live_ -= g_.params[i].numel();
  }
}

void FetchCoordinator::EndPass() {
  for (size_t p = 0; p < status_.size(); ++p) {
    if (status_[p] != Status::kInflight) continue;
    WaitHandle(handle_of_[p]);
    handle_of_[p] = -1;
    status_[p] = Status::kNotAvailable;
    live_ -= g_.params[p].numel();
  }
}

}  // namespace zerosim::model
