// Context parallelism (parallel_layout.h `context`; issue 37 item 3): what one rank computes and keeps, the
// key/value ring's collectives in the schedule, the batch it trains, and the refusals of what is not
// modelled.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model/builders/schedule_builder.h"
#include "model/placement/traffic.h"
#include "model/report/evaluate.h"
#include "model/report/memory.h"
#include "model/spec/feasibility.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

// A small grouped-query model: 4 blocks, 16 heads of 64, 4 key/value heads, 8K tokens.
ModelSpec Small() {
  ModelSpec m = testing::Gpt(4, 1024, 16);
  m.kv_heads = 4;
  m.mlp = MlpKind::kSwiglu;
  m.biases = BiasKind::kNone;
  m.norm = NormKind::kRmsNorm;
  m.positions = PositionKind::kRotary;
  m.ffn_hidden = 2816;
  m.seq_len = 8192;
  m.max_position_embeddings = 8192;
  m.attention = AttentionImpl::kFlash;
  return m;
}

ZeroConfig Zero1() {
  ZeroConfig z;
  z.strategy = Strategy::kZero1;
  z.stage = 1;
  z.gradient_accumulation_steps = 2;
  z.train_micro_batch_size_per_gpu = 1;
  z.activation_checkpointing = false;
  return z;
}

// t-way tensor parallelism (with sequence parallelism when t > 1) beside c-way context parallelism.
ParallelLayout Layout(int t, int c, ContextComm comm = ContextComm::kP2p) {
  ParallelLayout l;
  l.tensor = t;
  l.sequence_parallel = t > 1;
  l.context = c;
  l.context_comm = comm;
  return l;
}

struct CpOps {
  int gathers = 0;
  int reduce_scatters = 0;
  int group_size = 0;
  double bytes = 0;
};

CpOps CountCpOps(const Schedule& s) {
  CpOps out;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.purpose != Purpose::kContextParallel) continue;
    EXPECT_EQ(op.queue, Queue::kNcclCp);
    EXPECT_EQ(op.coll.group, GroupKind::kContext);
    (op.coll.kind == CollectiveKind::kAllGather ? out.gathers : out.reduce_scatters) += 1;
    out.group_size = op.coll.group_size;
    out.bytes = op.coll.buffer_bytes;
  }
  return out;
}

TEST(ContextParallel, ARankComputesItsShareOfTheCausalTriangleOnItsSliceOfTheSequence) {
  const ModelSpec m = Small();
  ParallelLayout l;
  l.context = 4;
  const double tokens = 8192.0 / 4;  // one sequence, s/c tokens per rank
  const ModuleGraph g = BuildModuleGraph(m, tokens, l);
  const ModuleGraph whole = BuildModuleGraph(m, 8192.0, ParallelLayout{});
  for (size_t i = 0; i < g.modules.size(); ++i) {
    if (!g.modules[i].name.ends_with("attention.core")) continue;
    const AttentionWork& a = g.modules[i].work.attention;
    const AttentionWork& w = whole.modules[i].work.attention;
    EXPECT_DOUBLE_EQ(a.batch_heads, w.batch_heads);  // still one sequence's heads
    EXPECT_DOUBLE_EQ(a.seq_q, 8192.0 / 4);           // the rank's queries
    EXPECT_DOUBLE_EQ(a.seq_kv, 8192.0);              // every key comes round the ring
    EXPECT_TRUE(a.causal);
    // Its FLOPs are a quarter of the whole sequence's attention core: the load-balanced split.
    EXPECT_DOUBLE_EQ(g.modules[i].forward_flops * 4, whole.modules[i].forward_flops);
  }
  // The GEMMs run on the rank's tokens only.
  for (size_t i = 0; i < g.modules.size(); ++i) {
    if (g.modules[i].name.ends_with("attention.query_key_value")) {
      EXPECT_DOUBLE_EQ(g.modules[i].forward_flops * 4, whole.modules[i].forward_flops);
    }
  }
}

TEST(ContextParallel, EachAttentionBlockExchangesKeysAndValuesRoundTheRing) {
  const ModelSpec m = Small();
  ZeroConfig z = Zero1();
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);  // 16 ranks
  EXPECT_EQ(CountCpOps(BuildSchedule(m, z, RankShape(c, Layout(2, 1)))).gathers, 0);
  const ParallelLayout l = Layout(2, 4);
  const CpOps cp = CountCpOps(BuildSchedule(m, z, RankShape(c, l)));
  // 4 blocks x 2 micro-steps: the forward's all-gather, the backward's all-gather and gradient
  // reduce-scatter.
  EXPECT_EQ(cp.gathers, 4 * 2 * 2);
  EXPECT_EQ(cp.reduce_scatters, 4 * 2);
  EXPECT_EQ(cp.group_size, 4);
  // K and V of 2048 tokens, 4 key/value heads of 64 split over t = 2, 16-bit, gathered from 4 ranks.
  EXPECT_DOUBLE_EQ(cp.bytes, 4 * 2.0 * 2048 * (4 * 64 / 2) * 2.0);
  // Full recompute runs the forward's ring once more.
  z.activation_checkpointing = true;
  EXPECT_EQ(CountCpOps(BuildSchedule(m, z, RankShape(c, l))).gathers, 4 * 3 * 2);
}

TEST(ContextParallel, UlyssesAllToAllsSurroundALocalAttentionOverEveryTokenOfItsHeads) {
  // DeepSpeed-Ulysses (context_comm = "a2a"): the rank attends all s queries of a / (t c) heads; Q, K, V go
  // out by one all-to-all before the core and the output by one after it (the backward the other way round).
  ModelSpec m = Small();
  m.kv_heads = 8;  // 4 per tensor rank: context 4 splits them
  const ZeroConfig z = Zero1();
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  const ParallelLayout l = Layout(2, 4, ContextComm::kAllToAll);
  ASSERT_TRUE(testing::Validate(m, z, c, l).empty());
  const Schedule s = BuildSchedule(m, z, RankShape(c, l));
  int all_to_alls = 0;
  double qkv = 0, out = 0;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.purpose != Purpose::kContextParallel) continue;
    EXPECT_EQ(op.coll.kind, CollectiveKind::kAllToAll);
    EXPECT_EQ(op.coll.group_size, 4);
    ++all_to_alls;
    qkv = std::max(qkv, op.coll.buffer_bytes);
    out = out == 0 ? op.coll.buffer_bytes : std::min(out, op.coll.buffer_bytes);
  }
  EXPECT_EQ(all_to_alls, 4 * 2 * 4);  // 4 blocks x 2 micro-steps x (2 forward + 2 backward)
  // 2048 tokens x (16 query + 2 x 8 key/value heads of 64) / t = 2, and the output's 16 heads / 2; 16-bit.
  EXPECT_DOUBLE_EQ(qkv, 2.0 * 2048 * (1024 + 2 * 512) / 2);
  EXPECT_DOUBLE_EQ(out, 2.0 * 2048 * 1024 / 2);
  for (const Module& mod : s.graph.modules) {
    if (!mod.name.ends_with("attention.core")) continue;
    EXPECT_DOUBLE_EQ(mod.work.attention.batch_heads, 16.0 / 2 / 4);  // one sequence, a / (t c) heads
    EXPECT_DOUBLE_EQ(mod.work.attention.seq_q, 8192);
  }
  // The heads must split: 4 key/value heads over t = 2 leave 2 per rank, which context 4 does not divide.
  ModelSpec few = m;
  few.kv_heads = 4;
  const std::vector<Problem> p = testing::Validate(few, z, c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "context_comm");
}

// PyTorch's all-gather rotation (context_comm = "all_gather", torchtitan's default): per block one all-gather
// of the keys and values in the forward and one in the backward, the same bytes as the ring's, and in the
// backward the fp32 key/value gradients' ring as one reduce-scatter of twice those bytes in 4-byte elements.
// Only the local 1/c of the kernel hides the gather, where TransformerEngine's ring hides (c - 1)/c of it: on
// a slow network it exposes more.
TEST(ContextParallel, PyTorchsAllGatherRotationGathersOnceAndRingsTheGradientsInFp32) {
  const ModelSpec m = Small();
  const ZeroConfig z = Zero1();
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  const ParallelLayout l = Layout(2, 4, ContextComm::kAllGather);
  ASSERT_TRUE(testing::Validate(m, z, c, l).empty());
  const Schedule s = BuildSchedule(m, z, RankShape(c, l));
  int gathers = 0, rings = 0;
  const double kv = 4 * 2.0 * 2048 * (4 * 64 / 2) * 2.0;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.purpose != Purpose::kContextParallel) continue;
    EXPECT_EQ(op.coll.group_size, 4);
    if (op.coll.kind == CollectiveKind::kAllGather) {
      ++gathers;
      EXPECT_DOUBLE_EQ(op.coll.buffer_bytes, kv);
    } else {
      ASSERT_EQ(op.coll.kind, CollectiveKind::kReduceScatter);
      ++rings;
      EXPECT_DOUBLE_EQ(op.coll.buffer_bytes, 2 * kv);
      EXPECT_DOUBLE_EQ(op.coll.element_bytes, 4.0);
    }
  }
  EXPECT_EQ(gathers, 4 * 2 * 2);  // 4 blocks x 2 micro-steps x (forward, backward)
  EXPECT_EQ(rings, 4 * 2);
  // The same attention work as the ring's: s/c queries against every key, 1/c of the causal triangle.
  const Schedule ring = BuildSchedule(m, z, RankShape(c, Layout(2, 4)));
  double flops = 0, ring_flops = 0;
  for (const Op& op : s.ops) flops += op.kind == OpKind::kCompute ? op.flops : 0;
  for (const Op& op : ring.ops) ring_flops += op.kind == OpKind::kCompute ? op.flops : 0;
  EXPECT_NEAR(flops, ring_flops, 1e-9 * ring_flops);
  // Across slow nodes (c = 16 over two nodes of 8, one 100 Gbps NIC each) the gather hides behind 1/c of the
  // kernel only: the all-gather rotation is slower than TransformerEngine's ring.
  ModelSpec long_seq = Small();
  long_seq.seq_len = 32768;
  long_seq.max_position_embeddings = 32768;
  const ParallelLayout ag = Layout(1, 16, ContextComm::kAllGather);
  const ParallelLayout p2p = Layout(1, 16);
  const VariantReport a = EvaluateAnalyticVariant("ag", {long_seq, z, c, testing::TestCalibration(), ag});
  const VariantReport b = EvaluateAnalyticVariant("p2p", {long_seq, z, c, testing::TestCalibration(), p2p});
  EXPECT_TRUE(a.feasible && b.feasible) << a.infeasible_reason << b.infeasible_reason;
  EXPECT_GT(a.iteration_time_s, b.iteration_time_s);
}

TEST(ContextParallel, AnAllToAllOfAContextGroupBesideTensorParallelismSplitsItsBytesByWhereItsMembersSit) {
  // 8 nodes x 4 GPUs, t = 2: a context group of 4 DP ranks of one TP rank spans 2 nodes, 2 members on each.
  // Each rank sends buffer/4 to 1 peer on its node and 2 on the other; 8 groups (2 TP ranks x 4 node pairs).
  const ClusterSpec c = testing::PaperCluster(1, 8, 4);
  CollectiveSpec s;
  s.kind = CollectiveKind::kAllToAll;
  s.group = GroupKind::kContext;
  s.group_size = 4;
  s.buffer_bytes = 64e6;
  const Traffic t = CollectiveTraffic(s, testing::PlacementFor(s, c, /*tensor=*/2));
  EXPECT_DOUBLE_EQ(t.cross_total_bytes, 8 * 4 * 64e6 / 4 * 2);
  EXPECT_DOUBLE_EQ(t.intra_total_bytes, 8 * 4 * 64e6 / 4 * 1);
}

TEST(ContextParallel, TheGlobalBatchCountsSequencesNotContextRanks) {
  // 16 GPUs, t = 2, c = 4: d = 8 ranks reduce the gradients, 2 of them train distinct sequences.
  const ModelSpec m = Small();
  const ZeroConfig z = Zero1();
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  const ParallelLayout l = Layout(2, 4);
  EXPECT_EQ(l.data_parallel(16), 8);
  EXPECT_EQ(l.batch_parallel(16), 2);
  const VariantReport r = EvaluateAnalyticVariant("cp", {m, z, c, testing::TestCalibration(), l});
  ASSERT_TRUE(r.feasible) << r.infeasible_reason;
  // 2 sequences x micro-batch 1 x 2 steps of 8192 tokens per iteration.
  EXPECT_NEAR(r.tokens_per_s * r.iteration_time_s, 2.0 * 2 * 8192, 1e-6);
  EXPECT_GT(r.bytes.intra_node.context_parallel, 0);
  EXPECT_EQ(r.bytes.cross_node.context_parallel, 0);  // c t = 8 ranks: one node
  // The gradients go over all d = 8 ranks (Megatron's data-parallel group with context parallelism).
  const Schedule s = BuildSchedule(m, z, RankShape(c, l));
  EXPECT_EQ(s.data_parallel_size(), 8);
  EXPECT_EQ(s.optimizer_shards, 8);
}

TEST(ContextParallel, ARankKeepsItsSliceOfTheActivations) {
  const ModelSpec m = Small();
  ParallelLayout l;
  const double whole = BlockActivationBytes(m, 1, RecomputePolicy::kNone, l);
  l.context = 4;
  EXPECT_NEAR(BlockActivationBytes(m, 1, RecomputePolicy::kNone, l) * 4, whole, 1e-9 * whole);
}

TEST(ContextParallel, MoreContextRanksOverTheSameNodesCrossMoreOfTheNics) {
  // c t > 8 spans nodes: the ring's node-crossing bytes appear and grow with c.
  const ModelSpec m = Small();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  double last = -1;
  for (int cp : {2, 8, 16}) {
    const ParallelLayout l = Layout(2, cp);
    const VariantReport r = EvaluateAnalyticVariant("cp", {m, Zero1(), c, testing::TestCalibration(), l});
    ASSERT_TRUE(r.feasible) << r.infeasible_reason;
    EXPECT_TRUE(std::isfinite(r.iteration_time_s));
    EXPECT_GE(r.bytes.cross_node.context_parallel, last) << cp;
    if (cp == 2) {
      EXPECT_EQ(r.bytes.cross_node.context_parallel, 0.0);
    }
    last = r.bytes.cross_node.context_parallel;
  }
  EXPECT_GT(last, 0);
}

TEST(ContextParallel, LayoutsThatBreakTheRulesOrLeaveTheModelledGroundAreRefusedAtTheirKey) {
  const ModelSpec m = Small();
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  ParallelLayout l;
  l.context = 3;  // divides neither d = 16 nor 2 x 3 into 8192 tokens
  std::vector<Problem> p = testing::Validate(m, Zero1(), c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "context");
  l.context = 4;
  EXPECT_TRUE(testing::Validate(m, Zero1(), c, l).empty());
  // A sequence that does not split into 2c chunks.
  ModelSpec odd = m;
  odd.seq_len = 8188;
  p = testing::Validate(odd, Zero1(), c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "context");
  // The unfused attention has no ring: not modelled.
  ModelSpec unfused = m;
  unfused.attention = AttentionImpl::kUnfused;
  p = testing::Validate(unfused, Zero1(), c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "context");
  EXPECT_EQ(p[0].kind, ProblemKind::kNotModelled);
  // MiCS's shard groups beside the context-parallel ones: not modelled.
  ZeroConfig mics;
  mics.strategy = Strategy::kMics;
  mics.mics_shard_size = 8;
  p = testing::Validate(m, mics, c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "context");
  EXPECT_EQ(p[0].kind, ProblemKind::kNotModelled);
}

}  // namespace
}  // namespace zerosim::model
