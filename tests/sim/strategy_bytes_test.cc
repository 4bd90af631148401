// Every strategy on the SimGrid replay: the bytes it carried per tier and purpose equal the schedule's
// (model/placement/traffic.h), with the shard, replica and shard-cross-node groups and all-reduce placed as
// the analytic model places them; on one switch, rails and a fat tree, with the full and the symmetric
// replay. On one switch the replay's iteration is the analytic one's within a few percent; with rails and an
// oversubscribed fat tree it may be slower (rings whose cross-node edges leave from some rails only, an
// all-reduce sharing NICs and uplinks with the shard group's gathers): the contention the DES is for.
#include <gtest/gtest.h>

#include "model/analytic/analytic.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/strategy.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

std::vector<model::ZeroConfig> Configs(int gpus_per_node) {
  std::vector<model::ZeroConfig> out;
  for (int i = 0; i < model::kNumStrategies; ++i) {
    model::ZeroConfig z;
    z.strategy = static_cast<model::Strategy>(i);
    z.framework = model::FrameworkOf(z.strategy);
    z.overlap_comm = !(z.strategy == model::Strategy::kZero1 || z.strategy == model::Strategy::kZero2);
    out.push_back(z);
  }
  // Shard groups over two nodes, MiCS's two-hop gather.
  model::ZeroConfig mics = out[static_cast<int>(model::Strategy::kMics)];
  mics.mics_shard_size = 2 * gpus_per_node;
  mics.mics_hierarchical_params_gather = true;
  out.push_back(mics);
  model::ZeroConfig hsdp = out[static_cast<int>(model::Strategy::kFsdpHybridShard)];
  hsdp.fsdp.hsdp_shard_size = 2 * gpus_per_node;
  out.push_back(hsdp);
  model::ZeroConfig small = hsdp;  // a shard group of half a node: replica rings with two ranks per node
  small.fsdp.hsdp_shard_size = gpus_per_node / 2;
  out.push_back(small);
  return out;
}

void ExpectConserved(const model::ClusterSpec& c, sim::Reduction reduction, bool uncontended = false) {
  const model::ModelSpec m = Gpt(2, 1024, 16);
  for (const model::ZeroConfig& z : Configs(c.gpus_per_node)) {
    const std::string name =
        std::string(model::StrategyName(z.strategy)) + " s=" + std::to_string(z.shard_group_size());
    const model::Schedule s = model::BuildSchedule(m, z, c);
    sim::SimOptions o;
    o.reduction = reduction;
    StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), o);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
    const model::TierVolumes expected = model::SumTraffic(s, c);
    for (size_t p = 1; p < 4; ++p) {
      const char* purpose = model::PurposeName(static_cast<model::Purpose>(p));
      EXPECT_NEAR(r->volumes.cross_node[p], expected.cross_node[p], 1e-9 * expected.cross_node[p] + 1e-3)
          << name << " cross-node " << purpose << " on " << c.name;
      EXPECT_NEAR(r->volumes.intra_node[p], expected.intra_node[p], 1e-9 * expected.intra_node[p] + 1e-3)
          << name << " intra-node " << purpose << " on " << c.name;
    }
    const model::Timing t = model::EvaluateAnalytic(s, c, TestCalibration());
    if (uncontended) {
      EXPECT_NEAR(r->timing.iteration_s, t.iteration_s, 0.05 * t.iteration_s) << name << " on " << c.name;
    } else {
      EXPECT_GE(r->timing.iteration_s, 0.98 * t.iteration_s) << name << " on " << c.name;
    }
  }
}

TEST(StrategyBytes, ConservedOnOneSwitch) {
  ExpectConserved(PaperCluster(1, 4, 8), sim::Reduction::kFull, /*uncontended=*/true);
  ExpectConserved(PaperCluster(1, 8, 8), sim::Reduction::kSymmetric, /*uncontended=*/true);
}

TEST(StrategyBytes, ConservedWithRails) {
  const model::ClusterSpec c = RailOptimized(PaperCluster(4, 4, 8));
  ExpectConserved(c, sim::Reduction::kFull);
  ExpectConserved(c, sim::Reduction::kSymmetric);
}

TEST(StrategyBytes, ConservedOnAFatTree) {
  const model::ClusterSpec c = FatTree(PaperCluster(2, 8, 4), 2, 2);
  ExpectConserved(c, sim::Reduction::kFull);
  ExpectConserved(c, sim::Reduction::kSymmetric);
}

}  // namespace
}  // namespace zerosim::testing
