// Expert parallelism on both engines (issue 37): the replay carries the schedule's expert-parallel bytes per
// tier (its all-to-all flows, sim/collective_plan.cc AddGroupAllToAll) and times an MoE layout within 2% of
// the analytic engine (plain, and folded beside tensor parallelism), on one switch and on a 2:1 fat tree
// whose leaf uplinks the all-to-all crosses, where both engines see the all-to-all slow down against the same
// nodes on one switch.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "model/analytic/analytic.h"
#include "model/builders/schedule_builder.h"
#include "model/placement/traffic.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

model::ModelSpec SmallMoe() {
  model::ModelSpec m = Gpt(2, 1024, 16);
  m.mlp = model::MlpKind::kSwiglu;
  m.ffn_hidden = 2816;
  m.experts = 64;
  m.experts_per_token = 4;
  m.moe_ffn_hidden = 512;
  return m;
}

model::ClusterSpec FatTree() {
  model::ClusterSpec c = PaperCluster(1, 8, 8);
  c.fabric.kind = model::FabricKind::kFatTree;
  c.fabric.nodes_per_leaf = 2;
  c.fabric.oversubscription = 2;
  return c;
}

TEST(MoeEngines, TheReplayCarriesTheAllToAllsBytesAndAgreesWithTheAnalyticEngine) {
  model::ZeroConfig z;
  z.strategy = model::Strategy::kZero1;
  z.stage = 1;
  z.gradient_accumulation_steps = 2;
  z.activation_checkpointing = false;
  double single_switch_s = 0;
  for (const model::ClusterSpec& c : {PaperCluster(1, 8, 8), FatTree()}) {
    const bool fat = c.fabric.kind == model::FabricKind::kFatTree;
    // Plain (t = 1) and folded (t = 2, ETP 1: e consecutive ranks across the tensor pairs) expert grids.
    // And the allgather dispatcher (parallel_layout.h MoeDispatcher) on e = 16, t = 1 and 2; and shared
    // experts beside the folded grid (split like the dense MLP, with their TP collectives).
    struct Layout {
      int e, t;
      bool allgather = false;
      bool shared = false;
    };
    for (const auto& [e, t, allgather, shared] :
         {Layout{8, 1}, Layout{16, 1}, Layout{32, 1}, Layout{8, 2}, Layout{16, 2}, Layout{32, 2},
          Layout{16, 1, true}, Layout{16, 2, true}, Layout{16, 2, false, true}}) {
      model::ModelSpec m = SmallMoe();
      if (shared) m.shared_expert_ffn = 1024;
      model::ParallelLayout l;
      l.expert = e;
      l.tensor = t;
      l.sequence_parallel = t > 1;
      l.expert_tensor = 1;
      if (allgather) l.moe_token_dispatcher = model::MoeDispatcher::kAllGather;
      const model::Schedule s = model::BuildSchedule(m, z, model::RankShape(c, l));
      const model::TierVolumes expected = model::SumTraffic(s, c);
      const auto ep = static_cast<size_t>(model::Purpose::kExpertParallel);
      EXPECT_GT(expected.intra_node[ep], 0);
      const model::Timing analytic = model::EvaluateAnalytic(s, c, TestCalibration());
      for (sim::Reduction reduction : {sim::Reduction::kFull, sim::Reduction::kSymmetric}) {
        sim::SimOptions o;
        o.reduction = reduction;
        StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), o);
        const std::string where = std::string(fat ? "fat tree" : "one switch") +
                                  ", e = " + std::to_string(e) + ", t = " + std::to_string(t) +
                                  (allgather ? ", allgather" : "") + (shared ? ", shared experts" : "") +
                                  ", " + sim::ReductionName(reduction);
        ASSERT_TRUE(r.ok()) << where << ": " << r.status().message();
        EXPECT_NEAR(r->volumes.cross_node[ep], expected.cross_node[ep], 1e-9 * expected.cross_node[ep] + 1e-3)
            << where;
        EXPECT_NEAR(r->volumes.intra_node[ep], expected.intra_node[ep], 1e-9 * expected.intra_node[ep] + 1e-3)
            << where;
        EXPECT_NEAR(r->timing.iteration_s, analytic.iteration_s, 0.02 * analytic.iteration_s) << where;
      }
      // e = 32 spans 4 nodes, two fat-tree leaves: half of its node-crossing bytes climb the 2:1 uplinks.
      if (e == 32 && t == 1 && !allgather && !shared && !fat) single_switch_s = analytic.iteration_s;
      if (e == 32 && t == 1 && !allgather && !shared && fat) {
        EXPECT_GT(expected.cross_node[ep], 0);
        EXPECT_GT(analytic.iteration_s, single_switch_s);
      }
    }
  }
}

}  // namespace
}  // namespace zerosim::testing
