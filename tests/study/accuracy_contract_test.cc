// The accuracy contract (study/accuracy_contract.h): per-group limits with reasons, read strictly, and checked
// against a run's validation points.
#include <gtest/gtest.h>

#include "study/accuracy_contract.h"

namespace zerosim::study {
namespace {

PointResult Point(const std::string& group, double error, io::Metric metric = io::Metric::kTflopsPerGpu) {
  PointResult p;
  p.engine = "analytic";
  p.group = group;
  p.metric = metric;
  p.published = 100;
  p.simulated = 100 * (1 + error);
  p.error = error;
  return p;
}

const char* kContract = R"(
[[limit]]
group = "g1"
metric = "tflops_per_gpu"
median_max = 0.05
worst_max = 0.10
mean_signed_max = 0.03
reason = "the issue's target"

[[limit]]
group = "g2"
metric = "speedup"
median_max = 0.08
reason = "today's value; target 5%"
)";

TEST(AccuracyContract, ParsesLimitsWithDefaults) {
  StatusOr<AccuracyContract> c = ParseAccuracyContract(kContract, "c.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->limits.size(), 2u);
  EXPECT_EQ(c->limits[0].engine, "analytic");
  EXPECT_DOUBLE_EQ(c->limits[0].worst_max, 0.10);
  EXPECT_EQ(c->limits[1].metric, io::Metric::kSpeedup);
  EXPECT_LT(c->limits[1].worst_max, 0);  // not limited
  EXPECT_EQ(c->limits[1].place, "c.toml:10:1");
}

TEST(AccuracyContract, BadFilesNameFileLineAndKey) {
  auto error = [](const std::string& text) {
    StatusOr<AccuracyContract> c = ParseAccuracyContract(text, "c.toml");
    EXPECT_FALSE(c.ok()) << text;
    return c.ok() ? std::string() : c.status().message();
  };
  EXPECT_NE(error("x = 1").find("limit"), std::string::npos);
  const std::string no_reason = error("[[limit]]\ngroup = \"g\"\nmetric = \"speedup\"\nmedian_max = 0.1\n");
  EXPECT_NE(no_reason.find("c.toml:"), std::string::npos) << no_reason;
  EXPECT_NE(no_reason.find("reason"), std::string::npos) << no_reason;
  const std::string metric = error("[[limit]]\ngroup = \"g\"\nmetric = \"mfu\"\nmedian_max = 0.1\nreason = \"r\"\n");
  EXPECT_NE(metric.find("c.toml:3:"), std::string::npos) << metric;
  EXPECT_NE(metric.find("unknown metric"), std::string::npos) << metric;
  const std::string typo =
      error("[[limit]]\ngroup = \"g\"\nmetric = \"speedup\"\nmedian_max = 0.1\nworst = 0.2\nreason = \"r\"\n");
  EXPECT_NE(typo.find("worst"), std::string::npos) << typo;
  const std::string twice = error(std::string(kContract) + "[[limit]]\ngroup = \"g1\"\nmetric = \"tflops_per_gpu\"\n"
                                                           "median_max = 0.2\nreason = \"again\"\n");
  EXPECT_NE(twice.find("a second limit"), std::string::npos) << twice;
  EXPECT_NE(error("[[limit]]\ngroup = \"g\"\nmetric = \"speedup\"\nmedian_max = 0.1\nworst_max = 0.05\n"
                  "reason = \"r\"\n")
                .find("below median_max"),
            std::string::npos);
  EXPECT_NE(error("[[limit]]\ngroup = \"g\"\nmetric = \"speedup\"\nreason = \"r\"\n").find("median_max"),
            std::string::npos);
}

TEST(AccuracyContract, PassesWithinLimitsAndFailsEachBrokenOne) {
  const AccuracyContract c = ParseAccuracyContract(kContract, "c.toml").value();
  std::vector<PointResult> ok = {Point("g1", 0.02), Point("g1", -0.04), Point("g1", 0.09),
                                 Point("g2", 0.07, io::Metric::kSpeedup)};
  EXPECT_TRUE(CheckAccuracyContract(c, ok, true).failures.empty());
  // Worst 12% > 10%; median 4% still within.
  std::vector<PointResult> worst = ok;
  worst[0] = Point("g1", -0.02);  // the mean stays at 2%
  worst[2] = Point("g1", 0.12);
  ContractCheck w = CheckAccuracyContract(c, worst, true);
  ASSERT_EQ(w.failures.size(), 1u);
  EXPECT_NE(w.failures[0].find("worst |error| 12.00% > 10.00%"), std::string::npos) << w.failures[0];
  EXPECT_NE(w.failures[0].find("c.toml:2:1"), std::string::npos) << w.failures[0];
  // Every point +4%: median 4% within, mean signed 4% > 3%.
  std::vector<PointResult> biased = {Point("g1", 0.04), Point("g1", 0.04), Point("g1", 0.04),
                                     Point("g2", 0.0, io::Metric::kSpeedup)};
  ContractCheck b = CheckAccuracyContract(c, biased, true);
  ASSERT_EQ(b.failures.size(), 1u);
  EXPECT_NE(b.failures[0].find("mean signed"), std::string::npos) << b.failures[0];
  // Median 9% > 8% on g2.
  std::vector<PointResult> median = ok;
  median[3] = Point("g2", -0.09, io::Metric::kSpeedup);
  EXPECT_EQ(CheckAccuracyContract(c, median, true).failures.size(), 1u);
}

TEST(AccuracyContract, EveryGroupUnderContractAndNoLimitWithoutPointsOnAFullRun) {
  const AccuracyContract c = ParseAccuracyContract(kContract, "c.toml").value();
  // g2 not run: a failure on a full run, "not run" on a partial one.
  std::vector<PointResult> only_g1 = {Point("g1", 0.0)};
  EXPECT_EQ(CheckAccuracyContract(c, only_g1, true).failures.size(), 1u);
  const ContractCheck partial = CheckAccuracyContract(c, only_g1, false);
  EXPECT_TRUE(partial.failures.empty());
  EXPECT_NE(partial.table.find("not run"), std::string::npos);
  // A group without a limit fails, whatever its errors.
  std::vector<PointResult> extra = {Point("g1", 0.0), Point("g2", 0.0, io::Metric::kSpeedup), Point("g3", 0.0)};
  const ContractCheck e = CheckAccuracyContract(c, extra, true);
  ASSERT_EQ(e.failures.size(), 1u);
  EXPECT_NE(e.failures[0].find("g3"), std::string::npos);
  // Sim-engine points of a contract that limits only the analytic engine are not judged.
  PointResult sim = Point("g9", 0.5);
  sim.engine = "sim";
  EXPECT_TRUE(CheckAccuracyContract(c, {Point("g1", 0.0), Point("g2", 0.0, io::Metric::kSpeedup), sim}, true)
                  .failures.empty());
}

// The NCCL points' limits ([[nccl_limit]]): read with the group limits, each source checked on its median, worst
// and mean signed error; a source without a limit and a limit without a source fail.
TEST(AccuracyContract, NcclLimitsGateEachSource) {
  const std::string text = std::string(kContract) + R"(
[[nccl_limit]]
source = "all"
median_max = 0.20
mean_signed_max = 0.10
reason = "today's value"

[[nccl_limit]]
source = "s1 [nccl-tests]"
median_max = 0.10
worst_max = 0.30
reason = "today's value"
)";
  StatusOr<AccuracyContract> c = ParseAccuracyContract(text, "c.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->nccl_limits.size(), 2u);
  EXPECT_LT(c->nccl_limits[0].worst_max, 0);  // not limited
  EXPECT_EQ(c->nccl_limits[1].place, "c.toml:22:1");

  auto summary = [](const std::string& source, double median, double worst, double mean) {
    NcclSummary m;
    m.source = source;
    m.n = 4;
    m.median_abs = median;
    m.worst_abs = worst;
    m.mean_signed = mean;
    return m;
  };
  EXPECT_TRUE(CheckNcclContract(*c, {summary("s1 [nccl-tests]", 0.08, 0.25, -0.05), summary("all", 0.15, 9.0, 0.08)})
                  .failures.empty());
  const ContractCheck worse =
      CheckNcclContract(*c, {summary("s1 [nccl-tests]", 0.08, 0.35, -0.05), summary("all", 0.15, 9.0, -0.12)});
  ASSERT_EQ(worse.failures.size(), 2u);
  EXPECT_NE(worse.failures[0].find("c.toml:16:1"), std::string::npos) << worse.failures[0];  // "all" first: file order
  EXPECT_NE(worse.failures[0].find("|mean signed error| 12.00% > 10.00%"), std::string::npos) << worse.failures[0];
  EXPECT_NE(worse.failures[1].find("worst |error| 35.00% > 30.00%"), std::string::npos) << worse.failures[1];
  const ContractCheck unlimited =
      CheckNcclContract(*c, {summary("s1 [nccl-tests]", 0.08, 0.25, 0), summary("s2 [torch]", 0.01, 0.01, 0)});
  ASSERT_EQ(unlimited.failures.size(), 2u);
  EXPECT_NE(unlimited.failures[0].find("\"all\": no such source"), std::string::npos) << unlimited.failures[0];
  EXPECT_NE(unlimited.failures[1].find("\"s2 [torch]\": no [[nccl_limit]]"), std::string::npos) << unlimited.failures[1];

  const StatusOr<AccuracyContract> twice = ParseAccuracyContract(
      std::string(kContract) + "[[nccl_limit]]\nsource = \"all\"\nmedian_max = 0.2\nreason = \"r\"\n"
                               "[[nccl_limit]]\nsource = \"all\"\nmedian_max = 0.3\nreason = \"r\"\n",
      "c.toml");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("a second limit for NCCL source"), std::string::npos);
}

}  // namespace
}  // namespace zerosim::study
