// The memory validation group (issue 34 item 4): an [[expect]] of metric "peak_reserved_GiB" is compared with
// the variant's modelled reserved memory (model/report/memory.h reserved_bytes, the caching allocator's peak
// reserved), and `zerosim validate`'s group summary prints its median, worst and mean signed error. The point is
// computed from the report the evaluation produced, not written here.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "study/scenario_runner.h"
#include "study/validation.h"
#include "test_inputs.h"

namespace zerosim::study {
namespace {

constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;

StatusOr<io::Scenario> Load(const std::string& expect) {
  std::string text = testing::kScenario;
  text.replace(text.find("name = \"test\"\n"), 14, "name = \"test\"\ngroup = \"memory: test\"\n");
  return io::LoadScenario(io::MemoryFileSource(testing::InputFiles(text + expect)), "s.toml");
}

TEST(MemoryValidation, ThePointIsTheReportsReservedMemoryInGiB) {
  StatusOr<io::Scenario> s = Load(
      "\n[[expect]]\nvariant = \"ZeRO-3\"\nmetric = \"peak_reserved_GiB\"\nvalue = 10\ntolerance = 0.15\n"
      "source = \"test\"\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->expectations.size(), 1u);
  EXPECT_EQ(s->expectations[0].metric, io::Metric::kPeakReservedGiB);
  EXPECT_STREQ(io::MetricName(io::Metric::kPeakReservedGiB), "peak_reserved_GiB");
  StatusOr<model::Report> r = EvaluateScenario(*s, Engine::kAnalytic);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<PointResult> points = CheckExpectations(*s, *r, "analytic");
  ASSERT_EQ(points.size(), 1u);
  const model::MemoryBreakdown& m = r->variants[0].memory;
  // reserved: below the total (the CUDA context and NCCL's buffers lie outside the allocator), above the
  // tensors (the rounding at least).
  EXPECT_GT(m.reserved_bytes, m.active_bytes);
  EXPECT_LT(m.reserved_bytes, m.total_bytes);
  EXPECT_DOUBLE_EQ(points[0].simulated, m.reserved_bytes / kGiBytes);
  EXPECT_DOUBLE_EQ(points[0].error, (points[0].simulated - 10) / 10);
  EXPECT_EQ(points[0].group, "memory: test");
  // The summary row of the group, with its three statistics.
  const std::string summary = FormatGroupSummary(points);
  EXPECT_NE(summary.find("memory: test"), std::string::npos) << summary;
  EXPECT_NE(summary.find("peak_reserved_GiB"), std::string::npos) << summary;
  EXPECT_NE(FormatValidation(points).find("every point within 15%"), std::string::npos);
}

TEST(MemoryValidation, AnUnknownMetricNamesTheMemoryOne) {
  StatusOr<io::Scenario> s =
      Load("\n[[expect]]\nvariant = \"ZeRO-3\"\nmetric = \"peak_GiB\"\nvalue = 10\ntolerance = 0.15\n"
           "source = \"test\"\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("peak_reserved_GiB"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace zerosim::study
