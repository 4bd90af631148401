// ZeroConfig: how a variant trains. Its own fields are DeepSpeed's keys, with DeepSpeed's names
// (docs/config-json and deepspeed/runtime/zero/config.py) and defaults, and the training loop's; PyTorch
// FSDP's arguments are `fsdp` (FsdpArguments), the runtime around either framework `runtime`
// (RuntimeSettings), the number formats `precision`. ZeRO-3 and ZeRO++ differ only in the three ZeRO++
// switches below. Fields that are not DeepSpeed keys are marked "ZeroSim:" and name their source.
#pragma once

#include <cstdint>
#include <optional>

#include "model/spec/model_spec.h"
#include "model/spec/precision.h"
#include "model/spec/strategy.h"

namespace zerosim::model {

// FSDP's BackwardPrefetch (torch/distributed/fsdp/api.py): when the next unit's all-gather is issued in
// the backward: none (when it is needed), BACKWARD_PRE (before the current unit's gradient computation),
// BACKWARD_POST (after it).
enum class FsdpBackwardPrefetch { kNone, kBackwardPre, kBackwardPost };

// PyTorch FSDP's own arguments (torch/distributed/fsdp/api.py, fully_sharded_data_parallel.py), PyTorch's
// defaults, and the HSDP mesh's shard dimension.
struct FsdpArguments {
  // limit_all_gathers: at most two unshards outstanding (_limiter_utils.py _FreeEventQueue).
  bool limit_all_gathers = true;
  bool forward_prefetch = false;
  FsdpBackwardPrefetch backward_prefetch = FsdpBackwardPrefetch::kBackwardPre;
  // `hsdp_shard_size`: the shard dimension of HYBRID_SHARD's (replicate, shard) device mesh, PyTorch's
  // default being one node (fsdp/_init_utils.py _init_intra_and_inter_node_groups). 0: one node.
  int hsdp_shard_size = 0;
  bool operator==(const FsdpArguments&) const = default;
};

// How the job runs around its framework: `[runtime]` in a scenario (model/io/zero_keys.h ReadRuntimeKeys).
struct RuntimeSettings {
  // How the job is launched ([runtime] launcher; model/spec/strategy.h): sets cuda_device_max_connections's
  // default. Unset: the framework's default launcher (ZeroConfig::effective_launcher()).
  std::optional<Launcher> launcher;
  // CUDA_DEVICE_MAX_CONNECTIONS: hardware work queues the GPU feeds its streams through (CUDA's default 8).
  // With 1, kernels of every stream are dispatched in issue order through one queue, so a kernel waiting for
  // another stream or a busy NCCL stream holds back everything issued after it. Default by launcher
  // (LauncherHardwareQueues): 1 for Megatron-DeepSpeed, 8 for plain DeepSpeed, DeepSpeed-Chat and torchrun.
  int cuda_device_max_connections = 8;
  // Whether `[runtime] cuda_device_max_connections` was given (false: the launcher's LauncherHardwareQueues).
  // Reports say which (issue 35: a default that changes an answer is never silent; QueueOrigin below).
  bool cuda_device_max_connections_stated = false;
  // ZeroSim: `[runtime] memory_reserve`, the fraction of the GPU's memory kept free for what the memory
  // estimate does not count (fragmentation across the caching allocator's segments, other libraries' scratch;
  // model/report/runtime_memory.h), on top of the CUDA context, NCCL's buffers, cuBLAS's workspaces and the
  // block rounding it does count. 0.005 by default (kDefaultMemoryReserve: the most that keeps every
  // published run that ran feasible, runtime_memory.h).
  double memory_reserve = 0.005;
  // ZeroSim: host (Python) time per module hook (fetch + release). DeepSpeed's hooks run on the host;
  // kernels are issued asynchronously, so this matters only where the host falls behind the GPU.
  double host_overhead_per_module_s = 0;
  // ZeroSim: host time of one Python-level PyTorch view op on a CUDA tensor (a slice `t[a:b]`). DeepSpeed's
  // reduce_scatter_coalesced (runtime/comm/coalesced_collectives.py, v0.6 to v0.10) slices every gradient of
  // a bucket once per rank in a Python loop before the reduce-scatter, so a bucket of n tensors costs
  // world_size x n of these on the host (qgZ's all_to_all_quant_reduce sends each 1-D tensor through it).
  // all_gather_coalesced's multi-parameter gathers loop over the ranks too
  // (model/builders/fetch_coordinator.cc). 2 us: PyTorch's operator_benchmark for torch.split of a CUDA
  // tensor into two views, 2.3-3.4 us per call (pytorch/pytorch PR #32194's timings).
  double host_tensor_view_s = 2e-6;
  bool operator==(const RuntimeSettings&) const = default;
};

struct ZeroConfig {
  // zero_optimization.stage (DeepSpeed's key; `strategy` below decides the schedule: zero1/zero2/zero3/mics
  // imply stage 1/2/3/3).
  int stage = 3;

  // --- the strategy (strategy.h; `strategy` in [zero] or a [[variant]]) and its stack ([runtime] framework)
  // ---
  Strategy strategy = Strategy::kZero3;
  Framework framework = Framework::kDeepSpeed;  // FrameworkOf(strategy) (the loaders check it)
  // MiCS `mics_shard_size` (DeepSpeed zero/config.py; -1 = MiCS off there): ranks one parameter is
  // partitioned over (consecutive ranks); HSDP's is FsdpArguments::hsdp_shard_size. 0: one node.
  int mics_shard_size = 0;
  // MiCS `mics_hierarchical_params_gather` (DeepSpeed default false): gather a shard group that spans nodes
  // in two hops, across nodes among same-local-rank GPUs, then inside each node (mics.py
  // _hierarchical_all_gather_params).
  bool mics_hierarchical_params_gather = false;
  // ZeRO-1/2 `allgather_bucket_size` (DeepSpeed default 5e8 elements): the post-step all-gather of the
  // updated fp16 partitions runs in max(1, partition * P / this) pieces (stage_1_and_2.py
  // all_gather_dp_groups).
  double allgather_bucket_size = 5e8;

  // --- ZeRO++ (DeepSpeed v0.10.0, PR #3784) ---
  bool zero_quantized_weights = false;    // qwZ: int8 block-quantized weight all-gather
  int zero_hpz_partition_size = 1;        // hpZ: secondary partition over this many ranks (1 = off)
  bool zero_quantized_gradients = false;  // qgZ: int4 two-hop all-to-all gradient reduction
  // MixZ++ (DeepSpeed v0.10.1, PR #3954 "MP ZeRO++"): frozen (requires_grad=False) parameters are stored as
  // int8 codes with fp32 scales, primary and hpZ secondary partition alike (partition_parameters.py
  // _partition_param, _partition_param_sec), so their gathers move int8 with no quantize kernel before them
  // (codes are already stored), then dequantize. Only matters for models with frozen parameters (LoRA,
  // model/builders/rlhf_schedule.h).
  bool zero_quantized_nontrainable_weights = false;

  // ZeroSim: quantization widths of qwZ and qgZ (DeepSpeed hard-codes int8 and int4).
  int weight_quantization_bits = 8;
  int gradient_quantization_bits = 4;
  // ZeroSim: qwZ's target group size. DeepSpeed starts from ceil(numel / 8000) groups and adjusts the
  // count so that numel divides by 8 * groups (partition_parameters.py: "optimal size is 4k, so we set
  // the target below 8k").
  int64_t weight_quantization_group_target = 8000;

  // --- stage-3 knobs that shape overlap and memory (DeepSpeed defaults) ---
  double stage3_prefetch_bucket_size = 5e7;         // elements prefetched ahead of use
  double stage3_max_live_parameters = 1e9;          // elements gathered at once, at most
  double stage3_max_reuse_distance = 1e9;           // keep a parameter if reused within this many elements
  double stage3_param_persistence_threshold = 1e5;  // parameters smaller than this stay gathered
  double reduce_bucket_size = 5e8;                  // gradient elements reduced per bucket
  bool overlap_comm = true;                         // reduce on a separate stream
  bool contiguous_gradients = true;                 // copy gradients into the bucket buffer

  // --- Megatron-Core's distributed optimizer (strategy zero1 under Megatron): its DDP overlap options ---
  // megatron/core/distributed/distributed_data_parallel_config.py: both default to False; NeMo's and
  // Megatron-Bridge's recipes set both (e.g. NeMo nemo/collections/llm/recipes/llama3_70b.py trainer():
  // DistributedDataParallelConfig(overlap_grad_reduce=True, overlap_param_gather=True)).
  //  - overlap_grad_reduce: during the last micro-batch's backward, each bucket of the contiguous gradient
  //    buffer is reduce-scattered as soon as its gradients are final, on a side stream (param_and_grad_buffer.py
  //    register_grad_ready -> start_grad_sync), instead of after the backward;
  //  - overlap_param_gather: the updated parameters are all-gathered bucket by bucket ahead of the next
  //    forward, each module's forward pre-hook waiting for its own bucket (distributed_data_parallel.py
  //    _make_forward_pre_hook -> finish_param_sync), instead of all at once after the step.
  // NeMo's user guide (features/optimizations/communication_overlap): "exposes only one DP communication chunk".
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  // Elements per bucket; 0: Megatron-Core's rule max(40,000,000, 1,000,000 x data-parallel size)
  // (distributed_data_parallel.py __init__, when bucket_size is None).
  double ddp_bucket_size = 0;

  // ZeroSim: DeepSpeed's hard-coded limits on outstanding work before the host blocks
  // (partitioned_param_coordinator.py __max_ongoing_fetch_events; stage3.py max_param_reduce_events).
  int max_ongoing_fetch_events = 2;
  int max_param_reduce_events = 2;

  // ZeroSim: hpZ with activation checkpointing. The ZeRO++ paper (sec. 3.2) gathers every backward-phase
  // parameter, including the recomputed forward, from the secondary partition (true). DeepSpeed v0.10's
  // code calls the recompute's fetch with forward=True, which uses the primary, global partition
  // (parameter_offload.py pre_sub_module_forward_function) (false).
  bool hpz_recompute_uses_secondary = true;

  // --- training loop (DeepSpeed top-level keys) ---
  int train_micro_batch_size_per_gpu = 1;  // sequences per GPU per micro-step
  int gradient_accumulation_steps = 1;
  bool activation_checkpointing = true;  // Megatron's full-layer recompute
  // ZeroSim: `[training] recompute`, refining activation_checkpointing: kOffload with it (the kept block
  // inputs in host memory, DeepSpeed's activation_checkpointing.cpu_checkpointing), kSelective, kSelectiveOp
  // and kSelectiveBlock without it (model_spec.h RecomputePolicy). kNone: no refinement. RecomputeOf
  // (below) combines the two.
  RecomputePolicy recompute = RecomputePolicy::kNone;
  // ZeroSim: `[training] recompute_block_interval`, with recompute = selective_block: every n-th block
  // (blocks n, 2n, ... counting from 1, torchtitan's _apply_layer_sac `_count % ac_freq == 0`) is
  // checkpointed whole. torchtitan's default selective_ac_option is "2".
  int recompute_block_interval = 2;
  // ZeroSim: `[training] recompute_layernorm`, `recompute_moe_act`: Megatron-Core's module-level selective
  // recompute (--recompute-granularity selective --recompute-modules layernorm moe_act; transformer_config.py
  // recompute_modules): the norms' outputs and the routed experts' activation outputs are not kept but re-run
  // in the backward (memory.h ModuleRecompute; schedule_parts.cc BeginSchedule). With recompute none or
  // selective.
  bool recompute_layernorm = false;
  bool recompute_moe_act = false;
  // ZeroSim: `[training] loss` (model_spec.h LossImpl): how the loss over the logits is computed, which
  // sets its working memory (memory.h LossBytesPerLogit). kFused by default.
  LossImpl loss = LossImpl::kFused;

  // PyTorch FSDP's arguments (the fsdp_* strategies).
  FsdpArguments fsdp;
  // The runtime around the framework ([runtime]).
  RuntimeSettings runtime;

  // Number formats beyond the 16-bit dtype: gradient reduction and accumulation, optimizer states, FP8 GEMMs
  // and the FP8 weight all-gather (model/spec/precision.h, DeepSpeed's and torchao's keys).
  Precision precision;

  bool hpz_enabled() const { return zero_hpz_partition_size > 1; }
  Launcher effective_launcher() const { return runtime.launcher.value_or(DefaultLauncher(framework)); }
  // Where the launcher and the hardware queue count came from, as reports print them: "stated" (the input
  // names it), "launcher" (queues only: the stated launcher's LauncherHardwareQueues) or "default" (neither
  // given: the framework's default launcher and its queue count).
  const char* launcher_origin() const { return runtime.launcher ? "stated" : "default"; }
  const char* queue_origin() const {
    return runtime.cuda_device_max_connections_stated ? "stated" : runtime.launcher ? "launcher" : "default";
  }
  // The shard group size of the strategy (0: one node; meaningless without HasShardGroup(strategy)).
  int shard_group_size() const {
    return strategy == Strategy::kMics              ? mics_shard_size
           : strategy == Strategy::kFsdpHybridShard ? fsdp.hsdp_shard_size
                                                    : 0;
  }
  bool operator==(const ZeroConfig&) const = default;
};

// The scenario's policy: activation_checkpointing = true means full (Megatron's) or, with recompute =
// offload, offload; false means none or, with recompute = selective, selective_op or selective_block, that.
inline RecomputePolicy RecomputeOf(const ZeroConfig& z) {
  if (z.activation_checkpointing) {
    return z.recompute == RecomputePolicy::kOffload ? RecomputePolicy::kOffload : RecomputePolicy::kFull;
  }
  switch (z.recompute) {
    case RecomputePolicy::kSelective:
    case RecomputePolicy::kSelectiveOp:
    case RecomputePolicy::kSelectiveBlock:
      return z.recompute;
    default:
      return RecomputePolicy::kNone;
  }
}

}  // namespace zerosim::model
