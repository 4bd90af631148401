#include "model/spec/calibration.h"

#include <gtest/gtest.h>

#include "model/cost/kernel_cost.h"

namespace zerosim::model {
namespace {

TEST(Calibration, LeastSquaresRecoversAlphaAndBeta) {
  std::vector<KernelPoint> pts;
  for (double bytes : {4096.0, 1e6, 1e8, 1e9}) pts.push_back({bytes, 5e-6 + bytes / 3e12});
  const KernelFit f = FitKernel(pts);
  EXPECT_NEAR(f.alpha_s, 5e-6, 1e-12);
  EXPECT_NEAR(f.beta_Bps / 3e12, 1.0, 1e-9);
}

TEST(Calibration, NegativeInterceptIsClampedToZero) {
  // Points through the origin minus noise at the small end.
  const std::vector<KernelPoint> pts = {{1e6, 0.1e-6}, {1e9, 1e-3}, {2e9, 2e-3}};
  const KernelFit f = FitKernel(pts);
  EXPECT_EQ(f.alpha_s, 0.0);
  EXPECT_NEAR(f.beta_Bps / 1e12, 1.0, 1e-3);
}

TEST(KernelCost, BytesAreTheFewestTheKernelMustMove) {
  // int8 quantization of n fp16 values, groups of 8000: 2 + 1 + 4/8000 bytes per element.
  EXPECT_DOUBLE_EQ(KernelBytes(Kernel::kQuantizeInt8, 1000, 8, 8000, 1), 1000 * (3 + 4.0 / 8000));
  EXPECT_DOUBLE_EQ(KernelBytes(Kernel::kDequantizeInt4, 1000, 4, 64, 1), 1000 * (2.5 + 4.0 / 64));
  // Fused 16-way dequantize-reduce-requantize: 17 x (0.5 + 4/B) per output element.
  EXPECT_DOUBLE_EQ(KernelBytes(Kernel::kDequantReduceQuantInt4, 1000, 4, 2048, 16), 1000 * 17 * (0.5 + 4.0 / 2048));
  EXPECT_DOUBLE_EQ(KernelBytes(Kernel::kDequantReduceInt4, 1000, 4, 2048, 24), 1000 * (24 * (0.5 + 4.0 / 2048) + 2));
}

}  // namespace
}  // namespace zerosim::model
