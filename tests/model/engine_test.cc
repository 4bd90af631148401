// The one Engine interface (model/report/engine.h): a plain variant (EvaluateVariant) and a pipeline
// (ComposePipeline) are compositions over whatever engine they are given. An engine that reports twice the
// analytic iteration doubles a plain variant's time and names itself in the report; one whose sends between
// stages are slower lengthens a pipeline's iteration; the analytic engine gives EvaluateAnalyticVariant's report.
#include <gtest/gtest.h>

#include <utility>

#include "model/report/engine.h"
#include "model/report/evaluate.h"
#include "model/report/pipeline_evaluate.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

// The analytic engine with its iteration scaled by `time_factor` and its sends slowed by `send_extra_s`.
class SkewedEngine final : public Engine {
 public:
  SkewedEngine(const Calibration& cal, double time_factor, double send_extra_s)
      : analytic_(cal), time_factor_(time_factor), send_extra_s_(send_extra_s) {}
  const char* name() const override { return "skewed"; }
  StatusOr<TimedSchedule> Time(const Schedule& s, const ClusterSpec& c, bool timeline) override {
    StatusOr<TimedSchedule> t = analytic_.Time(s, c, timeline);
    if (!t.ok()) return t;
    TimedSchedule out = std::move(t).value();
    out.timing.iteration_s *= time_factor_;
    return out;
  }
  StatusOr<double> SendSeconds(double bytes, const ClusterSpec& c, const ParallelLayout& l) override {
    StatusOr<double> s = analytic_.SendSeconds(bytes, c, l);
    if (!s.ok()) return s;
    return *s + send_extra_s_;
  }

 private:
  AnalyticEngine analytic_;
  double time_factor_;
  double send_extra_s_;
};

ZeroConfig Zero1() {
  ZeroConfig z;
  z.strategy = Strategy::kZero1;
  z.framework = Framework::kDeepSpeed;
  z.gradient_accumulation_steps = 8;
  return z;
}

TEST(Engine, APlainVariantIsTimedByTheEngineItIsGiven) {
  const ModelSpec m = testing::Gpt(8, 2048, 16);
  const ClusterSpec c = testing::PaperCluster(4, 4, 8);
  const Calibration cal = testing::TestCalibration();
  const ZeroConfig z;
  AnalyticEngine analytic(cal);
  const StatusOr<VariantReport> a = EvaluateVariant("a", {m, z, c, cal}, analytic);
  ASSERT_TRUE(a.ok()) << a.status().message();
  const VariantReport reference = EvaluateAnalyticVariant("a", {m, z, c, cal});
  EXPECT_EQ(a->engine, "analytic");
  EXPECT_DOUBLE_EQ(a->iteration_time_s, reference.iteration_time_s);
  SkewedEngine skewed(cal, 2.0, 0.0);
  const StatusOr<VariantReport> b = EvaluateVariant("b", {m, z, c, cal}, skewed);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->engine, "skewed");
  EXPECT_DOUBLE_EQ(b->iteration_time_s, 2.0 * reference.iteration_time_s);
}

TEST(Engine, APipelineTakesItsSendsFromTheEngine) {
  const ModelSpec m = testing::Gpt(16, 2048, 16);
  const ClusterSpec c = testing::PaperCluster(4, 8, 8);
  const Calibration cal = testing::TestCalibration();
  const ZeroConfig z = Zero1();
  ParallelLayout l;
  l.pipeline = 4;
  AnalyticEngine analytic(cal);
  SkewedEngine slow_sends(cal, 1.0, 1e-3);  // 1 ms more per send
  const StatusOr<VariantReport> a = EvaluateVariant("pp", {m, z, c, cal, l}, analytic);
  const StatusOr<VariantReport> b = EvaluateVariant("pp", {m, z, c, cal, l}, slow_sends);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_DOUBLE_EQ(a->iteration_time_s, EvaluateAnalyticVariant("pp", {m, z, c, cal, l}).iteration_time_s);
  // 8 micro-batches through 4 stages: at least the (p - 1) sends of the fill and of the drain wait 1 ms more.
  EXPECT_GE(b->iteration_time_s - a->iteration_time_s, 2 * 3 * 1e-3 - 1e-12);
  EXPECT_EQ(b->engine, "skewed");
}

}  // namespace
}  // namespace zerosim::model
