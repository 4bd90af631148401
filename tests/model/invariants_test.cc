// model/report/invariants.h: each invariant holds for a real evaluation, and each check catches its own
// violation (every test below fails if its check is removed from CheckInvariants).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "model/cost/placed_collectives.h"
#include "model/report/evaluate.h"
#include "model/report/invariants.h"
#include "model/builders/schedule_builder.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

class InvariantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = testing::PaperCluster(1, 4, 16);
    m_ = testing::Gpt(4, 1024, 16);
    z_.zero_quantized_weights = true;
    z_.zero_hpz_partition_size = 16;
    z_.zero_quantized_gradients = true;
    s_ = BuildSchedule(m_, z_, c_);
    t_ = EvaluateAnalytic(s_, c_, testing::TestCalibration(), false);
    r_ = AssembleVariant("ZeRO++", "analytic", m_, z_, c_, s_, t_, WireVolumes(s_, c_));
  }
  std::string Check() const { return CheckInvariants(r_, c_, s_, t_, WireVolumes(s_, c_)); }

  ClusterSpec c_;
  ModelSpec m_;
  ZeroConfig z_;
  Schedule s_;
  Timing t_;
  VariantReport r_;
};

TEST_F(InvariantsTest, AnEvaluatedVariantSatisfiesThem) {
  EXPECT_EQ(r_.invariant_violation, "");
  EXPECT_EQ(Check(), "");
  EXPECT_GT(LinkTimeLowerBound(c_, s_), 0);
}

TEST_F(InvariantsTest, NonFiniteOrNegativeNumbers) {
  r_.exposed_comm_s = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(Check().find("exposed_comm_s"), std::string::npos) << Check();
  SetUp();
  r_.memory.activations_bytes = -1;
  EXPECT_NE(Check().find("memory.activations_bytes"), std::string::npos) << Check();
  SetUp();
  r_.bytes.cross_node.gradient_reduce = std::numeric_limits<double>::infinity();
  EXPECT_NE(Check().find("cross_node.gradient_reduce_bytes"), std::string::npos) << Check();
}

TEST_F(InvariantsTest, AnIterationTakesTime) {
  // What a SimGrid deadlock used to report with exit status 0.
  r_.iteration_time_s = 0;
  EXPECT_NE(Check().find("an iteration takes time"), std::string::npos) << Check();
}

TEST_F(InvariantsTest, TflopsAbovePeak) {
  r_.tflops_per_gpu = c_.gpu.peak_flops / 1e12 * 1.58;  // plan's 1559.9 on a 989 TFLOPs H200
  EXPECT_NE(Check().find("TFLOPs per GPU above"), std::string::npos) << Check();
}

TEST_F(InvariantsTest, ComputeLongerThanTheIteration) {
  t_.compute_s = t_.iteration_s * 1.01;
  EXPECT_NE(Check().find("compute + optimizer"), std::string::npos) << Check();
}

TEST_F(InvariantsTest, LinksBusierThanTheIteration) {
  t_.iteration_s = LinkTimeLowerBound(c_, s_) * 0.99;
  t_.compute_s = 0;
  t_.optimizer_s = 0;
  EXPECT_NE(Check().find("links' busy time"), std::string::npos) << Check();
}

TEST_F(InvariantsTest, BytesNotConservedBetweenScheduleAndEngine) {
  TierVolumes engine = WireVolumes(s_, c_);
  engine.cross_node[static_cast<size_t>(Purpose::kGradientReduce)] *= 1.001;
  EXPECT_NE(CheckInvariants(r_, c_, s_, t_, engine).find("cross-node gradient"), std::string::npos);
  engine = WireVolumes(s_, c_);
  ASSERT_GT(engine.intra_node[static_cast<size_t>(Purpose::kForwardAllGather)], 0);
  engine.intra_node[static_cast<size_t>(Purpose::kForwardAllGather)] *= 0.5;
  EXPECT_NE(CheckInvariants(r_, c_, s_, t_, engine).find("intra-node forward"), std::string::npos)
      << CheckInvariants(r_, c_, s_, t_, engine);
}

TEST_F(InvariantsTest, MemoryPartsSumToTheTotal) {
  r_.memory.total_bytes += 1e6;
  EXPECT_NE(Check().find("memory parts"), std::string::npos) << Check();
}

TEST_F(InvariantsTest, AViolationIsAnErrorNamingScenarioAndVariant) {
  r_.invariant_violation = "tflops";
  const Status st = InvariantStatus("my scenario", r_);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("scenario 'my scenario', variant 'ZeRO++' (analytic engine)"),
            std::string::npos)
      << st.message();
  r_.invariant_violation.clear();
  EXPECT_TRUE(InvariantStatus("my scenario", r_).ok());
}

// The schedule is placed on the cluster it runs on: one built for another shape is refused loudly, and
// clusters of one shape that differ in links or fabric share one cached schedule.
TEST_F(InvariantsTest, ScheduleOfAnotherShapeIsAViolation) {
  ClusterSpec wider = c_;
  wider.nodes = c_.nodes * 2;
  EXPECT_NE(
      CheckInvariants(r_, wider, s_, t_, WireVolumes(s_, c_)).find("the schedule was built for 4 nodes"),
      std::string::npos);
  ScheduleCache cache;
  ClusterSpec fat = c_;
  fat.fabric.kind = FabricKind::kFatTree;
  fat.fabric.nodes_per_leaf = 2;
  fat.nic.bandwidth_Bps *= 2;
  cache.Get(m_, z_, c_);
  cache.Get(m_, z_, fat);
  EXPECT_EQ(cache.builds(), 1);
  cache.Get(m_, z_, wider);
  EXPECT_EQ(cache.builds(), 2);
}

}  // namespace
}  // namespace zerosim::model
