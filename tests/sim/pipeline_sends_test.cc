// The sends between pipeline stages replayed on the SimGrid platform (sim/pipeline_sends.h): with nothing
// shared, one steady-state exchange takes what the analytic send time says (model/report/pipeline_evaluate.h
// P2pSeconds); on an oversubscribed fat tree whose stages sit under different leaves the leaf uplinks bind.
// Each test runs its simulation in this process (one per test: gtest_discover_tests).
#include <gtest/gtest.h>

#include "model/report/pipeline_evaluate.h"
#include "sim/pipeline_sends.h"
#include "test_util.h"

namespace zerosim::sim {
namespace {

model::ParallelLayout Pipeline(int t, int p) {
  model::ParallelLayout l;
  l.tensor = t;
  l.sequence_parallel = t > 1;
  l.pipeline = p;
  return l;
}

constexpr double kBytes = 64.0 * 1024 * 1024;  // a micro-batch's activation per rank

TEST(PipelineSends, AloneOnTheFabricTheyTakeTheAnalyticSendTime) {
  // 8 nodes of 8 GPUs, one 100 Gbps NIC per GPU (a rail each), one switch: every GPU's payload crosses its
  // own NIC out and its peer's in.
  const model::ClusterSpec c = testing::PaperCluster(8, 8, 8);
  for (const model::ParallelLayout& l : {Pipeline(1, 2), Pipeline(2, 4), Pipeline(8, 8)}) {
    SCOPED_TRACE(l.pipeline);
    const double analytic = model::P2pSeconds(kBytes, c, l);
    const StatusOr<double> sim = SimulateSendStepIsolated(c, l, kBytes, SimOptions{});
    ASSERT_TRUE(sim.ok()) << sim.status().message();
    EXPECT_NEAR(*sim, analytic, 0.01 * analytic);
    // At least the payload over the GPU's NIC.
    EXPECT_GE(*sim, kBytes / c.nic.bandwidth_Bps);
  }
}

TEST(PipelineSends, AnOversubscribedLeafUplinkBindsWhenStagesSitUnderDifferentLeaves) {
  // Two leaves of 4 nodes, 2:1 oversubscribed; two stages of 4 nodes: every send crosses the leaves'
  // uplinks, which carry half of what the nodes' NICs do, so the exchange takes twice as long.
  model::ClusterSpec flat = testing::PaperCluster(8, 8, 8);
  model::ClusterSpec tree = flat;
  tree.fabric.kind = model::FabricKind::kFatTree;
  tree.fabric.nodes_per_leaf = 4;
  tree.fabric.oversubscription = 2;
  const model::ParallelLayout l = Pipeline(1, 2);
  const StatusOr<double> on_flat = SimulateSendStepIsolated(flat, l, kBytes, SimOptions{});
  const StatusOr<double> on_tree = SimulateSendStepIsolated(tree, l, kBytes, SimOptions{});
  ASSERT_TRUE(on_flat.ok()) << on_flat.status().message();
  ASSERT_TRUE(on_tree.ok()) << on_tree.status().message();
  EXPECT_GT(*on_tree, 1.8 * *on_flat);
  // The analytic send time counts the same uplink bytes.
  const double analytic = model::P2pSeconds(kBytes, tree, l);
  EXPECT_NEAR(*on_tree, analytic, 0.02 * analytic);
}

TEST(PipelineSends, StagesThatDoNotHoldWholeNodesAreAnError) {
  const model::ClusterSpec c = testing::PaperCluster(8, 6, 8);
  const StatusOr<double> sim = SimulateSendStepIsolated(c, Pipeline(1, 4), kBytes, SimOptions{});
  ASSERT_FALSE(sim.ok());
  EXPECT_NE(sim.status().message().find("whole nodes"), std::string::npos) << sim.status().message();
}

}  // namespace
}  // namespace zerosim::sim
