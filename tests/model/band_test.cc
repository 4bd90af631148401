// The band on every answer (model/report/band.h): percentiles, the group a key gets, and the shipped table.
#include <gtest/gtest.h>

#include "model/cost/compute_cost.h"
#include "model/io/band_loader.h"
#include "model/report/band.h"

namespace zerosim::model {
namespace {

TEST(Band, PercentilesInterpolateBetweenOrderStatistics) {
  // 21 ratios 0.90, 0.91, ..., 1.10: the 5th percentile is the second value, the 95th the twentieth.
  std::vector<double> r;
  for (int i = 20; i >= 0; --i) r.push_back(0.90 + 0.01 * i);
  double lo = 0, hi = 0;
  RatioPercentiles(r, &lo, &hi);
  EXPECT_NEAR(lo, 0.91, 1e-12);
  EXPECT_NEAR(hi, 1.09, 1e-12);
}

TEST(Band, OwnGroupDerivedGroupWidenedElseTheWidest) {
  BandTable t;
  t.groups = {{"A100 fsdp compute", 40, 0.9, 1.1, "x"}, {"H100 fsdp compute", 30, 0.95, 1.05, "y"},
              {"A100 deepspeed comm", 20, 0.5, 0.8, "z"}};
  t.derived_widening = 1.1;
  const Band own = BandFor(t, "H100 fsdp compute");
  EXPECT_TRUE(own.validated);
  EXPECT_EQ(own.n, 30);
  EXPECT_DOUBLE_EQ(own.low, 0.95);
  const Band derived = BandFor(t, "H200 fsdp compute", "H100");
  EXPECT_FALSE(derived.validated);
  EXPECT_EQ(derived.group, "H100 fsdp compute");
  EXPECT_NEAR(derived.low, 0.95 / 1.1, 1e-12);
  EXPECT_NEAR(derived.high, 1.05 * 1.1, 1e-12);
  const Band outside = BandFor(t, "B200 deepspeed comm");
  EXPECT_FALSE(outside.validated);
  EXPECT_DOUBLE_EQ(outside.low, 0.5);
  EXPECT_DOUBLE_EQ(outside.high, 1.1);
}

TEST(Band, KeyFromGpuNameFrameworkAndExposedShare) {
  EXPECT_EQ(GpuFamily("A100-SXM4-80GB"), "A100");
  EXPECT_EQ(GpuFamily("H100-SXM5-80GB"), "H100");
  EXPECT_EQ(BandKey("A100", "fsdp", false, 1.0, 10.0), "A100 fsdp compute");
  EXPECT_EQ(BandKey("A100", "deepspeed", false, 2.0, 10.0), "A100 deepspeed comm");
  // Tensor-parallel runs are their own groups.
  EXPECT_EQ(BandKey("A100", "deepspeed", true, 2.0, 10.0), "A100 deepspeed tp comm");
  EXPECT_EQ(BandKey("A100", "deepspeed", true, 1.0, 10.0), "A100 deepspeed tp compute");
}

TEST(Band, ShippedTableParsesAndRoundTrips) {
  const BandTable& t = io::ShippedBands();
  ASSERT_FALSE(t.groups.empty()) << "kernels/calibration/bands.json did not parse or holds no group";
  for (const BandGroup& g : t.groups) {
    EXPECT_GT(g.n, 0) << g.key;
    EXPECT_LE(g.low, g.high) << g.key;
  }
  StatusOr<BandTable> back = io::ParseBands(io::BandsJson(t, "test"), "round.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->groups.size(), t.groups.size());
  EXPECT_DOUBLE_EQ(back->groups.front().high, t.groups.front().high);
  EXPECT_FALSE(io::ParseBands(R"({"format": "zerosim-bands-1", "groups": [{"key": "x", "n": 0, "low": 1, "high": 1}]})",
                              "bad.json").ok());
}

TEST(ComputeCost, ShortReductionsRollOff) {
  EXPECT_DOUBLE_EQ(ReductionUtilisation(768, 0), 1.0);
  EXPECT_NEAR(ReductionUtilisation(768, 768), 0.5, 1e-12);
  ComputeRates r;
  r.peak_flops = 100e12;
  r.gemm_efficiency = 0.8;
  r.hbm_Bps = 1e15;  // no roofline
  r.elementwise_Bps = 1e15;
  r.gemm_k_half = 1000;
  const Gemm g{16384, 4096, 1000, 1};
  // 2 m n k / (peak x 0.8 x 1000 / 2000); no wave loss without SMs.
  EXPECT_NEAR(GemmTime(g, r), g.flops() / (100e12 * 0.8 * 0.5), 1e-15);
}

}  // namespace
}  // namespace zerosim::model
