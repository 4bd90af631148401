#include "model/builders/schedule_builder.h"

#include <gtest/gtest.h>

#include "model/analytic/analytic.h"
#include "model/builders/fetch_coordinator.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

TEST(Schedule, DependenciesPointBackwardAndComputeCoversTheTrace) {
  const ModelSpec m = testing::Gpt(4, 1024, 8);
  ZeroConfig z = testing::ZeroPlusPlus(16);
  z.gradient_accumulation_steps = 3;
  const Schedule s = BuildSchedule(m, z, testing::PaperCluster(2, 4, 16));
  int compute = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    for (int d = 0; d < op.num_deps; ++d) EXPECT_LT(op.deps[static_cast<size_t>(d)], static_cast<int>(i));
    if (op.kind == OpKind::kCompute) ++compute;
  }
  const size_t trace = BuildTrace(s.graph, z.activation_checkpointing).size();
  EXPECT_EQ(compute, static_cast<int>(3 * trace));
}

TEST(Schedule, SelectiveRecomputeRecomputesOnlyTheUnfusedAttentionCore) {
  ModelSpec m = testing::Gpt(4, 1024, 16);
  ZeroConfig z;
  z.activation_checkpointing = false;
  z.recompute = RecomputePolicy::kSelective;
  auto flagged = [&](const ModelSpec& spec) {
    int n = 0;
    for (const ComputeClass& cc : BuildSchedule(spec, z, testing::PaperCluster(1, 2)).compute_classes) {
      n += cc.work.recompute_in_backward ? 1 : 0;
    }
    return n;
  };
  m.attention = AttentionImpl::kUnfused;
  // Every block's core shares one work description: one forward and one backward class carry the flag.
  EXPECT_EQ(flagged(m), 2);
  m.attention = AttentionImpl::kFlash;  // FlashAttention recomputes inside its own backward
  EXPECT_EQ(flagged(m), 0);
  m.attention = AttentionImpl::kUnfused;
  z.recompute = RecomputePolicy::kNone;
  EXPECT_EQ(flagged(m), 0);
}

TEST(Schedule, TraceIsForwardThenRecomputeAndBackwardPerBlock) {
  const ModuleGraph g = BuildModuleGraph(testing::Gpt(2, 256, 4), 2048);
  const std::vector<TraceStep> t = BuildTrace(g, true);
  const size_t n = g.modules.size();
  // forward n + head and final LayerNorm backward 2 + per block 7 recomputed + 7 backward + 2 embeddings.
  ASSERT_EQ(t.size(), n + 2 + 2 * 14 + 2);
  EXPECT_EQ(t[n].module, g.head_module);
  EXPECT_EQ(t[n + 2].phase, Phase::kRecompute);
  EXPECT_EQ(t[n + 2].module, g.block_begin[1]);
  EXPECT_EQ(t.back().module, 0);
  EXPECT_EQ(t.back().phase, Phase::kBackward);
  EXPECT_EQ(BuildTrace(g, false).size(), 2 * n);
}

TEST(Schedule, PrefetchBucketCoalescesSmallSubmodules) {
  // stage3_prefetch_bucket_size = 5e7 elements. At h = 6144 the attention output projection (h^2 = 37.7M)
  // is below it, so the prefetch issued at the QKV hook also takes the MLP's first matrix (one all-gather
  // for both); at h = 8192 (h^2 = 67M) each matrix is its own all-gather.
  const ClusterSpec c = testing::PaperCluster(1);
  auto forward_gathers = [&](const ModelSpec& m) {
    int n = 0;
    for (const Op& op : BuildSchedule(m, ZeroConfig{}, c).ops) {
      n += op.kind == OpKind::kCollective && op.purpose == Purpose::kForwardAllGather;
    }
    return n;
  };
  const int layers = 4;
  const int small = forward_gathers(testing::Gpt(layers, 6144, 32));
  const int large = forward_gathers(testing::Gpt(layers, 8192, 64));
  EXPECT_EQ(large - small, layers);
}

TEST(Schedule, HostBlocksWhenTooManyFetchesAreOutstanding) {
  const Schedule s = BuildSchedule(testing::Gpt(4, 1024, 8), ZeroConfig{}, testing::PaperCluster(1, 4, 16));
  int host_syncs = 0;
  for (const Op& op : s.ops) host_syncs += op.kind == OpKind::kHost && op.num_deps > 0;
  EXPECT_GT(host_syncs, 0);
}

TEST(Schedule, ReduceScatterCoalescedSlicesEveryGradientOncePerRankOnTheHost) {
  // DeepSpeed's reduce_scatter_coalesced: one Python slice per rank and gradient, before each bucket's call. Every
  // parameter's gradient is reduced once per micro-step, so the host time grows by world x params x view time.
  const ModelSpec m = testing::Gpt(4, 1024, 8);
  const ClusterSpec c = testing::PaperCluster(2, 4, 16);
  ZeroConfig z;
  z.gradient_accumulation_steps = 2;
  // No prefetch: every fetch then gathers one weight (the biases and norms are persistent), a gather with no
  // per-rank host loop (coalesced_gather_test.cc), so all host time here is the reduction's.
  z.stage3_prefetch_bucket_size = 0;
  auto host_s = [&](double view_s) {
    z.runtime.host_tensor_view_s = view_s;
    double sum = 0;
    for (const Op& op : BuildSchedule(m, z, c).ops) sum += op.kind == OpKind::kHost ? op.host_s : 0.0;
    return sum;
  };
  const Schedule s = BuildSchedule(m, z, c);
  const double expected = 2.0 * c.total_gpus() * static_cast<double>(s.graph.params.size()) * 5e-6;
  EXPECT_NEAR(host_s(5e-6) - host_s(0), expected, 1e-9 * expected);
}

TEST(Schedule, PersistentParametersAreGatheredOneByOneAfterTheStep) {
  // DeepSpeed's _post_step: one all-gather per persistent parameter (numel < the persistence threshold, 1e5 by
  // default: here every bias and norm of a hidden-1024 GPT) after the optimizer, then a host synchronisation.
  const ModelSpec m = testing::Gpt(4, 1024, 8);
  const ClusterSpec c = testing::PaperCluster(2, 4, 16);
  const Schedule s = BuildSchedule(m, ZeroConfig{}, c);
  int persistent = 0;
  for (const Param& p : s.graph.params) persistent += p.numel() < 1e5;
  ASSERT_GT(persistent, 0);
  int gathers = 0, last = -1;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.phase != Phase::kOptimizer || op.kind != OpKind::kCollective) continue;
    EXPECT_EQ(op.coll.kind, CollectiveKind::kAllGather);
    EXPECT_EQ(op.coll.group, GroupKind::kGlobal);
    ++gathers;
    last = static_cast<int>(i);
  }
  EXPECT_EQ(gathers, persistent);
  const Op& sync = s.ops.back();
  EXPECT_EQ(sync.kind, OpKind::kHost);
  ASSERT_EQ(sync.num_deps, 1);
  EXPECT_EQ(sync.deps[0], last);
}

TEST(Schedule, QuantizationGroupSizeFollowsDeepSpeedsAdaptiveRule) {
  // 294912 = 2^15 * 9 elements: start at ceil(n / 8000) = 37 groups, grow to 48, the first count with
  // 8 * groups dividing n; 6144 elements per group is below 8000, so no doubling.
  EXPECT_DOUBLE_EQ(QuantizationGroupSize(294912, 8000), 6144);
  // 2^20 elements: ceil(n / 8000) = 132; the first count >= 132 with 8 * groups dividing 2^20 is 256.
  EXPECT_DOUBLE_EQ(QuantizationGroupSize(1 << 20, 8000), 4096);
  // Not divisible by 8: DeepSpeed would assert; ZeroSim keeps target-sized groups.
  EXPECT_DOUBLE_EQ(QuantizationGroupSize(100001, 8000), 100001.0 / 13);
}

TEST(Analytic, IsDeterministicAndConsistent) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1);
  const Calibration cal = testing::TestCalibration();
  for (const ZeroConfig& z : {ZeroConfig{}, testing::ZeroPlusPlus(16)}) {
    const Schedule s = BuildSchedule(m, z, c);
    const Timing a = EvaluateAnalytic(s, c, cal);
    const Timing b = EvaluateAnalytic(BuildSchedule(m, z, c), c, cal);
    EXPECT_EQ(a.iteration_s, b.iteration_s);  // bit-identical
    EXPECT_GE(a.iteration_s, a.compute_busy_s);
    EXPECT_GE(a.exposed_comm_s, 0.0);
    EXPECT_NEAR(a.iteration_s, a.compute_s + a.optimizer_s + a.gpu_side_s + a.exposed_comm_s, 1e-9 * a.iteration_s);
    for (size_t i = 0; i < s.ops.size(); ++i) {
      ASSERT_LE(a.start_s[i], a.finish_s[i]);
      for (int d = 0; d < s.ops[i].num_deps; ++d) {
        ASSERT_GE(a.start_s[i], a.finish_s[static_cast<size_t>(s.ops[i].deps[static_cast<size_t>(d)])]);
      }
    }
  }
}

TEST(Analytic, ComputeBoundWhenTheNetworkIsFast) {
  // With a very fast network, communication hides behind compute: the iteration is the compute stream's
  // work plus the first gathers that nothing can overlap.
  const ModelSpec m = testing::Gpt(8, 4096, 32);
  ClusterSpec c = testing::PaperCluster(8, 4, 16);
  c.nic.bandwidth_Bps = 1e13;
  c.intra.bandwidth_Bps = 1e13;
  const Timing t = EvaluateAnalytic(BuildSchedule(m, ZeroConfig{}, c), c, testing::TestCalibration());
  EXPECT_LT(t.exposed_comm_s / t.iteration_s, 0.05);
}

}  // namespace
}  // namespace zerosim::model
