// Accuracy of the CPU reference (kernels/reference.h) on random data: the per-element error bound of the
// scale convention (format.h), and the relative L2 error on Gaussian data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "kernels/quant_math.h"
#include "kernels/reference.h"
#include "tests/kernels/kernel_test_util.h"

namespace zerosim::kernels {
namespace {

using testing::Distribution;
using testing::RandomValues;

// (bits, group size, value type, distribution)
using Case = std::tuple<int, int64_t, ValueType, Distribution>;

class ErrorBound : public ::testing::TestWithParam<Case> {};

// Every element is within QuantErrorBound (half a step plus fp32 rounding) of its fp32 dequantized value,
// and within that plus the output rounding once rounded to fp16/bf16. Codes stay in [-qmax, qmax].
TEST_P(ErrorBound, EveryElementWithinHalfAStep) {
  const auto [bits, group, type, dist] = GetParam();
  const QuantSpec spec{bits, group, type};
  const int64_t n = 40 * group + group / 2 + 1;  // a partial last group of odd length
  const std::vector<uint16_t> x = RandomValues(n, type, dist, 7 + static_cast<uint64_t>(group) * bits);
  const std::vector<float> xf = testing::ToFloats(x, type);
  const Quantized q = testing::MustQuantize(x, spec);
  const std::vector<float> y32 = *DequantizeToFloats(q, spec);
  const std::vector<uint16_t> y16 = *Dequantize(q, spec);
  const int qmax = MaxCode(bits);
  double worst_steps = 0;  // the largest error seen, in quantization steps
  for (int64_t g = 0; g < NumGroups(n, group); ++g) {
    double absmax = 0;
    for (int64_t i = g * group; i < std::min(n, (g + 1) * group); ++i)
      absmax = std::max<double>(absmax, std::fabs(xf[i]));
    const double bound = QuantErrorBound(absmax, bits);
    EXPECT_FLOAT_EQ(q.scales[static_cast<size_t>(g)], static_cast<float>(absmax / qmax));
    for (int64_t i = g * group; i < std::min(n, (g + 1) * group); ++i) {
      const auto k = static_cast<size_t>(i);
      const int code = CodeAt(q.codes, i, bits);
      ASSERT_LE(std::abs(code), qmax);
      const double err32 = std::fabs(static_cast<double>(xf[k]) - y32[k]);
      ASSERT_LE(err32, bound) << "element " << i;
      const double y = ToFloat(y16[k], type);
      ASSERT_LE(std::fabs(xf[k] - y), bound + testing::OutputRoundingBound(y32[k], type)) << "element " << i;
      if (absmax > 0) worst_steps = std::max(worst_steps, err32 / (absmax / qmax));
    }
  }
  // Random data comes within a hair of the half step: the bound is tight, not vacuous.
  EXPECT_GT(worst_steps, 0.49);
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  const auto [bits, group, type, dist] = info.param;
  return testing::SpecName({bits, group, type}) + "_" + testing::DistributionName(dist);
}

INSTANTIATE_TEST_SUITE_P(Reference, ErrorBound,
                         ::testing::Combine(::testing::Values(8, 4),
                                            ::testing::Values(int64_t{64}, int64_t{2048}),
                                            ::testing::Values(ValueType::kFp16, ValueType::kBf16),
                                            ::testing::Values(Distribution::kUniform, Distribution::kGaussian,
                                                              Distribution::kHeavyTailed,
                                                              Distribution::kSmallGaussian)),
                         CaseName);

struct L2Errors {
  double output = 0;  // sqrt(sum (x - y)^2 / sum x^2), y the fp16/bf16 output
  double fp32 = 0;    // the same with y the fp32 dequantized value
  double predicted =
      0;  // rounding errors uniform over each group's step s: sqrt(sum_groups n s^2 / 12 / sum x^2)
};

L2Errors RelativeL2(int bits, int64_t group, ValueType type, uint64_t seed) {
  const QuantSpec spec{bits, group, type};
  const std::vector<uint16_t> x = RandomValues(1 << 20, type, Distribution::kGaussian, seed);
  const Quantized q = testing::MustQuantize(x, spec);
  const std::vector<uint16_t> y = *Dequantize(q, spec);
  const std::vector<float> y32 = *DequantizeToFloats(q, spec);
  double out2 = 0, fp32_2 = 0, ref2 = 0, predicted2 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xi = ToFloat(x[i], type);
    out2 += std::pow(xi - ToFloat(y[i], type), 2);
    fp32_2 += std::pow(xi - y32[i], 2);
    ref2 += xi * xi;
    predicted2 += std::pow(q.scales[i / static_cast<size_t>(group)], 2) / 12;
  }
  return {std::sqrt(out2 / ref2), std::sqrt(fp32_2 / ref2), std::sqrt(predicted2 / ref2)};
}

// Relative L2 error on 2^20 Gaussian values. Rounding to nearest makes each error close to uniform over a
// step s = absmax / qmax, so the error is about E[absmax / sigma] / (qmax sqrt(12)); E[absmax / sigma]
// grows from 2.6 (groups of 64) to 3.6 (2048): int8 0.59-0.83%, int4 10.7-15.0% (zeropp.md quotes
// 0.6-0.8% and 11-15%). The fp32 error must match that model within 3%. The output bands are the
// measured values (fp16 / bf16 in the comments; bf16's coarser output rounding adds a little at int8)
// +-5%, wide enough for another standard library's random streams, narrow enough to catch a wrong scale
// (DeepSpeed's 2^(b-1) / absmax would move int4 by 13%).
TEST(ReferenceAccuracy, GaussianRelativeL2InTheExpectedBand) {
  struct Band {
    int bits;
    int64_t group;
    double low;
    double high;
  };
  const Band bands[] = {
      {8, 64, 0.0056, 0.0065},    // measured 0.00593 / 0.00612
      {8, 256, 0.0066, 0.0075},   // measured 0.00696 / 0.00713
      {8, 2048, 0.0079, 0.0090},  // measured 0.00829 / 0.00854
      {4, 64, 0.102, 0.113},      // measured 0.1076 / 0.1077
      {4, 256, 0.120, 0.133},     // measured 0.1263 / 0.1263
      {4, 2048, 0.143, 0.158},    // measured 0.1504 / 0.1504
  };
  for (const Band& b : bands) {
    for (ValueType type : {ValueType::kFp16, ValueType::kBf16}) {
      const L2Errors e = RelativeL2(b.bits, b.group, type, 99);
      const std::string name = testing::SpecName({b.bits, b.group, type});
      EXPECT_NEAR(e.fp32 / e.predicted, 1.0, 0.03) << name;
      EXPECT_GT(e.output, b.low) << name;
      EXPECT_LT(e.output, b.high) << name;
    }
  }
}

}  // namespace
}  // namespace zerosim::kernels
