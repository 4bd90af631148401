// IEEE binary16 (fp16) and bfloat16 conversions in software, for the CPU reference: exact in the widening
// direction, round to nearest, ties to even, in the narrowing direction (overflow gives +-Inf, tiny values
// become subnormals or +-0). NaN payloads are not kept: every NaN becomes the canonical quiet NaN
// (fp16 0x7E00, bf16 0x7FC0, fp32 0x7FC00000), as the CUDA kernels write it (format.h).
#pragma once

#include <cstdint>

#include "kernels/format.h"

namespace zerosim::kernels {

inline constexpr uint16_t kHalfNanBits = 0x7E00;
inline constexpr uint16_t kBf16NanBits = 0x7FC0;
inline constexpr uint32_t kFloatNanBits = 0x7FC00000u;

float HalfBitsToFloat(uint16_t bits);
uint16_t FloatToHalfBits(float value);
float Bf16BitsToFloat(uint16_t bits);
uint16_t FloatToBf16Bits(float value);

// The conversions of `type` (fp16 or bf16).
float ToFloat(uint16_t bits, ValueType type);
uint16_t FromFloat(float value, ValueType type);

}  // namespace zerosim::kernels
