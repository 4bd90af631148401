#include "kernels/half.h"

#include "kernels/quant_math.h"

namespace zerosim::kernels {
namespace {

// Rounds `magnitude >> shift` to nearest, ties to even (shift >= 1).
uint32_t ShiftRoundNearestEven(uint32_t magnitude, int shift) {
  const uint32_t kept = magnitude >> shift;
  const uint32_t rest = magnitude & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  return (rest > half || (rest == half && (kept & 1u) != 0)) ? kept + 1 : kept;
}

}  // namespace

float HalfBitsToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1F) return FloatFromBits(mantissa != 0 ? kFloatNanBits : (sign | 0x7F800000u));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in fp32.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return FloatFromBits(sign | BitsFromFloat(magnitude));
  }
  return FloatFromBits(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t FloatToHalfBits(float value) {
  const uint32_t x = BitsFromFloat(value);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t magnitude = x & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return kHalfNanBits;
  // 65520 is halfway between 65504 (the largest fp16, odd mantissa) and 2^16: it and above round to Inf.
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;
  // 2^-25 and below round to zero (2^-25 is halfway between 0 and the smallest subnormal, 0 is even).
  if (magnitude <= 0x33000000u) return sign;
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  const uint32_t mantissa = magnitude & 0x7FFFFFu;
  if (exponent >= -14) {
    // Normal: drop 13 mantissa bits; a carry out of the mantissa correctly bumps the exponent.
    const uint32_t biased = (static_cast<uint32_t>(exponent + 15) << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1FFFu;
    const bool up = rest > 0x1000u || (rest == 0x1000u && (biased & 1u) != 0);
    return static_cast<uint16_t>(sign | (biased + (up ? 1u : 0u)));
  }
  // Subnormal result, in units of 2^-24: (1.mantissa) * 2^(exponent + 1), exponent in [-25, -15].
  const uint32_t units = ShiftRoundNearestEven(mantissa | 0x800000u, -exponent - 1);
  return static_cast<uint16_t>(sign | units);  // units == 0x400 encodes the smallest normal, as it should
}

float Bf16BitsToFloat(uint16_t bits) {
  if ((bits & 0x7FFFu) > 0x7F80u) return FloatFromBits(kFloatNanBits);
  return FloatFromBits(static_cast<uint32_t>(bits) << 16);
}

uint16_t FloatToBf16Bits(float value) {
  const uint32_t x = BitsFromFloat(value);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return kBf16NanBits;
  // Round the low 16 bits away, to nearest, ties to even; a carry may reach the exponent (up to Inf).
  const uint32_t rounded = x + 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

float ToFloat(uint16_t bits, ValueType type) {
  return type == ValueType::kFp16 ? HalfBitsToFloat(bits) : Bf16BitsToFloat(bits);
}

uint16_t FromFloat(float value, ValueType type) {
  return type == ValueType::kFp16 ? FloatToHalfBits(value) : FloatToBf16Bits(value);
}

}  // namespace zerosim::kernels
