// The CPU reference's format decisions (kernels/format.h): exact cases, rounding, layout, special values.
#include "kernels/reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/half.h"
#include "kernels/quant_math.h"
#include "tests/kernels/kernel_test_util.h"

namespace zerosim::kernels {
namespace {

using testing::MustQuantize;

std::vector<uint16_t> Fp16(const std::vector<float>& v) {
  std::vector<uint16_t> out;
  for (float f : v) out.push_back(FloatToHalfBits(f));
  return out;
}

TEST(Reference, ValuesOnTheGridRoundTripExactly) {
  // x = code * 2^-m with the group's largest |x| = qmax * 2^-m: scale and inverse scale are exact powers
  // of two, so every code is exact and dequantization returns the input bit for bit.
  for (int bits : {8, 4}) {
    for (ValueType type : {ValueType::kFp16, ValueType::kBf16}) {
      const int qmax = MaxCode(bits);
      const QuantSpec spec{bits, 2 * qmax + 2, type};
      std::vector<uint16_t> x;
      for (int c = -qmax; c <= qmax; ++c) x.push_back(FromFloat(std::ldexp(static_cast<float>(c), -5), type));
      x.push_back(FromFloat(0.0f, type));
      const Quantized q = MustQuantize(x, spec);
      EXPECT_EQ(q.scales[0], std::ldexp(1.0f, -5));
      for (int i = 0; i <= 2 * qmax; ++i) EXPECT_EQ(CodeAt(q.codes, i, bits), i - qmax);
      EXPECT_EQ(*Dequantize(q, spec), x) << bits << ValueTypeName(type);
    }
  }
}

TEST(Reference, HalfStepsRoundToEvenCodes) {
  // int4, absmax 7: step 1. 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, 0.5 -> 0, 1.5 -> 2, 6.5 -> 6.
  const QuantSpec spec{4, 8, ValueType::kFp16};
  const Quantized q = MustQuantize(Fp16({7, 2.5f, 3.5f, -2.5f, 0.5f, 1.5f, 6.5f, -6.5f}), spec);
  const int expected[] = {7, 2, 4, -2, 0, 2, 6, -6};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(CodeAt(q.codes, i, 4), expected[i]) << i;
}

TEST(Reference, Int4NibbleOrderIsLowNibbleFirst) {
  // Codes 7, -1, 3, -7, 1: bytes (low | high << 4) 0xF7, 0x93, 0x01 (the odd element's high nibble is 0).
  const QuantSpec spec{4, 6, ValueType::kFp16};
  const Quantized q = MustQuantize(Fp16({7, -1, 3, -7, 1}), spec);
  ASSERT_EQ(q.codes.size(), 3u);
  EXPECT_EQ(q.codes[0], 0xF7);
  EXPECT_EQ(q.codes[1], 0x93);
  EXPECT_EQ(q.codes[2], 0x01);
}

TEST(Reference, Int8CodesAreTwosComplementBytes) {
  const QuantSpec spec{8, 4, ValueType::kFp16};
  const Quantized q = MustQuantize(Fp16({127, -127, -1, 0}), spec);
  EXPECT_EQ(q.codes, (std::vector<uint8_t>{0x7F, 0x81, 0xFF, 0x00}));
}

TEST(Reference, AllZeroGroupHasZeroScaleAndDequantizesToPositiveZero) {
  for (int bits : {8, 4}) {
    const QuantSpec spec{bits, 4, ValueType::kFp16};
    const Quantized q = MustQuantize(Fp16({0.0f, -0.0f, 0.0f, -0.0f, 1, 2, 3, 4}), spec);
    EXPECT_EQ(BitsFromFloat(q.scales[0]), 0u);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(CodeAt(q.codes, i, bits), 0);
    const std::vector<uint16_t> y = *Dequantize(q, spec);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(y[static_cast<size_t>(i)], 0x0000) << "the sign of zero is not kept";
  }
}

TEST(Reference, PartialLastGroupAndOddSizes) {
  for (int bits : {8, 4}) {
    const QuantSpec spec{bits, 4, ValueType::kFp16};
    // 4 + 3 elements: the second group has 3, its scale is its own absmax / qmax.
    const Quantized q = MustQuantize(Fp16({1, 2, 3, 4, -0.5f, 0.25f, 0.125f}), spec);
    ASSERT_EQ(q.scales.size(), 2u);
    ASSERT_EQ(q.codes.size(), bits == 8 ? 7u : 4u);
    EXPECT_EQ(q.scales[1], 0.5f / static_cast<float>(MaxCode(bits)));
    EXPECT_EQ(CodeAt(q.codes, 4, bits), -MaxCode(bits));
    if (bits == 4) {
      EXPECT_EQ(q.codes[3] >> 4, 0) << "the padding nibble is 0";
    }
  }
  for (int64_t n : {0, 1, 2, 3, 5, 7, 4095, 4097}) {
    const QuantSpec spec{4, 2048, ValueType::kBf16};
    const std::vector<uint16_t> x = testing::RandomValues(n, spec.type, testing::Distribution::kGaussian, 5);
    const Quantized q = MustQuantize(x, spec);
    EXPECT_EQ(q.codes.size(), static_cast<size_t>((n + 1) / 2));
    EXPECT_EQ(q.scales.size(), static_cast<size_t>((n + 2047) / 2048));
    EXPECT_EQ(Dequantize(q, spec)->size(), static_cast<size_t>(n));
  }
}

TEST(Reference, NonFiniteValuesPoisonTheirGroupOnly) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (ValueType type : {ValueType::kFp16, ValueType::kBf16}) {
    for (int bits : {8, 4}) {
      for (float special : {nan, inf, -inf}) {
        const QuantSpec spec{bits, 4, type};
        std::vector<uint16_t> x;
        for (float f : {1.0f, special, 2.0f, 3.0f, 1.0f, -2.0f, 0.5f, 4.0f}) x.push_back(FromFloat(f, type));
        const Quantized q = MustQuantize(x, spec);
        EXPECT_EQ(BitsFromFloat(q.scales[0]), kNanScaleBits);
        for (int i = 0; i < 4; ++i) EXPECT_EQ(CodeAt(q.codes, i, bits), 0);
        const std::vector<uint16_t> y = *Dequantize(q, spec);
        const uint16_t nan_bits = type == ValueType::kFp16 ? kHalfNanBits : kBf16NanBits;
        for (int i = 0; i < 4; ++i) EXPECT_EQ(y[static_cast<size_t>(i)], nan_bits);
        EXPECT_EQ(q.scales[1], 4.0f / static_cast<float>(MaxCode(bits)));  // the next group is untouched
        EXPECT_EQ(ToFloat(y[7], type), 4.0f);
      }
    }
  }
}

TEST(Reference, TinyBf16GroupsFlushToZero) {
  const QuantSpec spec{8, 2, ValueType::kBf16};
  // 1e-37 < 2^-119: flushed. 2^-119 itself keeps a normal scale of 2^-119 / 127.
  const std::vector<uint16_t> x = {FloatToBf16Bits(1e-37f), FloatToBf16Bits(-1e-38f),
                                   FloatToBf16Bits(0x1p-119f), FloatToBf16Bits(0x1p-120f)};
  const Quantized q = MustQuantize(x, spec);
  EXPECT_EQ(q.scales[0], 0.0f);
  EXPECT_EQ(CodeAt(q.codes, 0, 8), 0);
  EXPECT_EQ(q.scales[1], 0x1p-119f / 127);
  EXPECT_EQ(CodeAt(q.codes, 2, 8), 127);
  EXPECT_EQ(CodeAt(q.codes, 3, 8), 64);  // 63.5 ties to even
}

TEST(Reference, RejectsWhatTheFormatDoesNotAllow) {
  const std::vector<uint16_t> x(64, FloatToHalfBits(1));
  EXPECT_FALSE(Quantize(x, {3, 64, ValueType::kFp16}).ok());
  EXPECT_FALSE(Quantize(x, {8, 63, ValueType::kFp16}).ok());
  EXPECT_FALSE(Quantize(x, {8, 0, ValueType::kFp16}).ok());
  EXPECT_FALSE(Quantize(x, {4, 16, ValueType::kFp16}, {3, 1}).ok());  // 64 does not split in 3
  EXPECT_FALSE(Quantize(x, {4, 16, ValueType::kFp16}, {2, 4}).ok());  // partitions of 8 < a group
  EXPECT_TRUE(Quantize(x, {4, 16, ValueType::kFp16}, {2, 2}).ok());
  Quantized bad = MustQuantize(x, {8, 64, ValueType::kFp16});
  bad.scales.push_back(1);
  EXPECT_FALSE(Dequantize(bad, {8, 64, ValueType::kFp16}).ok());
  EXPECT_FALSE(DequantReduce({}, {4, 64, ValueType::kFp16}).ok());
  const Quantized a = MustQuantize(x, {4, 16, ValueType::kFp16});
  const Quantized b = MustQuantize(std::vector<uint16_t>(32, 0), {4, 16, ValueType::kFp16});
  EXPECT_FALSE(DequantReduceQuant({a, b}, {4, 16, ValueType::kFp16}).ok());
}

}  // namespace
}  // namespace zerosim::kernels
