// Software fp16/bf16 conversions (kernels/half.h) against known values, an independent nearest-value
// oracle and exhaustive round trips.
#include "kernels/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/quant_math.h"

namespace zerosim::kernels {
namespace {

uint32_t Bits(float f) { return BitsFromFloat(f); }

// The value of a 16-bit pattern from the format's definition, in double: sign, exponent bias, implicit bit.
double DefinitionValue(uint16_t bits, ValueType type) {
  const int mantissa_bits = type == ValueType::kFp16 ? 10 : 7;
  const int exponent_bits = 15 - mantissa_bits;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int sign = bits >> 15;
  const int exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(mantissa, 1 - bias - mantissa_bits);
  } else {
    magnitude = std::ldexp((1 << mantissa_bits) + mantissa, exponent - bias - mantissa_bits);
  }
  return sign != 0 ? -magnitude : magnitude;
}

// The nearest 16-bit value to `f` by search over all finite positive patterns (monotonic in their bits);
// ties to the even pattern; at or past the rounding threshold of the largest finite value, Inf.
uint16_t NearestOracle(float f, ValueType type) {
  const uint16_t inf = type == ValueType::kFp16 ? 0x7C00 : 0x7F80;
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  const uint16_t largest = inf - 1;
  const double top = DefinitionValue(largest, type);
  const double ulp_top = top - DefinitionValue(largest - 1, type);
  if (a >= top + ulp_top / 2) return sign | inf;
  uint16_t lo = 0;
  uint16_t hi = largest;
  while (hi - lo > 1) {  // invariant: value(lo) <= a < value(hi), or a == top
    const auto mid = static_cast<uint16_t>((lo + hi) / 2);
    if (DefinitionValue(mid, type) <= a)
      lo = mid;
    else
      hi = mid;
  }
  if (DefinitionValue(hi, type) <= a) return sign | hi;
  const double down = a - DefinitionValue(lo, type);
  const double up = DefinitionValue(hi, type) - a;
  if (down < up) return sign | lo;
  if (up < down) return sign | hi;
  return sign | ((lo & 1) == 0 ? lo : hi);
}

TEST(Half, KnownFp16Values) {
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalfBits(0.5f), 0x3800);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7BFF);   // largest finite
  EXPECT_EQ(FloatToHalfBits(65519.99f), 0x7BFF);  // below the halfway point to 2^16
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7C00);   // halfway, odd mantissa: up to Inf
  EXPECT_EQ(FloatToHalfBits(1e6f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-1e6f), 0xFC00);
  EXPECT_EQ(FloatToHalfBits(0x1p-14f), 0x0400);         // smallest normal
  EXPECT_EQ(FloatToHalfBits(0x1p-24f), 0x0001);         // smallest subnormal
  EXPECT_EQ(FloatToHalfBits(0x1p-25f), 0x0000);         // halfway to it: ties to even (0)
  EXPECT_EQ(FloatToHalfBits(0x1.000002p-25f), 0x0001);  // just above halfway
  EXPECT_EQ(FloatToHalfBits(0x1.8p-24f), 0x0002);       // 1.5 units: tie, to even (2)
  EXPECT_EQ(FloatToHalfBits(0x1.002p0f), 0x3C00);       // 1 + 2^-11 (tie): to even 1.0
  EXPECT_EQ(FloatToHalfBits(0x1.006p0f), 0x3C02);       // 1 + 3 * 2^-11 (tie): to even 1 + 2^-9
  EXPECT_EQ(FloatToHalfBits(0x1.ffep-15f), 0x0400);     // rounds up out of the subnormals
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::quiet_NaN()), kHalfNanBits);
  EXPECT_EQ(FloatToHalfBits(-std::numeric_limits<float>::quiet_NaN()), kHalfNanBits);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::denorm_min()), 0x0000);

  EXPECT_EQ(HalfBitsToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfBitsToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfBitsToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(HalfBitsToFloat(0x03FF), 0x1.ff8p-15f);
  EXPECT_EQ(Bits(HalfBitsToFloat(0x8000)), 0x80000000u);
  EXPECT_EQ(HalfBitsToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(Bits(HalfBitsToFloat(0x7C01)), kFloatNanBits);
  EXPECT_EQ(Bits(HalfBitsToFloat(0xFE00)), kFloatNanBits);
}

TEST(Half, KnownBf16Values) {
  EXPECT_EQ(FloatToBf16Bits(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBf16Bits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToBf16Bits(0x1.01p0f), 0x3F80);      // 1 + 2^-8 (tie): to even 1.0
  EXPECT_EQ(FloatToBf16Bits(0x1.03p0f), 0x3F82);      // 1 + 3 * 2^-8 (tie): to even 1 + 2^-6
  EXPECT_EQ(FloatToBf16Bits(0x1.010002p0f), 0x3F81);  // just above the tie
  EXPECT_EQ(FloatToBf16Bits(0x1.fep127f), 0x7F7F);    // largest finite bf16
  EXPECT_EQ(FloatToBf16Bits(0x1.ffp127f), 0x7F80);    // halfway past it, odd: up to Inf
  EXPECT_EQ(FloatToBf16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(FloatToBf16Bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(FloatToBf16Bits(0x1p-133f), 0x0001);  // bf16 subnormals are fp32 subnormals
  EXPECT_EQ(FloatToBf16Bits(std::numeric_limits<float>::quiet_NaN()), kBf16NanBits);
  EXPECT_EQ(Bf16BitsToFloat(0x3F80), 1.0f);
  EXPECT_EQ(Bf16BitsToFloat(0xFF80), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(Bits(Bf16BitsToFloat(0x7F81)), kFloatNanBits);
}

TEST(Half, EveryPatternWidensToItsDefinitionAndNarrowsBack) {
  for (ValueType type : {ValueType::kFp16, ValueType::kBf16}) {
    for (uint32_t b = 0; b <= 0xFFFF; ++b) {
      const auto bits = static_cast<uint16_t>(b);
      const float f = ToFloat(bits, type);
      const double expected = DefinitionValue(bits, type);
      const bool is_nan = (type == ValueType::kFp16) ? (bits & 0x7FFF) > 0x7C00 : (bits & 0x7FFF) > 0x7F80;
      if (is_nan) {
        EXPECT_EQ(Bits(f), kFloatNanBits) << b;
        EXPECT_EQ(FromFloat(f, type), type == ValueType::kFp16 ? kHalfNanBits : kBf16NanBits);
        continue;
      }
      const bool is_inf = (type == ValueType::kFp16) ? (bits & 0x7FFF) == 0x7C00 : (bits & 0x7FFF) == 0x7F80;
      if (!is_inf) {
        ASSERT_EQ(static_cast<double>(f), expected) << ValueTypeName(type) << " " << b;
      }
      ASSERT_EQ(FromFloat(f, type), bits) << ValueTypeName(type) << " " << b;
    }
  }
}

TEST(Half, NarrowingMatchesTheNearestValueOracle) {
  std::mt19937 rng(20240604);
  std::vector<float> samples;
  for (int i = 0; i < 200000; ++i) samples.push_back(FloatFromBits(static_cast<uint32_t>(rng())));
  // Values near every fp16 rounding boundary: the midpoints between neighbours and one fp32 ulp around.
  for (uint32_t b = 0; b < 0x7C00; ++b) {
    const double mid = (DefinitionValue(static_cast<uint16_t>(b), ValueType::kFp16) +
                        DefinitionValue(static_cast<uint16_t>(b + 1), ValueType::kFp16)) /
                       2;
    const auto m = static_cast<float>(mid);
    samples.insert(samples.end(), {m, std::nextafter(m, 0.0f), std::nextafter(m, 1e9f), -m});
  }
  for (ValueType type : {ValueType::kFp16, ValueType::kBf16}) {
    for (float f : samples) {
      if (std::isnan(f)) continue;
      ASSERT_EQ(FromFloat(f, type), NearestOracle(f, type)) << ValueTypeName(type) << " " << f;
    }
  }
}

}  // namespace
}  // namespace zerosim::kernels
