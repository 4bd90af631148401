// MiCS and HSDP beside tensor parallelism (issue 36 item 2): their shard groups live inside one TP rank's
// data-parallel group, counted in DP ranks (N' = N / t of them a node; model/placement/placement.h), and both
// engines place them from the same grid. On 8 nodes of 8 GPUs with t = 2 and 4: the bytes the replay carries
// per tier and purpose equal the schedule's (model/placement/traffic.h; HSDP-16 at t = 2 read 15/14 of them
// intra-node before the replica groups were placed with their shard size), and on one switch the replay's
// iteration is the analytic one's within 2%, with the full and the symmetric (shrunk, folded) replay.
#include <gtest/gtest.h>

#include "model/analytic/analytic.h"
#include "model/builders/schedule_builder.h"
#include "model/placement/placement.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

struct Case {
  const char* name;
  model::Strategy strategy;
  int shard;  // DP ranks (0: one node's N')
  int tensor;
};

TEST(ShardGroupsWithTensorParallelism, BothEnginesAgree) {
  const model::ClusterSpec c = PaperCluster(1, 8, 8);
  const model::ModelSpec m = Gpt(2, 1024, 16);
  const Case cases[] = {
      {"HSDP-16 t2 (4 nodes)", model::Strategy::kFsdpHybridShard, 16, 2},
      {"HSDP t2 (one node: 4 DP ranks)", model::Strategy::kFsdpHybridShard, 0, 2},
      {"MiCS-8 t2 (2 nodes)", model::Strategy::kMics, 8, 2},
      {"MiCS-4 t4 (2 nodes)", model::Strategy::kMics, 4, 4},
      {"HSDP-2 t2 (half a node)", model::Strategy::kFsdpHybridShard, 2, 2},
  };
  for (const Case& k : cases) {
    model::ZeroConfig z;
    z.strategy = k.strategy;
    z.framework = model::FrameworkOf(z.strategy);
    if (k.strategy == model::Strategy::kMics) z.mics_shard_size = k.shard;
    if (k.strategy == model::Strategy::kFsdpHybridShard) z.fsdp.hsdp_shard_size = k.shard;
    model::ParallelLayout l;
    l.tensor = k.tensor;
    const model::Schedule s = model::BuildSchedule(m, z, model::RankShape(c, l));
    // The declared shard group in DP ranks: the key's, or one node's N' = 8 / t.
    EXPECT_EQ(s.shard_group_size, k.shard > 0 ? k.shard : 8 / k.tensor) << k.name;
    const model::TierVolumes expected = model::SumTraffic(s, c);
    const model::Timing analytic = model::EvaluateAnalytic(s, c, TestCalibration());
    for (sim::Reduction reduction : {sim::Reduction::kFull, sim::Reduction::kSymmetric}) {
      sim::SimOptions o;
      o.reduction = reduction;
      StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), o);
      ASSERT_TRUE(r.ok()) << k.name << ": " << r.status().message();
      const std::string where = std::string(k.name) + ", " + sim::ReductionName(reduction);
      for (size_t p = 1; p < model::kNumPurposes; ++p) {
        EXPECT_NEAR(r->volumes.cross_node[p], expected.cross_node[p], 1e-9 * expected.cross_node[p] + 1e-3)
            << where << " cross-node " << model::PurposeName(static_cast<model::Purpose>(p));
        EXPECT_NEAR(r->volumes.intra_node[p], expected.intra_node[p], 1e-9 * expected.intra_node[p] + 1e-3)
            << where << " intra-node " << model::PurposeName(static_cast<model::Purpose>(p));
      }
      EXPECT_NEAR(r->timing.iteration_s, analytic.iteration_s, 0.02 * analytic.iteration_s) << where;
    }
  }
}

}  // namespace
}  // namespace zerosim::testing
