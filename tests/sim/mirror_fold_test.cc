// Folding the symmetric reduction's two units into one (sim/mirror_fold.h) is exact: with the fold, the
// replay (only the first unit's flows, over the first unit's links) times every op of rank 0, the
// iteration, exposed communication and interference as the unfolded replay (both units' flows on both
// units' links) does, and counts the same bytes per tier and purpose, for every strategy on a flat switch,
// rails and two- and three-level fat trees; SimGrid carries about half the transfers.
#include <gtest/gtest.h>

#include "model/builders/schedule_builder.h"
#include "model/spec/strategy.h"
#include "sim/collective_plan.h"
#include "sim/mirror_fold.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

std::vector<std::pair<std::string, model::ZeroConfig>> Configs(int gpus_per_node) {
  std::vector<std::pair<std::string, model::ZeroConfig>> out = {{"ZeRO-3", {}},
                                                                {"ZeRO++", ZeroPlusPlus(gpus_per_node / 2)}};
  for (model::Strategy st : {model::Strategy::kMics, model::Strategy::kFsdpHybridShard}) {
    model::ZeroConfig z;
    z.strategy = st;
    z.framework = model::FrameworkOf(st);
    z.mics_shard_size = gpus_per_node;
    z.fsdp.hsdp_shard_size = gpus_per_node / 2;
    out.emplace_back(model::StrategyName(st), z);
  }
  return out;
}

void ExpectFoldExact(const model::ClusterSpec& c) {
  for (const auto& [name, z] : Configs(c.gpus_per_node)) {
    const model::Schedule s = model::BuildSchedule(Gpt(2, 1024, 16), z, c);
    sim::SimOptions unfolded;
    unfolded.fold_units = false;
    const std::optional<ReplayPair> r = ReplayBoth(s, c, unfolded, {});
    ASSERT_TRUE(r.has_value());
    const sim::SimResult& a = r->a;
    const sim::SimResult& b = r->b;
    const std::string what = name + " on " + c.name;
    ASSERT_TRUE(a.stats.symmetric && b.stats.symmetric) << what;
    ASSERT_LT(a.stats.simulated_nodes, c.nodes) << what << ": the platform should be shrunk";
    // Every cross-node flow of the second unit is left to its mirror image.
    EXPECT_LT(b.stats.transfers, a.stats.transfers) << what;
    ExpectSameTiming(a.timing, b.timing, s.ops.size(), what);
    ExpectSameVolumes(a.volumes, b.volumes, what);
    // The folded links carry half of the two units' capacity bytes.
    EXPECT_NEAR(2 * b.stats.nic_capacity_bytes_measured, a.stats.nic_capacity_bytes_measured,
                1e-9 * a.stats.nic_capacity_bytes_measured)
        << what;
  }
}

TEST(MirrorFold, ExactOnOneSwitch) { ExpectFoldExact(PaperCluster(1, 6, 8)); }

TEST(MirrorFold, ExactWithRails) { ExpectFoldExact(RailOptimized(PaperCluster(4, 4, 8))); }

TEST(MirrorFold, ExactOnAnOversubscribedFatTree) { ExpectFoldExact(FatTree(PaperCluster(1, 12, 8), 3, 2)); }

TEST(MirrorFold, ExactOnAThreeLevelFatTree) {
  // Pods of 3 leaves of 2 nodes: flows leaving a pod from a leaf other than its first cross that first
  // leaf's uplink too (the pod's gateway is its first node's router, simgrid_platform.cc).
  ExpectFoldExact(FatTree(PaperCluster(1, 18, 8), 2, 2, 3, 2));
}

TEST(MirrorFold, MirrorSymmetryIsChecked) {
  // Two units of two nodes of 4 GPUs: a ring over all 16 GPUs is mirror-symmetric, one edge alone is not.
  model::ClusterSpec c = PaperCluster(1, 4, 4);
  sim::Layout l = sim::MakeLayout(c, model::RankGrid{}, {});
  l.sim_nodes = 4;
  EXPECT_EQ(sim::MirrorOf(1, l), 9);
  EXPECT_EQ(sim::MirrorOf(12, l), 4);
  std::vector<sim::Flow> ring;
  for (int g = 0; g < 16; ++g) ring.push_back({g, (g + 1) % 16, 100});
  EXPECT_TRUE(sim::FlowsMirrorSymmetric(ring, l));
  ring.back().bytes = 50;  // 15 -> 0 no longer the image of 7 -> 8
  EXPECT_FALSE(sim::FlowsMirrorSymmetric(ring, l));
  EXPECT_FALSE(sim::FlowsMirrorSymmetric({{0, 9, 1}}, l));
}

}  // namespace
}  // namespace zerosim::testing
