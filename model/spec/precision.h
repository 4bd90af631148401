// Precision: the number formats of one training run beyond the 16-bit parameter/activation dtype
// (ModelSpec::dtype, DeepSpeed's `fp16`/`bf16` blocks): the gradient reduction and accumulation formats,
// the optimizer's master weights and states, FP8 GEMMs and the FP8 weight all-gather. ZeroConfig holds one
// (`precision`); the schedule builder, the memory estimate and the compute cost read it through the
// functions below, so that a format's bytes are decided here and nowhere else.
//
// Sources, per field:
//  - gradient_reduce_dtype: DeepSpeed's top-level `communication_data_type` (runtime/config.py
//    get_communication_data_type: "fp16", "bf16", "fp32"; default None, and engine.py
//    communication_data_type resolves None to fp16 or bf16 as enabled). Stage 3 casts each bucket to it
//    before the reduce-scatter (stage3.py __avg_scatter_grads). FSDP's MixedPrecision.reduce_dtype is the
//    same setting (None: the param dtype; torchtitan's default `mixed_precision_reduce = "float32"`).
//  - gradient_accumulation_dtype: DeepSpeed's `data_types.grad_accum_dtype` (engine.py get_data_types: None
//    means the model dtype under ZeRO); stage3.py allocates its gradient partition
//    (grad_partitions_flat_buffer) in it.
//  - bf16_master_weights_and_grads, bf16_optimizer_states: DeepSpeed's `bf16` block keys of the same names
//    (runtime/config.py; both default false; the second requires the first; ZeRO stages 1 to 3): master
//    weights, and Adam's momentum and variance, in bf16 instead of fp32.
//  - fp8_gemms: FP8 training of the linear layers, as Transformer Engine's te.Linear under fp8_autocast and
//    torchao's Float8Linear (convert_to_float8_training) run it: the three GEMMs of every linear layer inside
//    the transformer blocks (forward, input gradient, weight gradient) take FP8 operands with per-tensor
//    scales and accumulate in fp32 with a 16-bit output. Attention's core stays 16-bit (TE's fp8_dpa is off
//    by default), and so does the logit layer: Megatron-LM builds its output layer as a plain
//    ColumnParallelLinear outside the TE blocks, and torchtitan's float8 converter filters out "output".
//  - fp8_weight_all_gather: torchao's `enable_fsdp_float8_all_gather` (Float8LinearConfig): each rank casts
//    its shard of a Float8Linear weight to FP8 before the all-gather (fsdp_pre_all_gather), so the wire
//    carries 1 byte per element; the per-tensor scale comes from an amax that
//    precompute_float8_dynamic_scale_for_fsdp reduces once per iteration after the optimizer step (one
//    all-reduce of one fp32 per weight tensor), so no scale travels with the gather.
//
// Stated simplifications: activation memory is unchanged by FP8 GEMMs (torchao's Float8Linear saves its
// 16-bit inputs for the backward and re-casts them; Transformer Engine would save FP8 copies, which is
// smaller); the hpZ secondary partition stays 16-bit with the FP8 all-gather (its gathers carry FP8 like the
// primary's); the gathered parameters' memory stays 2 bytes per element (an upper bound: the schedule's peak
// is usually the 16-bit embedding or logit layer); the once-per-iteration amax all-reduce of the FP8
// all-gather (one fp32 per weight tensor, a few KB) is not emitted as a collective, only its amax pass over
// the shards.
#pragma once

#include <cstdint>
#include <vector>

#include "model/spec/model_spec.h"

namespace zerosim::model {

// A floating-point format setting; kModel: the model's 16-bit dtype (ModelSpec::dtype).
enum class FloatFormat : uint8_t { kModel, kFp16, kBf16, kFp32 };
// "model", "fp16", "bf16", "fp32".
const char* FloatFormatName(FloatFormat f);

struct Precision {
  FloatFormat gradient_reduce_dtype = FloatFormat::kModel;        // communication_data_type
  FloatFormat gradient_accumulation_dtype = FloatFormat::kModel;  // data_types.grad_accum_dtype
  bool bf16_master_weights_and_grads = false;
  bool bf16_optimizer_states = false;
  bool fp8_gemms = false;
  bool fp8_weight_all_gather = false;
  bool operator==(const Precision&) const = default;
};

// Bytes per element of `f`: 2 for the 16-bit formats and kModel (every ModelSpec dtype is 16-bit:
// BytesPerElement), 4 for fp32.
double FormatBytes(FloatFormat f);

// Bytes of the gradient reduction's wire elements (communication_data_type).
double GradientReduceBytes(const Precision& p);
// Bytes per element of the rank's gradient partition (grad_accum_dtype).
double GradientPartitionBytes(const Precision& p);

// Optimizer state bytes per parameter of the rank's partition: the master weight (4, or 2 with
// bf16_master_weights_and_grads) plus Adam's momentum and variance (4 + 4, or 2 + 2 with
// bf16_optimizer_states): 12 by default (Rajbhandari et al. 2020, sec. 3: K = 12), 6 with both.
double OptimizerStateBytesPerParam(const Precision& p);

// HBM bytes a fused Adam step moves per parameter of the partition: reads the master weight, the two states
// and the gradient, writes the three back and the 16-bit weight: 2 * state bytes + gradient + parameter
// (28 by default: 4+4+4+2 read, 4+4+4+2 written).
double AdamStepBytesPerParam(const Precision& p);

// FP8 operands: 1 byte per element (E4M3 forward, E5M2 gradients; TE's HYBRID format, torchao's default).
inline constexpr double kFp8Bytes = 1.0;
// HBM bytes per element of casting a 16-bit tensor to FP8 with a dynamic per-tensor scale: one pass for the
// amax (read 2 bytes), one for the scaled cast (read 2, write 1) - torchao's hp_tensor_to_float8_dynamic
// (tensor_to_amax, then the cast), TE's current scaling likewise. With
// precompute_float8_dynamic_scale_for_fsdp the weights' amax pass runs once per iteration after the
// optimizer, and each gather casts (3 bytes).
inline constexpr double kFp8CastBytes = 5.0;
inline constexpr double kFp8AmaxBytes = 2.0;

}  // namespace zerosim::model
