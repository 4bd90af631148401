// Context parallelism on both engines (issue 37 item 4): the replay carries the key/value ring's bytes per
// tier as the analytic engine counts them and times a context-parallel layout within 2% of it, inside a node
// and across nodes, with and without tensor parallelism.
#include <gtest/gtest.h>

#include <string>

#include "model/analytic/analytic.h"
#include "model/builders/schedule_builder.h"
#include "model/placement/traffic.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

model::ModelSpec LongSequence() {
  model::ModelSpec m = Gpt(2, 1024, 16);
  m.mlp = model::MlpKind::kSwiglu;
  m.ffn_hidden = 2816;
  m.seq_len = 16384;
  m.max_position_embeddings = 16384;
  m.attention = model::AttentionImpl::kFlash;
  return m;
}

TEST(ContextEngines, TheReplayCarriesTheRingsBytesAndAgreesWithTheAnalyticEngine) {
  const model::ModelSpec m = LongSequence();
  model::ZeroConfig z;
  z.strategy = model::Strategy::kZero1;
  z.stage = 1;
  z.gradient_accumulation_steps = 2;
  z.activation_checkpointing = false;
  const model::ClusterSpec c = PaperCluster(1, 4, 8);
  const auto cp = static_cast<size_t>(model::Purpose::kContextParallel);
  for (int tensor : {1, 2}) {
    for (int context : {4, 8, 16}) {
      for (model::ContextComm comm :
           {model::ContextComm::kP2p, model::ContextComm::kAllToAll, model::ContextComm::kAllGather}) {
        if (comm == model::ContextComm::kAllToAll && context * tensor > 16)
          continue;  // the heads split over t c
        model::ParallelLayout l;
        l.tensor = tensor;
        l.sequence_parallel = tensor > 1;
        l.context = context;
        l.context_comm = comm;
        const model::Schedule s = model::BuildSchedule(m, z, model::RankShape(c, l));
        const model::TierVolumes expected = model::SumTraffic(s, c);
        const bool spans_nodes = context * tensor > 8;
        EXPECT_EQ(expected.cross_node[cp] > 0, spans_nodes);
        const model::Timing analytic = model::EvaluateAnalytic(s, c, TestCalibration());
        const std::string where = "t = " + std::to_string(tensor) + ", c = " + std::to_string(context) + " " +
                                  model::ContextCommName(comm);
        StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), sim::SimOptions{});
        ASSERT_TRUE(r.ok()) << where << ": " << r.status().message();
        EXPECT_NEAR(r->volumes.cross_node[cp], expected.cross_node[cp], 1e-9 * expected.cross_node[cp] + 1e-3)
            << where;
        EXPECT_NEAR(r->volumes.intra_node[cp], expected.intra_node[cp], 1e-9 * expected.intra_node[cp] + 1e-3)
            << where;
        EXPECT_NEAR(r->timing.iteration_s, analytic.iteration_s, 0.02 * analytic.iteration_s) << where;
      }
    }
  }
}

}  // namespace
}  // namespace zerosim::testing
