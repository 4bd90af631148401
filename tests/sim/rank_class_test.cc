// The class replay (rank_classes.h) is exact: with and without perturbations, every op of rank 0 starts
// and finishes when it does in the full replay (one set of actors per rank, every flow), the iteration
// (the slowest rank's last op) and the bytes per tier agree to 1e-9, for ZeRO-3 and ZeRO++, on a flat
// switch with rails and on a two-level fat tree.
#include <gtest/gtest.h>

#include "model/builders/schedule_builder.h"
#include "sim/rank_classes.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

// Replays `s` on `c` with `p` in full and with `reduction`; expects them equal; returns the two results.
std::pair<sim::SimResult, sim::SimResult> ExpectEqualToFull(const model::Schedule& s,
                                                            const model::ClusterSpec& c,
                                                            const sim::Perturbations& p,
                                                            sim::Reduction reduction) {
  sim::SimOptions full;
  full.reduction = sim::Reduction::kFull;
  full.perturbations = p;
  sim::SimOptions reduced = full;
  reduced.reduction = reduction;
  std::optional<ReplayPair> r = ReplayBoth(s, c, full, reduced);
  if (!r.has_value()) return {};
  const sim::SimResult& a = r->a;
  const sim::SimResult& b = r->b;
  EXPECT_EQ(a.stats.simulated_ranks, c.total_gpus());
  EXPECT_LE(b.stats.simulated_ranks, c.total_gpus() / 4);
  EXPECT_LT(b.stats.transfers, a.stats.transfers);
  ExpectSameTiming(a.timing, b.timing, s.ops.size(), c.name);
  ExpectSameVolumes(a.volumes, b.volumes, c.name, /*slack_bytes=*/1e-3);
  return {std::move(r->a), std::move(r->b)};
}

void ExpectClassesExact(const model::ClusterSpec& c, const sim::Perturbations& p,
                        bool shrunk_classes = true) {
  for (const model::ZeroConfig& z : {model::ZeroConfig{}, ZeroPlusPlus(c.gpus_per_node / 2)}) {
    const model::Schedule s = model::BuildSchedule(Gpt(3, 1024, 16), z, c);
    ExpectEqualToFull(s, c, p, sim::Reduction::kClasses);
    if (!p.empty()) {
      // The default reduction replays the same classes when the cluster is perturbed.
      const auto [full, symmetric] = ExpectEqualToFull(s, c, p, sim::Reduction::kSymmetric);
      // Slow nodes alone keep the shrunk platform when it has a node per slowdown class.
      const bool shrinks = p.links.empty() && p.background.empty() && shrunk_classes;
      EXPECT_EQ(symmetric.stats.symmetric, shrinks);
      EXPECT_EQ(symmetric.stats.simulated_nodes < c.nodes, shrinks);
    }
  }
}

model::ClusterSpec Rails() {
  model::ClusterSpec c = RailOptimized(PaperCluster(2, 4, 8));
  c.nccl.inter_bandwidth_efficiency = 0.8;
  c.nccl.channels = 40;  // NCCL kernels hold half of the 80 SMs
  return c;
}

TEST(RankClasses, UniformClusterIsOneClass) { ExpectClassesExact(Rails(), {}); }

TEST(RankClasses, SlowNodeIsExact) {
  sim::Perturbations p;
  p.slow_nodes.push_back({2, 1.1});
  ExpectClassesExact(Rails(), p);
}

TEST(RankClasses, SlowNodesOnAShrunkFatTreeAreExact) {
  // 4 leaves of 2 nodes, 2 leaves simulated: room for both slowdown classes.
  sim::Perturbations p;
  p.slow_nodes.push_back({5, 1.25});
  ExpectClassesExact(FatTree(PaperCluster(1, 8, 4), 2, 3), p);
}

TEST(RankClasses, MoreSlowdownClassesThanPlatformNodesReplayTheWholeCluster) {
  sim::Perturbations p;
  p.slow_nodes.push_back({1, 1.1});
  p.slow_nodes.push_back({3, 1.2});
  ExpectClassesExact(PaperCluster(1, 5, 8), p, /*shrunk_classes=*/false);
}

TEST(RankClasses, DegradedNicAndSecondJobAreExact) {
  ExpectClassesExact(Rails(), DegradedNicAndSecondJob(/*slow_node=*/0, 1.3));
}

TEST(RankClasses, DegradedLeafUplinkIsExact) {
  sim::Perturbations p;
  sim::DegradedLink up;
  up.kind = sim::DegradedLink::Kind::kUplink;
  up.level = 0;
  up.group = 1;
  up.bandwidth_factor = 0.75;  // one of four uplinks failed
  p.links.push_back(up);
  p.slow_nodes.push_back({5, 1.2});
  ExpectClassesExact(FatTree(PaperCluster(1, 6, 4), 2, 2), p);
}

TEST(RankClasses, AStragglerSlowsEveryRank) {
  const model::ClusterSpec c = PaperCluster(1, 4, 8);
  const model::Schedule s = model::BuildSchedule(Gpt(3, 1024, 16), model::ZeroConfig{}, c);
  sim::SimOptions o;
  const double uniform = SimulatedTime(s, c, o);
  o.perturbations.slow_nodes.push_back({3, 1.5});
  const double straggler = SimulatedTime(s, c, o);
  // Rank 0's compute is unchanged, yet it waits for node 3 at every global collective.
  EXPECT_GT(straggler, 1.05 * uniform);
  o.perturbations.slow_nodes[0].slowdown = 1.0;
  EXPECT_NEAR(SimulatedTime(s, c, o), uniform, 1e-12 * uniform);
}

TEST(RankClasses, ClassesOfNodes) {
  model::ClusterSpec c = FatTree(PaperCluster(1, 8, 4), 4, 2);
  sim::SimOptions o;
  o.perturbations.slow_nodes.push_back({6, 1.1});
  sim::DegradedLink up;
  up.kind = sim::DegradedLink::Kind::kUplink;
  up.group = 1;
  up.bandwidth_factor = 0.5;
  o.perturbations.links.push_back(up);
  const sim::Layout l = sim::MakeLayout(c, model::RankGrid{}, o);
  EXPECT_TRUE(l.node_classes);
  EXPECT_EQ(l.sim_nodes, 8);
  const sim::RankClasses rc = sim::MakeRankClasses(l, o.perturbations);
  // Nodes 0-3 (leaf 0), 4, 5, 7 (leaf 1, degraded uplink), 6 (leaf 1, slow).
  ASSERT_EQ(rc.count(), 3);
  EXPECT_EQ(rc.representative, (std::vector<int>{0, 16, 24}));
  EXPECT_EQ(rc.class_of_gpu[4 * 4 + 3], 1);
  EXPECT_EQ(rc.class_of_gpu[6 * 4], 2);
  EXPECT_EQ(rc.class_of_gpu[7 * 4 + 1], 1);
  EXPECT_EQ(rc.node_intra_simulated,
            (std::vector<bool>{true, false, false, false, true, false, true, false}));
}

TEST(RankClasses, BadPerturbationsAreErrors) {
  const model::ClusterSpec c = PaperCluster(1, 4, 8);
  const model::Schedule s = model::BuildSchedule(Gpt(3, 1024, 16), model::ZeroConfig{}, c);
  sim::SimOptions o;
  o.perturbations.slow_nodes.push_back({4, 1.1});
  StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("slow node 4"), std::string::npos) << r.status().message();
  o.perturbations = {};
  sim::DegradedLink up;
  up.kind = sim::DegradedLink::Kind::kUplink;
  o.perturbations.links.push_back(up);
  r = sim::SimulateIsolated(s, c, TestCalibration(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the fabric has 0 level"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace zerosim::testing
