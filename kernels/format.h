// The quantized formats shared by the CPU reference (reference.h), the CUDA kernels (gpu.h,
// cuda/launch.cuh) and the benchmark. C++17: nvcc compiles this header too.
//
// Values are 16-bit floats held as their bit patterns (uint16_t): IEEE binary16 (fp16) or bfloat16.
// They are quantized in groups of `group_size` consecutive elements (the last group may be shorter),
// symmetric, with one fp32 scale per group:
//
//   qmax  = 2^(bits-1) - 1                 (127 for int8, 7 for int4; the code -2^(bits-1) is never used)
//   scale = absmax / qmax                  (absmax = max |x| over the group, in fp32)
//   code  = clamp(rint(x * (qmax / absmax)), -qmax, qmax)   rint: round to nearest, ties to even
//   value = code * scale                   (fp32, then rounded to nearest-even into fp16/bf16)
//
// Why absmax / qmax and not DeepSpeed's 2^(bits-1) / absmax: the group's largest value maps exactly onto
// the largest code, so nothing clamps and every element is within half a step (scale / 2) of its code,
// plus at most absmax * 2^-21 of fp32 rounding (QuantErrorBound in quant_math.h derives it).
// DeepSpeed's convention gains the code -2^(bits-1) but clamps +absmax, an error of a full step. With
// int4 the difference is 7 against 8 levels per side; we keep the tighter worst case.
//
// Special values (the same on CPU and GPU):
//   - A group whose absmax is not finite (any NaN or +-Inf) gets scale NaN and codes 0: all its elements
//     dequantize to NaN. Non-finite gradients mean fp16 overflow; keeping them visible lets the loss
//     scaler's overflow check still fire after quantized communication.
//   - A group whose absmax is below kMinNormalAbsMax (2^-119, only reachable with bf16 subnormal-range
//     data) gets scale 0 and codes 0 (flushed to zero): a normal fp32 scale needs absmax >= qmax * 2^-126.
//     The absolute error is then below 2^-119 (1.5e-36).
//   - An all-zero group has scale 0 and codes 0, and dequantizes to +0.
//   - Every NaN written as fp16 is 0x7E00 and as bf16 0x7FC0; every NaN scale is the fp32 bits 0x7FC00000.
//
// Codes: int8 codes are one two's-complement byte per element. int4 codes pack two elements per byte:
// element 2i in bits 0-3 (low nibble), element 2i+1 in bits 4-7 (high nibble), each a 4-bit two's
// complement number; an odd element count leaves the last high nibble 0. group_size must be even, so
// every group starts on a byte.
//
// Fused reduce kernels read k chunks of the same length back to back, as an all-to-all delivers them:
// codes of chunk i at i * CodeBytes(chunk_elements), scales of chunk i at i * NumGroups(chunk_elements).
// They sum the k dequantized values of each element in fp32, in chunk order 0, 1, ..., k-1.
#pragma once

#include <cstdint>

#include "model/status.h"

namespace zerosim::kernels {

enum class ValueType { kFp16, kBf16 };

const char* ValueTypeName(ValueType type);

struct QuantSpec {
  int bits = 8;                       // 8 or 4
  int64_t group_size = 2048;          // elements per fp32 scale; even, >= 2
  ValueType type = ValueType::kFp16;  // the 16-bit float type of the unquantized values
};

// qgZ's swizzled order for a tensor split into nodes x gpus_per_node equal partitions: partition
// p = n * gpus_per_node + d is stored at slot d * nodes + n, so that the slots a local GPU d receives in
// the intra-node all-to-all are contiguous. Its scales move with it. {1, 1} is the identity.
struct Swizzle {
  int nodes = 1;          // N: nodes
  int gpus_per_node = 1;  // D: GPUs per node
};

// Bytes of codes for `elements` values at `bits` bits.
constexpr int64_t CodeBytes(int64_t elements, int bits) { return bits == 8 ? elements : (elements + 1) / 2; }

// Number of groups (and fp32 scales) for `elements` values in groups of `group_size`.
constexpr int64_t NumGroups(int64_t elements, int64_t group_size) {
  return (elements + group_size - 1) / group_size;
}

// Ok if `spec` names a supported format (bits 4 or 8, even group_size >= 2).
Status CheckSpec(const QuantSpec& spec);

// Ok if `elements` values split into swizzle's N x D partitions, each a whole number of groups.
Status CheckSwizzle(const Swizzle& swizzle, int64_t elements, const QuantSpec& spec);

}  // namespace zerosim::kernels
