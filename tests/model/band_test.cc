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

TEST(Band, OwnGroupDerivedGroupWidenedParentWhenFewElseEveryPointWidened) {
  BandTable t;
  // BandGroup: key, n, low, high, sources, median.
  t.groups = {{"", 100, 0.6, 1.2, "all", 0.97},
              {"A100", 60, 0.5, 1.1, "a", 0.9},
              {"A100 sw1", 60, 0.5, 1.1, "a", 0.9},
              {"A100 sw1 fsdp", 40, 0.9, 1.1, "x", 1.0},
              {"A100 sw1 fsdp compute", 40, 0.9, 1.1, "x", 1.0},
              {"A100 sw1 deepspeed", 22, 0.5, 1.05, "z", 0.7},
              {"A100 sw1 deepspeed comm", 20, 0.5, 0.8, "z", 0.65},
              {"A100 sw1 deepspeed tp comm", 2, 0.95, 0.98, "w", 0.96},
              {"H100", 30, 0.95, 1.05, "y", 1.0},
              {"H100 sw1", 30, 0.95, 1.05, "y", 1.0},
              {"H100 sw1 fsdp", 30, 0.95, 1.05, "y", 1.0},
              {"H100 sw1 fsdp compute", 30, 0.95, 1.05, "y", 1.0}};
  t.derived_widening = 1.2;
  t.min_points = 10;
  const Band own = BandFor(t, "H100 sw1 fsdp compute");
  EXPECT_TRUE(own.validated);
  EXPECT_EQ(own.n, 30);
  EXPECT_DOUBLE_EQ(own.low, 0.95);
  EXPECT_DOUBLE_EQ(own.center, 1.0);  // the band holds the model's value: the headline is the model's
  // Compute derived from H100's fit: H100's group, widened by the generations' spread.
  const Band derived = BandFor(t, "H200 sw1 fsdp compute", "H100");
  EXPECT_FALSE(derived.validated);
  EXPECT_EQ(derived.group, "H100 sw1 fsdp compute");
  EXPECT_NEAR(derived.low, 0.95 / 1.2, 1e-12);
  EXPECT_NEAR(derived.high, 1.05 * 1.2, 1e-12);
  // Two points are too few for a band of their own: the parent's ("A100 sw1 deepspeed tp", absent: "A100 sw1 deepspeed").
  const Band few = BandFor(t, "A100 sw1 deepspeed tp comm");
  EXPECT_FALSE(few.validated);
  EXPECT_EQ(few.group, "A100 sw1 deepspeed");
  EXPECT_DOUBLE_EQ(few.low, 0.5);
  EXPECT_NE(few.note.find("too few"), std::string::npos) << few.note;
  // A family no point validates: every point's band, widened.
  const Band outside = BandFor(t, "B200 sw1 deepspeed comm");
  EXPECT_FALSE(outside.validated);
  EXPECT_EQ(outside.group, "all");
  EXPECT_NEAR(outside.low, 0.6 / 1.2, 1e-12);
  EXPECT_NEAR(outside.high, 1.2 * 1.2, 1e-12);
  // A software generation no point of the family ran on: the family's band, widened (off the calibrated ground).
  const Band other_stack = BandFor(t, "H100 sw2 fsdp compute");
  EXPECT_FALSE(other_stack.validated);
  EXPECT_EQ(other_stack.group, "H100");
  EXPECT_NEAR(other_stack.low, 0.95 / 1.2, 1e-12);
  EXPECT_NEAR(other_stack.high, 1.05 * 1.2, 1e-12);
}

TEST(Band, ABandThatExcludesTheModelCentresTheHeadlineOnTheMedian) {
  BandTable t;
  t.groups = {{"", 20, 0.5, 1.1, "all", 0.8}, {"A100", 20, 0.5, 1.1, "all", 0.8},
              {"A100 deepspeed", 20, 0.5, 0.8, "z", 0.65}, {"A100 deepspeed comm", 20, 0.5, 0.8, "z", 0.65}};
  const Band b = BandFor(t, "A100 deepspeed comm");
  EXPECT_DOUBLE_EQ(b.center, 0.65);
  EXPECT_TRUE(HeadlineInsideBand(b));
  // A model value of 244,459 tokens/s reads 158,898 [122,230-195,567]: inside, unlike the model's own.
  EXPECT_GE(244459 * b.center, 244459 * b.low);
  EXPECT_LE(244459 * b.center, 244459 * b.high);
  Band broken = b;
  broken.center = 1;
  EXPECT_FALSE(HeadlineInsideBand(broken));
}

TEST(Band, GroupsForEveryKeyAndParentWithMedians) {
  std::vector<BandPoint> p;
  for (int i = 0; i < 10; ++i) p.push_back({"A100 fsdp compute", "g1", 0.9 + 0.02 * i});
  p.push_back({"A100 deepspeed comm", "g2", 0.6});
  const std::vector<BandGroup> g = BuildBandGroups(p);
  auto find = [&](const std::string& k) -> const BandGroup* {
    for (const BandGroup& x : g) {
      if (x.key == k) return &x;
    }
    return nullptr;
  };
  ASSERT_NE(find(""), nullptr);
  EXPECT_EQ(find("")->n, 11);
  ASSERT_NE(find("A100"), nullptr);
  EXPECT_EQ(find("A100")->n, 11);
  EXPECT_EQ(find("A100 fsdp")->n, 10);
  EXPECT_EQ(find("A100 deepspeed comm")->n, 1);
  EXPECT_NEAR(find("A100 fsdp compute")->median, 0.99, 1e-12);
  EXPECT_EQ(find("A100")->sources, "g1; g2");
  EXPECT_EQ(ParentBandKey("A100 fsdp compute"), "A100 fsdp");
  EXPECT_EQ(ParentBandKey("A100"), "");
}

TEST(Band, KeyFromGpuNameFrameworkAndExposedShare) {
  EXPECT_EQ(GpuFamily("A100-SXM4-80GB"), "A100");
  EXPECT_EQ(GpuFamily("H100-SXM5-80GB"), "H100");
  EXPECT_EQ(BandKey("A100", "pytorch-2.1", "fsdp", false, 1.0, 10.0), "A100 pytorch-2.1 fsdp compute");
  EXPECT_EQ(BandKey("A100", "pytorch-2.1", "deepspeed", false, 2.0, 10.0), "A100 pytorch-2.1 deepspeed comm");
  // Tensor-parallel runs are their own groups, and so is each software generation.
  EXPECT_EQ(BandKey("H100", "megatron-core-2025", "deepspeed", true, 2.0, 10.0),
            "H100 megatron-core-2025 deepspeed tp comm");
  EXPECT_EQ(BandKey("A100", "pytorch-2.1", "deepspeed", true, 1.0, 10.0), "A100 pytorch-2.1 deepspeed tp compute");
  EXPECT_EQ(BandKey("A100", "", "fsdp", false, 1.0, 10.0), "A100 unstated-software fsdp compute");
}

TEST(Band, ShippedTableParsesAndRoundTrips) {
  const BandTable& t = io::ShippedBands();
  ASSERT_FALSE(t.groups.empty()) << "kernels/calibration/bands.json did not parse or holds no group";
  for (const BandGroup& g : t.groups) {
    EXPECT_GT(g.n, 0) << g.key;
    EXPECT_LE(g.low, g.high) << g.key;
    EXPECT_GE(g.median, g.low) << g.key;
    EXPECT_LE(g.median, g.high) << g.key;
    // Every shipped band holds its own headline.
    EXPECT_TRUE(HeadlineInsideBand(BandFor(t, g.key))) << g.key;
  }
  StatusOr<BandTable> back = io::ParseBands(io::BandsJson(t, "test"), "round.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->groups.size(), t.groups.size());
  EXPECT_DOUBLE_EQ(back->groups.front().high, t.groups.front().high);
  EXPECT_DOUBLE_EQ(back->groups.front().median, t.groups.front().median);
  EXPECT_EQ(back->min_points, t.min_points);
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
