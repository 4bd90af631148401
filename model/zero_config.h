// ZeroConfig: how DeepSpeed trains, with DeepSpeed's own key names (docs/config-json and
// deepspeed/runtime/zero/config.py) and DeepSpeed's defaults. ZeRO-3 and ZeRO++ differ only in the three
// ZeRO++ switches below. Fields that are not DeepSpeed keys are marked "ZeroSim:" and name their source.
#pragma once

#include <cstdint>

#include "model/model_spec.h"
#include "model/precision.h"

namespace zerosim::model {

struct ZeroConfig {
  // zero_optimization.stage. ZeroSim models stage 3 only.
  int stage = 3;

  // --- ZeRO++ (DeepSpeed v0.10.0, PR #3784) ---
  bool zero_quantized_weights = false;    // qwZ: int8 block-quantized weight all-gather
  int zero_hpz_partition_size = 1;        // hpZ: secondary partition over this many ranks (1 = off)
  bool zero_quantized_gradients = false;  // qgZ: int4 two-hop all-to-all gradient reduction

  // ZeroSim: quantization widths of qwZ and qgZ (DeepSpeed hard-codes int8 and int4).
  int weight_quantization_bits = 8;
  int gradient_quantization_bits = 4;
  // ZeroSim: qwZ's target group size. DeepSpeed starts from ceil(numel / 8000) groups and adjusts the
  // count so that numel divides by 8 * groups (partition_parameters.py: "optimal size is 4k, so we set
  // the target below 8k").
  int64_t weight_quantization_group_target = 8000;

  // --- stage-3 knobs that shape overlap and memory (DeepSpeed defaults) ---
  double stage3_prefetch_bucket_size = 5e7;          // elements prefetched ahead of use
  double stage3_max_live_parameters = 1e9;           // elements gathered at once, at most
  double stage3_max_reuse_distance = 1e9;            // keep a parameter if reused within this many elements
  double stage3_param_persistence_threshold = 1e5;   // parameters smaller than this stay gathered
  double reduce_bucket_size = 5e8;                   // gradient elements reduced per bucket
  bool overlap_comm = true;                          // reduce on a separate stream
  bool contiguous_gradients = true;                  // copy gradients into the bucket buffer

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
  bool activation_checkpointing = true;    // Megatron's full-layer recompute
  // ZeroSim: `[training] recompute`, refining activation_checkpointing: kOffload with it (the kept block inputs
  // in host memory, DeepSpeed's activation_checkpointing.cpu_checkpointing), kSelective without it
  // (Korthikanti's attention-core recompute). kNone: no refinement. RecomputeOf (memory.h) combines the two.
  RecomputePolicy recompute = RecomputePolicy::kNone;

  // ZeroSim: host (Python) time per module hook (fetch + release). DeepSpeed's hooks run on the host;
  // kernels are issued asynchronously, so this matters only where the host falls behind the GPU.
  double host_overhead_per_module_s = 0;

  // --- the runtime ([runtime] in a scenario) ---
  // CUDA_DEVICE_MAX_CONNECTIONS: hardware work queues the GPU feeds its streams through (CUDA's default 8).
  // With 1, kernels of every stream are dispatched in issue order through one queue, so a kernel waiting for
  // another stream or a busy NCCL stream holds back everything issued after it. Megatron-DeepSpeed's launch
  // scripts export 1 (its examples_deepspeed scripts; Megatron-LM requires it for its communication overlap).
  int cuda_device_max_connections = 8;

  // Number formats beyond the 16-bit dtype: gradient reduction and accumulation, optimizer states, FP8 GEMMs
  // and the FP8 weight all-gather (model/precision.h, DeepSpeed's and torchao's keys).
  Precision precision;

  bool hpz_enabled() const { return zero_hpz_partition_size > 1; }
  bool operator==(const ZeroConfig&) const = default;
};

}  // namespace zerosim::model
