// The power model (model/spec/gpu_power.h): a power-capped GPU's tensor-core work runs slower by the stated rule,
// memory-bound work does not, and a calibration set obtained at a cap is not capped twice.
#include <gtest/gtest.h>

#include <cmath>

#include "model/cost/compute_cost.h"
#include "model/spec/gpu_power.h"

namespace zerosim::model {
namespace {

GpuSpec H100(double power_limit_W) {
  GpuSpec g;
  g.name = "H100-SXM5-80GB";
  g.peak_flops = 989e12;
  g.fp8_peak_flops = 1979e12;
  g.hbm_Bps = 3.35e12;
  g.sms = 132;
  g.power_limit_W = power_limit_W;
  return g;
}

Calibration Cal(double set_power_limit_W) {
  Calibration c;
  c.copy_Bps = 3e12;
  c.compute.gemm = 0.7;
  c.compute.attention_forward = 0.5;
  c.compute.attention_backward = 0.45;
  c.compute.fp8_gemm = 0.6;
  c.compute.power_limit_W = set_power_limit_W;
  return c;
}

TEST(GpuPower, TheClockFollowsTheCubeRootOfTheSwitchingPowerLeft) {
  GpuPowerRange p;
  ASSERT_TRUE(FindGpuPowerRange(H100(0), &p));
  EXPECT_EQ(p.default_W, 700);
  EXPECT_EQ(p.min_W, 200);
  // ((500 - 88) / (700 - 88))^(1/3) = 0.8764.
  EXPECT_NEAR(PowerClockFactor(p, 500), std::cbrt(412.0 / 612.0), 1e-12);
  EXPECT_NEAR(PowerClockFactor(p, 500), 0.8764, 1e-4);
  EXPECT_DOUBLE_EQ(PowerClockFactor(p, 0), 1.0);    // the default limit
  EXPECT_DOUBLE_EQ(PowerClockFactor(p, 700), 1.0);  // at the default: no change
  EXPECT_LT(PowerClockFactor(p, 300), PowerClockFactor(p, 400));
}

TEST(GpuPower, ACappedGpuRunsItsGemmsAndAttentionSlowerByTheFactorButNotItsMemoryBoundWork) {
  const double f = std::cbrt(412.0 / 612.0);
  const ComputeRates full = MakeComputeRates(H100(0), Cal(0));
  const ComputeRates capped = MakeComputeRates(H100(500), Cal(0));
  EXPECT_NEAR(capped.gemm_efficiency, 0.7 * f, 1e-12);
  EXPECT_NEAR(capped.attention_forward_efficiency, 0.5 * f, 1e-12);
  EXPECT_NEAR(capped.attention_backward_efficiency, 0.45 * f, 1e-12);
  EXPECT_NEAR(capped.fp8_gemm_efficiency, 0.6 * f, 1e-12);
  EXPECT_DOUBLE_EQ(capped.hbm_Bps, full.hbm_Bps);
  EXPECT_DOUBLE_EQ(capped.elementwise_Bps, full.elementwise_Bps);
  EXPECT_DOUBLE_EQ(capped.peak_flops, full.peak_flops);  // MFU stays against the datasheet peak
  // A compute-bound GEMM (one full wave of 132 tiles, long reduction) takes 1 / f as long.
  const Gemm g{12 * 128, 11 * 128, 16384, 1};
  EXPECT_NEAR(GemmTime(g, capped) / GemmTime(g, full), 1.0 / f, 1e-9);
  // A memory-bound one (k = 8) is not slowed.
  const Gemm thin{8192, 8192, 8, 1};
  EXPECT_DOUBLE_EQ(GemmTime(thin, capped), GemmTime(thin, full));
}

TEST(GpuPower, ASetObtainedAtACapIsNotCappedTwice) {
  const double f = std::cbrt(412.0 / 612.0);
  // Fitted on 500 W parts, run on 500 W parts: the set as it is.
  EXPECT_DOUBLE_EQ(MakeComputeRates(H100(500), Cal(500)).gemm_efficiency, 0.7);
  EXPECT_DOUBLE_EQ(TensorClockFactor(H100(500), 500), 1.0);
  // The same set on a 700 W part: its clock is 1 / f higher.
  EXPECT_NEAR(MakeComputeRates(H100(0), Cal(500)).gemm_efficiency, 0.7 / f, 1e-12);
}

TEST(GpuPower, APartWithoutPowerDataIsNeverScaled) {
  GpuSpec g = H100(0);
  g.name = "V100-SXM3-32GB";
  GpuPowerRange p;
  EXPECT_FALSE(FindGpuPowerRange(g, &p));
  EXPECT_DOUBLE_EQ(TensorClockFactor(g, 500), 1.0);
  EXPECT_TRUE(PowerModelText(g, 0).empty());
  // Parts are told apart by name: H100 NVL and PCIe have their own datasheet ranges.
  g.name = "H100-NVL-94GB";
  ASSERT_TRUE(FindGpuPowerRange(g, &p));
  EXPECT_EQ(p.min_W, 350);
  EXPECT_EQ(p.default_W, 400);
  g.name = "H100-PCIe-80GB";
  ASSERT_TRUE(FindGpuPowerRange(g, &p));
  EXPECT_EQ(p.default_W, 350);
}

}  // namespace
}  // namespace zerosim::model
