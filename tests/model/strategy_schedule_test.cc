// The order of collectives each strategy issues, as its framework's code issues them (one test each).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/report/evaluate.h"
#include "model/builders/schedule_builder.h"
#include "strategy_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::GroupKind;
using model::Op;
using model::OpKind;
using model::Phase;
using model::Strategy;

// "ag/global@fwd", "rs/shard@bwd", ... for each collective in issue order.
std::vector<std::string> Collectives(const model::Schedule& s) {
  std::vector<std::string> out;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    const char* kind = op.coll.kind == CollectiveKind::kAllGather       ? "ag"
                       : op.coll.kind == CollectiveKind::kReduceScatter ? "rs"
                       : op.coll.kind == CollectiveKind::kAllReduce     ? "ar"
                                                                        : "a2a";
    const char* phase = op.phase == Phase::kForward ? "fwd" : op.phase == Phase::kOptimizer ? "opt" : "bwd";
    out.push_back(std::string(kind) + "/" + model::GroupKindName(op.coll.group) + "@" + phase);
  }
  return out;
}

int Count(const std::vector<std::string>& v, const std::string& what) {
  return static_cast<int>(std::count(v.begin(), v.end(), what));
}

const model::ClusterSpec kCluster = PaperCluster(1, 4, 8);

TEST(StrategySchedule, Zero1ReducesOnceAfterTheLastBackwardThenGathersAfterTheStep) {
  model::ZeroConfig z = StrategyConfig(Strategy::kZero1);
  z.gradient_accumulation_steps = 2;
  const model::Schedule s = model::BuildSchedule(EvenGpt(), z, kCluster);
  const std::vector<std::string> c = Collectives(s);
  ASSERT_GE(c.size(), 2u);
  // No gather in the passes; the reduce-scatters all belong to the second micro-step; the all-gather last.
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::kCollective && op.coll.kind == CollectiveKind::kReduceScatter) {
      EXPECT_EQ(op.micro_step, 1);
    }
  }
  EXPECT_EQ(c.back(), "ag/global@opt");
  EXPECT_EQ(Count(c, "ag/global@fwd"), 0);
  EXPECT_GT(Count(c, "rs/global@bwd"), 0);
}

TEST(StrategySchedule, Zero2ReducesDuringEveryBackward) {
  model::ZeroConfig z = StrategyConfig(Strategy::kZero2);
  z.gradient_accumulation_steps = 2;
  z.reduce_bucket_size = 1e7;  // several buckets per pass
  const model::Schedule s = model::BuildSchedule(EvenGpt(), z, kCluster);
  int per_micro[2] = {0, 0};
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::kCollective && op.coll.kind == CollectiveKind::kReduceScatter) {
      ++per_micro[op.micro_step];
    }
  }
  EXPECT_GT(per_micro[0], 1);
  EXPECT_EQ(per_micro[0], per_micro[1]);
  // Without overlap_comm the default stream waits for each bucket's reduction.
  int compute_waits = 0;
  for (const Op& op : s.ops) compute_waits += op.kind == OpKind::kWait && op.queue == model::Queue::kCompute;
  EXPECT_GE(compute_waits, 2 * per_micro[0]);
  EXPECT_EQ(Collectives(s).back(), "ag/global@opt");
}

TEST(StrategySchedule, Zero3GathersEveryModuleThenReduceScatters) {
  const model::Schedule s = model::BuildSchedule(EvenGpt(), StrategyConfig(Strategy::kZero3), kCluster);
  const std::vector<std::string> c = Collectives(s);
  EXPECT_EQ(c.front(), "ag/global@fwd");
  EXPECT_EQ(c.back(), "rs/global@bwd");
  EXPECT_EQ(Count(c, "ar/global@bwd"), 0);
}

TEST(StrategySchedule, MicsReduceScattersInTheShardAndAllReducesAtTheBoundaryOnly) {
  model::ZeroConfig z = StrategyConfig(Strategy::kMics);
  z.mics_shard_size = 16;  // two nodes
  z.mics_hierarchical_params_gather = true;
  z.gradient_accumulation_steps = 2;
  const model::Schedule s = model::BuildSchedule(EvenGpt(), z, kCluster);
  std::string previous;
  int replica_all_reduces = 0;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    const std::string group = model::GroupKindName(op.coll.group);
    if (op.coll.kind == CollectiveKind::kAllGather && group == "local") {
      EXPECT_EQ(previous, "shard_cross_node") << "the hierarchical gather crosses nodes first";
    }
    if (op.coll.kind == CollectiveKind::kReduceScatter) {
      EXPECT_EQ(group, "shard");
    }
    if (op.coll.kind == CollectiveKind::kAllReduce) {
      EXPECT_EQ(group, "replica");
      EXPECT_EQ(op.micro_step, 1);
      ++replica_all_reduces;
    }
    previous = group;
  }
  EXPECT_GT(replica_all_reduces, 0);
}

TEST(StrategySchedule, FsdpFullShardGathersPerUnitWithBackwardPrefetch) {
  const model::ModelSpec m = EvenGpt(3);
  const model::Schedule s = model::BuildSchedule(m, StrategyConfig(Strategy::kFsdpFullShard), kCluster);
  // Forward: the root, then blocks 0, 1, 2. Backward: block 2 (resharded after forward), then block 1
  // prefetched before block 2's reduce-scatter (BACKWARD_PRE), and so on; the root's reduce-scatter last.
  const std::vector<std::string> want = {"ag/global@fwd", "ag/global@fwd", "ag/global@fwd", "ag/global@fwd",
                                         "ag/global@bwd", "ag/global@bwd", "rs/global@bwd", "ag/global@bwd",
                                         "rs/global@bwd", "rs/global@bwd", "rs/global@bwd"};
  EXPECT_EQ(Collectives(s), want);
  // limit_all_gathers: the host blocks on a free event before the third block's forward all-gather.
  int host_waits_in_forward = 0;
  for (const Op& op : s.ops) {
    host_waits_in_forward += op.kind == OpKind::kHost && op.phase == Phase::kForward && op.num_deps > 0;
  }
  EXPECT_EQ(host_waits_in_forward, 1);
}

TEST(StrategySchedule, ShardGradOpNeverGathersInBackward) {
  const model::Schedule s =
      model::BuildSchedule(EvenGpt(3), StrategyConfig(Strategy::kFsdpShardGradOp), kCluster);
  const std::vector<std::string> want = {"ag/global@fwd", "ag/global@fwd", "ag/global@fwd", "ag/global@fwd",
                                         "rs/global@bwd", "rs/global@bwd", "rs/global@bwd", "rs/global@bwd"};
  EXPECT_EQ(Collectives(s), want);
}

TEST(StrategySchedule, NoShardAllReducesEachUnit) {
  const model::Schedule s =
      model::BuildSchedule(EvenGpt(3), StrategyConfig(Strategy::kFsdpNoShard), kCluster);
  EXPECT_EQ(Collectives(s), std::vector<std::string>(4, "ar/global@bwd"));
}

TEST(StrategySchedule, HybridReduceScattersInTheNodeThenAllReducesAcross) {
  const model::Schedule s =
      model::BuildSchedule(EvenGpt(2), StrategyConfig(Strategy::kFsdpHybridShard), kCluster);
  const std::vector<std::string> c = Collectives(s);
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] == "rs/shard@bwd") {
      ASSERT_LT(i + 1, c.size());
      EXPECT_EQ(c[i + 1], "ar/replica@bwd");
    }
  }
  EXPECT_EQ(Count(c, "rs/shard@bwd"), 3);
  EXPECT_EQ(Count(c, "ar/replica@bwd"), 3);
  EXPECT_EQ(Count(c, "ag/global@fwd"), 0);
}

TEST(StrategySchedule, Fsdp2CopiesInBeforeAndOutAfterEachGather) {
  const model::Schedule s = model::BuildSchedule(EvenGpt(2), StrategyConfig(Strategy::kFsdp2), kCluster);
  int gathers = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kCollective || op.coll.kind != CollectiveKind::kAllGather) continue;
    ++gathers;
    // The copy-in is the all-gather stream's op just before, and a copy-out on the compute stream follows.
    bool copy_in = false, copy_out = false;
    for (size_t j = i; j-- > 0;) {
      if (s.ops[j].queue != model::Queue::kAllGatherStream) continue;
      copy_in = s.ops[j].kind == OpKind::kMemory;
      break;
    }
    for (size_t j = i + 1; j < s.ops.size(); ++j) {
      if (s.ops[j].queue != model::Queue::kCompute) continue;
      if (s.ops[j].kind == OpKind::kMemory) copy_out = true;
      if (s.ops[j].kind == OpKind::kCompute) break;
      if (copy_out) break;
    }
    EXPECT_TRUE(copy_in) << "gather " << gathers;
    EXPECT_TRUE(copy_out || gathers > 1) << "gather " << gathers;
  }
  EXPECT_EQ(gathers, 3 + 2);  // forward: root and two blocks; backward: the two blocks
}

// Every strategy, with DeepSpeed's and PyTorch's defaults (prefetch, persistence, recompute, accumulation),
// satisfies the model's invariants (model/report/invariants.h: bytes conserved, times bounded, memory
// summed).
TEST(StrategySchedule, EveryStrategyPassesTheInvariants) {
  model::ModelSpec m = EvenGpt(3);
  m.tied_embeddings = true;
  for (const model::ClusterSpec& c : StrategyClusters()) {
    for (Strategy st : AllStrategies()) {
      model::ZeroConfig z;
      z.strategy = st;
      z.framework = model::FrameworkOf(st);
      z.gradient_accumulation_steps = 2;
      z.mics_shard_size = z.fsdp.hsdp_shard_size = 2 * c.gpus_per_node;
      z.mics_hierarchical_params_gather = true;
      const model::VariantReport r = model::EvaluateAnalyticVariant("v", {m, z, c, TestCalibration()});
      EXPECT_EQ(r.invariant_violation, "")
          << model::StrategyName(st) << " on " << c.nodes << "x" << c.gpus_per_node;
      EXPECT_GT(r.iteration_time_s, 0) << model::StrategyName(st);
    }
  }
}

}  // namespace
}  // namespace zerosim::testing
