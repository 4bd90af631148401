// The bands from validation points (study/bands.h): out-of-sample ratios, leave-one-group-out coverage, the
// spread between software generations, and the calibration set's out-of-sample records (study/loo_record.h).
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "model/spec/gpu_power.h"
#include "study/bands.h"
#include "study/loo_record.h"

namespace zerosim::study {
namespace {

PointResult Point(const std::string& group, const std::string& key, double published, double simulated) {
  PointResult p;
  p.engine = "analytic";
  p.scenario = "s.toml";
  p.variant = group + std::to_string(published);
  p.metric = io::Metric::kTokensPerSPerGpu;
  p.group = group;
  p.band_key = key;
  p.published = published;
  p.simulated = simulated;
  return p;
}

TEST(Bands, TheTableUsesOutOfSamplePredictions) {
  std::vector<PointResult> points;
  for (int i = 0; i < 10; ++i) points.push_back(Point("cal", "H100 fsdp compute", 100, 100));
  // In sample every ratio is 1; out of sample (a fit without the point's model size) they spread.
  for (int i = 0; i < 10; ++i) points[i].simulated_out_of_sample = 90 + 2 * i;
  const model::BandTable t = BuildBandTable(points, 1.2);
  const model::Band b = model::BandFor(t, "H100 fsdp compute");
  EXPECT_LT(b.low, 0.95);
  EXPECT_GT(b.high, 1.05);
  EXPECT_DOUBLE_EQ(t.derived_widening, 1.2);
}

TEST(Bands, CoverageLeavesTheWholeGroupOut) {
  std::vector<PointResult> points;
  // Group a: unbiased; group b: the model 50% too fast. Each alone on its key.
  for (int i = 0; i < 12; ++i) points.push_back(Point("a", "A100 fsdp compute", 100 + i, 100));
  for (int i = 0; i < 12; ++i) points.push_back(Point("b", "A100 fsdp comm", 60 + i, 100));
  const std::vector<GroupCoverage> c = BandCoverage(points, 1.1);
  ASSERT_EQ(c.size(), 2u);
  // Without b, b's key has no point: it falls back to a's (A100 fsdp, every ratio 1.00-1.11): none of b inside.
  for (const GroupCoverage& g : c) {
    EXPECT_EQ(g.n, 12);
    if (g.group == "b") {
      EXPECT_EQ(g.inside, 0);
      // The shipped band of b's key is its own: biased, so the headline is centred on its median.
      EXPECT_TRUE(g.shipped.validated);
      EXPECT_NEAR(g.shipped.center, 0.655, 1e-9);
      EXPECT_TRUE(model::HeadlineInsideBand(g.shipped));
    } else {
      EXPECT_EQ(g.inside, 0);  // without a, a's key falls back to b's points (0.60-0.71)
    }
  }
}

TEST(Bands, GenerationSpreadIsTheLargestGemmRatioOfOneGpusEmpiricalSets) {
  model::Calibration a;
  a.path = "a100.json";
  model::ComputeEfficiency old_set, new_set, derived;
  old_set.kind = new_set.kind = "empirical";
  old_set.software = "pytorch-1.13";
  old_set.gemm = 0.674;
  new_set.software = "pytorch-2.1";
  new_set.gemm = 0.811;
  derived.gemm = 0.3;  // derived sets do not count
  a.compute_sets = {new_set, old_set, derived};
  std::string how;
  EXPECT_NEAR(GenerationSpread({a}, &how), 0.811 / 0.674, 1e-12);
  EXPECT_NE(how.find("pytorch-2.1 over pytorch-1.13"), std::string::npos) << how;
  model::Calibration one;
  one.compute_sets = {new_set};
  EXPECT_DOUBLE_EQ(GenerationSpread({one}, &how), 1.1);
  // A set fitted on power-capped parts counts at the part's default limit (the power model's clock factor): only
  // what the cap does not explain is spread.
  model::Calibration h;
  h.path = "h100.json";
  h.gpu = "H100-SXM5-80GB";
  model::ComputeEfficiency capped = new_set;
  capped.software = "torchtitan-2024-12";
  capped.gemm = 0.521;
  capped.power_limit_W = 500;
  model::ComputeEfficiency full = new_set;
  full.gemm = 0.780;
  h.compute_sets = {full, capped};
  model::GpuSpec gpu;
  gpu.name = h.gpu;
  const double at_default = 0.521 * model::TensorClockFactor(gpu, 500);
  EXPECT_GT(at_default, 0.521);
  EXPECT_NEAR(GenerationSpread({h}, &how), 0.780 / at_default, 1e-12);
  EXPECT_LT(GenerationSpread({h}, &how), 0.780 / 0.521);
  EXPECT_NE(how.find("default power limit"), std::string::npos) << how;
}

TEST(Bands, LooRecordsRoundTripAndAStaleRecordIsAnError) {
  const std::string scenario = testing::TempDir() + "/loo_case.toml";
  std::vector<PointResult> predicted = {Point("cal", "k", 100, 95), Point("cal", "k", 200, 210)};
  for (PointResult& p : predicted) p.scenario = scenario;
  {
    std::ofstream out(LooRecordPath(scenario));
    out << LooRecordJson(predicted, scenario, "zerosim fit test");
  }
  EXPECT_EQ(LooRecordPath("a/b.toml"), "a/b.loo.json");
  std::vector<PointResult> points = predicted;
  points[0].simulated = points[1].simulated = 100;  // in sample
  ASSERT_TRUE(ApplyLooRecord(scenario, &points).ok());
  EXPECT_DOUBLE_EQ(points[0].simulated_out_of_sample, 95);
  EXPECT_DOUBLE_EQ(points[1].simulated_out_of_sample, 210);
  EXPECT_DOUBLE_EQ(points[1].OutOfSampleRatio(), 200.0 / 210);
  // A point the record lacks: stale.
  points.push_back(Point("cal", "k", 300, 300));
  points.back().scenario = scenario;
  const Status st = ApplyLooRecord(scenario, &points);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("stale"), std::string::npos) << st.message();
  // No record: nothing set, no error.
  std::vector<PointResult> none = {Point("x", "k", 1, 1)};
  none[0].scenario = testing::TempDir() + "/no_such.toml";
  EXPECT_TRUE(ApplyLooRecord(none[0].scenario, &none).ok());
  EXPECT_DOUBLE_EQ(none[0].simulated_out_of_sample, 0);
  std::remove(LooRecordPath(scenario).c_str());
}

}  // namespace
}  // namespace zerosim::study
