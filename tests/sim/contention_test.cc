// Contention the analytic model either encodes (fat-tree oversubscription) or cannot see (two collectives
// on one link, pod uplinks), and traffic that must not contend (hpZ's intra-node gathers against
// cross-node links).
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::GroupKind;

// The bandwidth part of a collective's simulated time (its NCCL latency is a fixed delay).
double TransferTime(const model::Op& op, const model::ClusterSpec& c) {
  return SimulatedTime(ScheduleOf(c, {op}), c) -
         model::EstimateCollective(model::CollectiveTraffic(op.coll, testing::PlacementFor(op.coll, c)), c)
             .latency_s;
}

// How much slower the bandwidth term of one collective is on `tree` than on the same nodes on one switch.
double Slowdown(const model::ClusterSpec& flat, const model::ClusterSpec& tree, CollectiveKind kind, GroupKind group,
                double bytes) {
  return TransferTime(CollectiveOp(tree, kind, group, bytes), tree) /
         TransferTime(CollectiveOp(flat, kind, group, bytes), flat);
}

TEST(Contention, OversubscribedFatTreeSlowsCrossLeafRingByItsUplinkShortfall) {
  // 4:1 with 2 nodes per leaf: a leaf's uplinks carry half of one node's NIC bandwidth, and a node-major
  // ring leaves every leaf through one edge, so the ring's bandwidth term doubles.
  const model::ClusterSpec flat = PaperCluster(1, 8, 8);
  const model::ClusterSpec tree = FatTree(flat, 2, 4);
  EXPECT_NEAR(Slowdown(flat, tree, CollectiveKind::kAllGather, GroupKind::kGlobal, 1.5e9), 2.0, 1e-6);
  const model::Op op = CollectiveOp(tree, CollectiveKind::kAllGather, GroupKind::kGlobal, 1.5e9);
  EXPECT_NEAR(SimulatedTime(ScheduleOf(tree, {op}), tree) / AnalyticTime(op, tree), 1.0, 1e-6);
}

TEST(Contention, OversubscribedFatTreeSlowsCrossNodeAllToAll) {
  // 8 nodes per leaf at 4:1: the ring is not slowed (one edge per leaf gets 2 NICs' worth), but qgZ's
  // cross-node all-to-all sends 8/15 of every node's traffic out of its leaf: 8 * 8/15 / 2 = 2.13x.
  const model::ClusterSpec flat = PaperCluster(1, 16, 8);
  const model::ClusterSpec tree = FatTree(flat, 8, 4);
  EXPECT_NEAR(Slowdown(flat, tree, CollectiveKind::kAllGather, GroupKind::kGlobal, 1.5e9), 1.0, 1e-6);
  EXPECT_NEAR(Slowdown(flat, tree, CollectiveKind::kAllToAll, GroupKind::kCrossNode, 0.2e9), 8.0 * 8.0 / 15.0 / 2.0,
              1e-6);
  const model::Op a2a = CollectiveOp(tree, CollectiveKind::kAllToAll, GroupKind::kCrossNode, 0.2e9);
  EXPECT_NEAR(SimulatedTime(ScheduleOf(tree, {a2a}), tree) / AnalyticTime(a2a, tree), 1.0, 1e-6);
}

TEST(Contention, OversubscribedPodsSlowTheCrossPodRing) {
  // Three levels: leaves of 2 nodes (1:1), pods of 2 leaves at 8:1 towards the core. A pod's core uplinks
  // carry 4 nodes' NICs / 8 = half a node's NIC, and the node-major ring leaves each pod through one edge:
  // twice the bandwidth term of one switch. (The analytic model times the leaf level only.)
  const model::ClusterSpec flat = PaperCluster(1, 8, 8);
  EXPECT_NEAR(Slowdown(flat, FatTree(flat, 2, 1, 2, 8), CollectiveKind::kAllGather, GroupKind::kGlobal, 1.5e9), 2.0,
              1e-6);
}

TEST(Contention, HpzIntraNodeGathersDoNotSlowCrossNodeLinks) {
  const model::ClusterSpec c = PaperCluster(1, 4, 16);
  model::Op global = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 1.5e9);
  model::Op hpz = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kHpz, 16e9, 16, model::Queue::kNcclHpz);
  hpz.purpose = model::Purpose::kBackwardAllGather;
  StatusOr<sim::SimResult> r = sim::SimulateIsolated(ScheduleOf(c, {global, hpz}, 16), c, TestCalibration(), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // The two overlap (hpZ's 16 GB over NVSwitch takes about as long as the ring's 1.5 GB over the NIC)...
  EXPECT_GT(r->timing.finish_s[1], 0.5 * r->timing.finish_s[0]);
  // ...yet the cross-node ring finishes as if alone, and no hpZ byte crossed a NIC.
  EXPECT_NEAR(r->timing.finish_s[0] / AnalyticTime(global, c), 1.0, 1e-6);
  EXPECT_EQ(r->volumes.cross_node[static_cast<size_t>(model::Purpose::kBackwardAllGather)], 0.0);
  EXPECT_GT(r->volumes.intra_node[static_cast<size_t>(model::Purpose::kBackwardAllGather)], 0.0);
}

TEST(Contention, ConcurrentRingsShareTheNics) {
  // What the analytic model cannot see: an all-gather and a reduce-scatter on different communicators at
  // once each get half of every NIC, so both take twice their bandwidth term.
  const model::ClusterSpec c = PaperCluster(2, 4, 8);
  const model::Op ag = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 1e9);
  const model::Op rs =
      CollectiveOp(c, CollectiveKind::kReduceScatter, GroupKind::kGlobal, 1e9, 1, model::Queue::kNcclWorld);
  StatusOr<sim::SimResult> r = sim::SimulateIsolated(ScheduleOf(c, {ag, rs}), c, TestCalibration(), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const model::CollectiveTime t =
      model::EstimateCollective(model::CollectiveTraffic(ag.coll, testing::PlacementFor(ag.coll, c)), c);
  for (int op : {0, 1}) {
    EXPECT_NEAR(r->timing.finish_s[static_cast<size_t>(op)], t.latency_s + 2 * t.transfer_s, 1e-6 * t.seconds);
  }
}

}  // namespace
}  // namespace zerosim::testing
