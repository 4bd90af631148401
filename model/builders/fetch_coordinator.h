// FetchCoordinator: emulates DeepSpeed stage 3's PartitionedParameterCoordinator (v0.10,
// deepspeed/runtime/zero/partitioned_param_coordinator.py) on a recorded module trace, emitting the
// gathers it would issue. Its decisions depend only on program order (the trace and element counts), never
// on time, so they can be made statically, once, for both evaluators.
//
// Per module hook (fetch_sub_module):
//  1. gather the module's parameters that are not available, as one coalesced all-gather;
//  2. wait for each in-flight parameter of the module: the host blocks on the oldest fetch event when more
//     than `max_ongoing_fetch_events` are outstanding; the wait (or the dequantization, with qwZ) runs on
//     the all-gather stream; then the compute stream waits for the whole all-gather stream;
//  3. prefetch: walk the parameter trace ahead, gathering parameters that are not available until
//     `stage3_prefetch_bucket_size` elements (capped by the live-parameter budget) are in flight.
// After the module's compute (release_sub_module): release its parameters unless the trace reuses them
// within `stage3_max_reuse_distance` elements or a prefetch walk skipped one of their later uses.
//
// Gathers: qwZ quantizes the rank's shard (int8, DeepSpeed's adaptive group count) and all-gathers codes
// and fp32 scales separately; hpZ gathers backward-phase uses from the secondary partition inside the hpZ
// group (see ZeroConfig::hpz_recompute_uses_secondary for the recompute). Frozen parameters (Param::frozen)
// keep their secondary partition, so under hpZ every gather of them is intra-node; with
// zero_quantized_nontrainable_weights they are stored int8 and gathered as codes and scales without a
// quantize kernel (__all_gather_params splits stored-quantized params from the others, quantize=True for
// them). MiCS (mics.py) partitions over its shard group and gathers there, in two hops (across nodes, then
// inside the node) with mics_hierarchical_params_gather. With the FP8 weight all-gather (precision.h) the
// block linear weights travel as FP8 codes, cast from the shard first.
//
// Host work per gather (ZeroConfig::host_tensor_view_s per Python-level tensor op): a coalesced gather of
// two or more parameters builds one view per rank of the flat buffer before the call (not with qwZ), and its
// handle's wait splits the result per parameter and rank (a narrow and a record_stream each, plus one view
// per rank of the dequantized buffer with qwZ), all over the gather's own group (hpZ: the secondary group).
// A single-parameter gather has no per-rank loop. Plain and qwZ gathers of ZeRO-3 only (not MiCS, not FP8).
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "model/schedule/module_graph.h"
#include "model/builders/op_emitter.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

struct TraceStep {
  int module = 0;
  Phase phase = Phase::kForward;  // kForward, kRecompute or kBackward
};

// The module trace of one forward + backward pass (what DeepSpeed records in its first iteration):
// forward modules in order; then the logit layer and final LayerNorm backward; then per block, last first,
// its recomputed forward (with activation checkpointing) and its backward modules in reverse; then the
// embeddings backward.
std::vector<TraceStep> BuildTrace(const ModuleGraph& g, bool activation_checkpointing);
// The same with a recompute pass before the backward of each block b with recompute_block[b] (a missing
// entry: none): selective_block checkpoints only some blocks (memory.h CheckpointedBlocks).
std::vector<TraceStep> BuildTrace(const ModuleGraph& g, const std::vector<bool>& recompute_block);

// DeepSpeed's adaptive qwZ group count for a shard of `numel` elements (CUDAQuantizer.quantize): start
// at ceil(numel / target), grow until numel divides by 8 * groups, then double while the groups stay above
// the target size and numel still divides. Returns elements per group.
double QuantizationGroupSize(double numel, double target);

class FetchCoordinator {
 public:
  FetchCoordinator(const ModuleGraph& g, const ZeroConfig& z, OpEmitter* emit);

  // Starts a forward + backward pass over `trace` (DeepSpeed's reset_step).
  void BeginPass(const std::vector<TraceStep>* trace);
  // fetch_sub_module for trace step `step`. Returns the op the module's compute must wait for (the
  // all-gather stream's tail), or -1.
  int Fetch(int step);
  // release_sub_module after step `step`'s compute.
  void Release(int step);
  // End of the pass: wait for and release whatever is still in flight.
  void EndPass();

  double peak_live_elements() const { return peak_live_; }
  double persistent_elements() const;

 private:
  enum class Status { kNotAvailable, kInflight, kAvailable, kPersistent };
  struct Handle {
    int ops[2] = {-1, -1};  // the NCCL op(s): one, or codes + scales with qwZ
    bool quantized = false;
    bool complete = false;
    double shard_elements = 0;
    double group_size = 0;
    double wait_host_ops = 0;  // Python-level tensor ops of AllGatherCoalescedHandle.wait (per-rank loop)
  };
  struct Entry {
    int param;
    int step;
  };

  // Issues coalesced gathers for `params` from a hook of phase `hook_phase`; `use_phase` gives each
  // param's next use. Splits by (group, purpose) as DeepSpeed splits by secondary-tensor presence.
  void Gather(const std::vector<int>& params, const std::vector<Phase>& use_phase, Phase hook_phase);
  // `stored_quantized`: the params are MixZ++'s int8-stored frozen weights (no quantize kernel before).
  void IssueGather(const std::vector<int>& params, bool secondary, Purpose purpose, bool stored_quantized);
  void WaitHandle(int handle);
  bool UsesSecondary(int param, Phase use_phase, Phase hook_phase) const;
  bool StoredQuantized(int param) const;
  double GroupSize(double shard_elements);
  // Per-rank host ops of all_gather_coalesced's multi-parameter path (see the .cc): before the call, and in
  // AllGatherCoalescedHandle.wait. Zero for a single parameter.
  struct PerRankOps {
    double issue = 0;
    double wait = 0;
  };
  PerRankOps CoalescedPerRankOps(const std::vector<int>& params, int world, int group_size, bool secondary,
                                 bool quantized) const;

  const ModuleGraph& g_;
  const ZeroConfig& z_;
  OpEmitter* emit_;
  const std::vector<TraceStep>* trace_ = nullptr;

  std::vector<Status> status_;
  std::vector<int> handle_of_;  // per param: index into handles_, while in flight
  std::vector<long> most_recent_step_;
  std::vector<Handle> handles_;
  std::deque<Entry> queue_;
  std::deque<int> fetch_events_;                          // ops whose completion the host may wait for
  std::unordered_map<int64_t, double> group_size_cache_;  // QuantizationGroupSize by shard elements
  std::vector<bool> fp8_;  // with the FP8 weight all-gather: Fp8Params (precision.h); else empty
  // Scratch buffers reused across hooks (no allocation per hook).
  std::vector<int> need_;
  std::vector<int> prefetch_;
  std::vector<Phase> use_phase_;
  std::vector<int> candidates_;
  std::vector<int> part_;
  double live_ = 0;  // DeepSpeed's __n_available_params
  double peak_live_ = 0;
};

}  // namespace zerosim::model
