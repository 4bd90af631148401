// The symmetric reduction (one representative rank; two symmetry units of the fabric) is exact: every op
// of rank 0 starts and finishes at the same simulated time as in the full replay (every rank's actors on
// the whole cluster), for ZeRO-3 and ZeRO++ on a flat switch, rails and an oversubscribed fat tree.
#include <gtest/gtest.h>

#include "model/builders/schedule_builder.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

void ExpectReductionExact(const model::ClusterSpec& c, const model::ModelSpec& m) {
  for (const model::ZeroConfig& z : {model::ZeroConfig{}, ZeroPlusPlus(c.gpus_per_node / 2)}) {
    const model::Schedule s = model::BuildSchedule(m, z, c);
    sim::SimOptions full;
    full.reduction = sim::Reduction::kFull;
    StatusOr<sim::SimResult> a = sim::SimulateIsolated(s, c, TestCalibration(), full);
    StatusOr<sim::SimResult> b = sim::SimulateIsolated(s, c, TestCalibration(), {});
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_FALSE(a->stats.symmetric);
    EXPECT_TRUE(b->stats.symmetric);
    EXPECT_EQ(a->stats.simulated_ranks, c.total_gpus());
    EXPECT_EQ(b->stats.simulated_ranks, 1);
    const double t = a->timing.iteration_s;
    EXPECT_NEAR(b->timing.iteration_s, t, 1e-9 * t) << c.name;
    EXPECT_NEAR(b->timing.exposed_comm_s, a->timing.exposed_comm_s, 1e-9 * t);
    double worst = 0;
    for (size_t i = 0; i < s.ops.size(); ++i) {
      worst = std::max(worst, std::abs(a->timing.start_s[i] - b->timing.start_s[i]));
      worst = std::max(worst, std::abs(a->timing.finish_s[i] - b->timing.finish_s[i]));
    }
    EXPECT_LT(worst, 1e-9 * t) << c.name << ": largest op time difference " << worst << " s";
    for (size_t p = 1; p < 4; ++p) {
      EXPECT_NEAR(b->volumes.cross_node[p], a->volumes.cross_node[p], 1e-9 * a->volumes.cross_node[p] + 1e-3);
    }
  }
}

TEST(Reduction, ExactOnOneSwitch) {
  const model::ClusterSpec c = PaperCluster(1, 5, 8);  // 5 nodes, 2 simulated
  ExpectReductionExact(c, Gpt(3, 1024, 16));
}

TEST(Reduction, ExactWithRails) {
  model::ClusterSpec c = RailOptimized(PaperCluster(4, 4, 8));
  c.nccl.inter_bandwidth_efficiency = 0.8;
  c.nccl.channels = 40;  // half of the 80 SMs
  ExpectReductionExact(c, Gpt(3, 1024, 16));
}

TEST(Reduction, ExactOnAnOversubscribedFatTree) {
  // 4 leaves of 2 nodes, 2 leaves simulated.
  ExpectReductionExact(FatTree(PaperCluster(2, 8, 4), 2, 3), Gpt(3, 1024, 16));
}

TEST(Reduction, ExactOnAThreeLevelFatTree) {
  // 3 pods of 2 leaves of 2 nodes, 2 pods simulated.
  ExpectReductionExact(FatTree(PaperCluster(2, 12, 4), 2, 2, 2, 4), Gpt(3, 1024, 16));
}

}  // namespace
}  // namespace zerosim::testing
