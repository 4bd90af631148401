// Mixture of experts (model_spec.h `experts`; issue 37): parameters and FLOPs as the frameworks count them,
// the module graph of an MoE block, expert parallelism's all-to-alls and gradient groups in the schedule, the
// states' sharding, the all-to-all's placement, and the refusals of what is not modelled.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "model/builders/schedule_builder.h"
#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/placement/traffic.h"
#include "model/report/evaluate.h"
#include "model/report/memory.h"
#include "model/spec/feasibility.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

ModelSpec Mixtral() {
  const StatusOr<io::ModelFile> m = io::LoadModel(
      io::DiskFileSource(), std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/models/mixtral_8x7b.toml");
  EXPECT_TRUE(m.ok()) << m.status().message();
  ModelSpec out = m.ok() ? m->model : ModelSpec{};
  out.seq_len = 4096;
  return out;
}

// A small MoE model: 4 blocks, the first dense, 16 experts of width 256 (2 per token), a shared expert of
// 512.
ModelSpec Small() {
  ModelSpec m = testing::Gpt(4, 1024, 8);
  m.mlp = MlpKind::kSwiglu;
  m.biases = BiasKind::kNone;
  m.norm = NormKind::kRmsNorm;
  m.positions = PositionKind::kRotary;
  m.ffn_hidden = 2816;
  m.experts = 16;
  m.experts_per_token = 2;
  m.moe_ffn_hidden = 256;
  m.shared_expert_ffn = 512;
  m.first_dense_layers = 1;
  return m;
}

ZeroConfig Zero1() {
  ZeroConfig z;
  z.strategy = Strategy::kZero1;
  z.stage = 1;
  z.gradient_accumulation_steps = 2;
  z.train_micro_batch_size_per_gpu = 1;
  return z;
}

TEST(Moe, MixtralMatchesItsPublishedTotalAndActiveParameters) {
  // Jiang et al. 2024, "Mixtral of Experts", sec. 1: 47B parameters, 13B active per token; the model card's
  // 46.7B and 12.9B.
  const ModelSpec m = Mixtral();
  EXPECT_NEAR(TotalParams(m) / 46.70e9, 1.0, 0.005) << TotalParams(m);
  EXPECT_NEAR(ActiveParams(m) / 12.88e9, 1.0, 0.01) << ActiveParams(m);
}

TEST(Moe, CountsFollowMegatronsRules) {
  const ModelSpec m = Small();
  const double h = 1024, tokens = 2048;
  EXPECT_FALSE(IsMoeLayer(m, 0));
  EXPECT_TRUE(IsMoeLayer(m, 1));
  EXPECT_EQ(MoeLayers(m), 3);
  // An MoE block's MLP: the router h E, 16 experts of 3 h 256, the shared expert of 3 h 512.
  const double moe_mlp = h * 16 + 16 * 3 * h * 256 + 3 * h * 512;
  EXPECT_DOUBLE_EQ(ParamsOfLayer(m, 1) - ParamsOfLayer(m, 0), moe_mlp - 3 * h * 2816);
  EXPECT_DOUBLE_EQ(TotalParams(m) - ActiveParams(m),
                   3 * 14 * 3 * h * 256);  // 14 unused experts per MoE block
  // FLOPs: the MLP term 2 tokens 3 h (k f_e + f_s), the router not counted (training.py transformer_flops).
  EXPECT_DOUBLE_EQ(ForwardFlopsOfLayer(m, 1, tokens) - ForwardFlopsOfLayer(m, 0, tokens),
                   2 * tokens * 3 * h * (2 * 256 + 512 - 2816));
  double blocks = 0;
  for (int l = 0; l < 4; ++l) blocks += ForwardFlopsOfLayer(m, l, tokens);
  EXPECT_DOUBLE_EQ(TrainingFlops(m, tokens, false), 3 * blocks + 3 * LogitForwardFlops(m, tokens));
  // A pipeline stage's slice decides by the model's block index.
  ModelSpec second_half = m;
  second_half.layers = 2;
  second_half.layer_offset = 2;
  EXPECT_EQ(MoeLayers(second_half), 2);
}

TEST(Moe, ASlidingWindowShortensTheWindowedBlocksAttention) {
  // gpt-oss's pattern: window 128 on blocks 0, 2, ..., full attention on blocks 1, 3, ...
  ModelSpec m = Small();
  m.sliding_window = 128;
  m.full_attention_interval = 2;
  const double tokens = 2048, q = 1024;
  EXPECT_EQ(AttentionSpan(m, 0), 128);
  EXPECT_EQ(AttentionSpan(m, 1), 2048);
  EXPECT_DOUBLE_EQ(ForwardFlopsOfLayer(m, 2, tokens) - ForwardFlopsOfLayer(m, 3, tokens),
                   4 * tokens * q * (128 - 2048));
  const ModuleGraph g = BuildModuleGraph(m, tokens);
  for (const Module& mod : g.modules) {
    if (!mod.name.ends_with("attention.core")) continue;
    const bool windowed = mod.layer % 2 == 0;
    EXPECT_EQ(mod.work.attention.seq_kv, windowed ? 128 : 2048) << mod.name;
    EXPECT_EQ(mod.work.attention.causal, !windowed) << mod.name;
  }
  // A window wider than the sequence is no window.
  m.sliding_window = 4096;
  EXPECT_EQ(AttentionSpan(m, 0), 2048);
}

TEST(Moe, TheGraphsMoeBlockHoldsTheRanksExpertsAndSizesTheirGemmsByTheBusiestRank) {
  const ModelSpec m = Small();
  ParallelLayout l;
  l.expert = 4;
  l.expert_load_imbalance = 1.5;
  const double tokens = 2048;
  const ModuleGraph g = BuildModuleGraph(m, tokens, l);
  double block_flops = 0, expert_elements = 0;
  bool router = false, fc1 = false;
  for (const Module& mod : g.modules) {
    if (mod.layer != 1) continue;
    block_flops += mod.forward_flops;
    if (mod.name.ends_with("moe.router")) {
      router = true;
      EXPECT_EQ(mod.forward_flops, 0.0);  // Megatron's count leaves the router out; its GEMM is timed
      ASSERT_EQ(mod.work.gemms.size(), 1u);
      EXPECT_EQ(mod.work.gemms[0].n, 16);
    }
    if (mod.name.ends_with("moe.experts.dense_h_to_4h")) {
      fc1 = true;
      ASSERT_EQ(mod.work.gemms.size(), 1u);
      const Gemm& gemm = mod.work.gemms[0];
      EXPECT_EQ(gemm.batch, 4);                        // 16 / 4 local experts
      EXPECT_DOUBLE_EQ(gemm.m, tokens * 2 * 1.5 / 4);  // T k rho rows over the local experts
      EXPECT_EQ(gemm.n, 2 * 256);                      // gate and up fused
      EXPECT_DOUBLE_EQ(mod.forward_flops, 2 * tokens * 2 * 2 * 256 * 1024);  // nominal: k experts per token
    }
    for (int p : mod.params) {
      if (g.params[static_cast<size_t>(p)].name.find(".moe.experts.") != std::string::npos)
        expert_elements += g.params[static_cast<size_t>(p)].numel();
    }
  }
  EXPECT_TRUE(router && fc1);
  EXPECT_DOUBLE_EQ(expert_elements, 4 * 3 * 1024 * 256);  // the rank's 4 experts
  EXPECT_DOUBLE_EQ(block_flops, ForwardFlopsOfLayer(m, 1, tokens));
}

struct EpOps {
  int all_to_alls = 0;
  double buffer_bytes = 0;
  int expert_reductions = 0;
  int expert_group = 0;
};

EpOps CountEpOps(const Schedule& s) {
  EpOps out;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    if (op.purpose == Purpose::kExpertParallel) {
      EXPECT_EQ(op.queue, Queue::kNcclEp);
      EXPECT_EQ(op.coll.kind, CollectiveKind::kAllToAll);
      EXPECT_EQ(op.coll.group, GroupKind::kExpert);
      ++out.all_to_alls;
      out.buffer_bytes = op.coll.buffer_bytes;
      out.expert_group = op.coll.group_size;
    }
    if (op.purpose == Purpose::kGradientReduce && op.coll.group == GroupKind::kExpertData)
      ++out.expert_reductions;
  }
  return out;
}

TEST(Moe, ExpertParallelismAddsFourAllToAllsPerMoeBlockAndMicroStep) {
  const ModelSpec m = Small();
  ZeroConfig z = Zero1();
  z.activation_checkpointing = false;
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);  // 32 ranks
  ParallelLayout l;
  EXPECT_EQ(CountEpOps(BuildSchedule(m, z, RankShape(c, l))).all_to_alls, 0);
  l.expert = 8;
  const Schedule s = BuildSchedule(m, z, RankShape(c, l));
  const EpOps ep = CountEpOps(s);
  // 3 MoE blocks x (dispatch and combine, forward and backward) x 2 micro-steps.
  EXPECT_EQ(ep.all_to_alls, 3 * 4 * 2);
  EXPECT_EQ(ep.expert_group, 8);
  EXPECT_DOUBLE_EQ(ep.buffer_bytes, 2.0 * 2048 * 2 * 1024);  // T k h 16-bit values
  // The experts' gradients reduce-scattered over their expert-data-parallel group of 32 / 8 ranks.
  EXPECT_GE(ep.expert_reductions, 1);
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::kCollective && op.coll.group == GroupKind::kExpertData) {
      EXPECT_EQ(op.coll.group_size, 4);
    }
  }
  // Full recompute re-runs the forward's two per block.
  z.activation_checkpointing = true;
  EXPECT_EQ(CountEpOps(BuildSchedule(m, z, RankShape(c, l))).all_to_alls, 3 * 6 * 2);
}

TEST(Moe, ExpertStatesAreShardedOverTheirExpertDataParallelGroup) {
  const ModelSpec m = Small();
  const ZeroConfig z = Zero1();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ParallelLayout l;
  const Schedule whole = BuildSchedule(m, z, RankShape(c, l));
  l.expert = 8;
  const Schedule ep = BuildSchedule(m, z, RankShape(c, l));
  // Each rank stores 1/8 of the experts; the optimizer states of all experts spread over 8 x 4 ranks as the
  // whole model's over 32.
  const double experts = 3 * 16 * 3 * 1024 * 256;
  EXPECT_DOUBLE_EQ(ep.expert_elements, experts / 8);
  EXPECT_DOUBLE_EQ(whole.partitioned_elements - ep.partitioned_elements, experts * 7 / 8);
  const MemoryBreakdown a = EstimateMemory(m, z, c, whole);
  const MemoryBreakdown b = EstimateMemory(m, z, c, ep);
  EXPECT_NEAR(b.optimizer_states_bytes / a.optimizer_states_bytes, 1.0, 1e-12);
  EXPECT_NEAR(a.parameters_bytes - b.parameters_bytes, 2.0 * experts * 7 / 8, 1.0);
}

TEST(Moe, MegatronsModuleRecomputeDropsTheNormOutputsAndTheExpertsActivation) {
  // Small(): 3 of 4 blocks MoE, k = 2, f_e = 256, gated (6 bytes per unit of width kept, 4 with moe_act).
  const ModelSpec m = Small();
  const double b = 1, sb = 2048, h = 1024;
  const double base = BlockActivationBytes(m, b, RecomputePolicy::kNone);
  EXPECT_DOUBLE_EQ(base - BlockActivationBytes(m, b, RecomputePolicy::kNone, {}, {.layernorm = true}),
                   sb * 2 * 2 * h);  // the QKV and MLP inputs
  EXPECT_NEAR(base - BlockActivationBytes(m, b, RecomputePolicy::kNone, {}, {.moe_act = true}),
              sb * 3.0 / 4.0 * 2 * 2 * 256,
              1e-6 * base);  // 2 routed rows per token, 2 bytes per unit, 3/4 blocks
  // The norms and the activation re-run in the backward: more memory-bound time, no GEMM.
  ZeroConfig z = Zero1();
  z.activation_checkpointing = false;
  z.recompute_layernorm = true;
  z.recompute_moe_act = true;
  const Schedule s = BuildSchedule(m, z, RankShape(testing::PaperCluster(1, 4, 8)));
  int rerun = 0;
  for (const Module& mod : s.graph.modules) rerun += mod.work.recompute_elementwise ? 1 : 0;
  EXPECT_EQ(rerun, 4 * 2 + 3);  // two norms per block, the experts' fc1 of the 3 MoE blocks
}

TEST(Moe, AnAllToAllAcrossNodesSplitsItsBytesBetweenNvlinkAndTheNics) {
  ClusterSpec c = testing::PaperCluster(1, 4, 8);
  const double buffer = 64e6;
  // 16 ranks over 2 nodes, 2 instances: each rank sends buffer/16 to 7 peers on its node and 8 off it.
  const Traffic t = LoneCollectiveTraffic(CollectiveKind::kAllToAll, GroupKind::kExpert, 16, buffer, c);
  EXPECT_DOUBLE_EQ(t.intra_total_bytes, 32 * buffer / 16 * 7);
  EXPECT_DOUBLE_EQ(t.cross_total_bytes, 32 * buffer / 16 * 8);
  EXPECT_DOUBLE_EQ(t.max_node_nic_bytes, 8 * buffer / 16 * 8);
  EXPECT_DOUBLE_EQ(t.max_gpu_port_bytes, buffer / 16 * 7);
  // Inside one node: nothing crosses.
  const Traffic in_node = LoneCollectiveTraffic(CollectiveKind::kAllToAll, GroupKind::kExpert, 8, buffer, c);
  EXPECT_EQ(in_node.cross_total_bytes, 0.0);
  EXPECT_DOUBLE_EQ(in_node.intra_total_bytes, 32 * buffer / 8 * 7);
}

TEST(Moe, LayoutsThatBreakTheRulesOrLeaveTheModelledGroundAreRefusedAtTheirKey) {
  const ModelSpec m = Small();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ParallelLayout l;
  l.expert = 3;  // divides neither 16 experts nor 32 ranks
  std::vector<Problem> p = testing::Validate(m, Zero1(), c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "expert");
  l.expert = 8;
  EXPECT_TRUE(testing::Validate(m, Zero1(), c, l).empty());
  // Not an MoE model.
  p = testing::Validate(testing::Gpt(4, 1024, 8), Zero1(), c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "expert");
  // ZeRO-3 shards the parameters: not modelled with expert parallelism.
  p = testing::Validate(m, ZeroConfig{}, c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "expert");
  EXPECT_EQ(p[0].kind, ProblemKind::kNotModelled);
  // Tensor parallelism of an MoE model: only with the expert grid folded (expert_tensor = 1), sequence
  // parallelism and expert parallelism, without shared experts.
  ModelSpec routed = m;
  routed.shared_expert_ffn = 0;
  // The key of the first problem, "" for none.
  auto refused_at = [&c](const ModelSpec& model, const ParallelLayout& layout) {
    const std::vector<Problem> q = testing::Validate(model, Zero1(), c, layout);
    return q.empty() ? std::string() : q[0].key;
  };
  ParallelLayout tp;
  tp.tensor = 2;
  tp.expert = 8;
  EXPECT_EQ(refused_at(routed, tp),
            "expert_tensor");  // ETP defaults to t: experts split over the tensor ranks
  EXPECT_EQ(testing::Validate(routed, Zero1(), c, tp)[0].kind, ProblemKind::kNotModelled);
  tp.expert_tensor = 1;
  EXPECT_EQ(refused_at(routed, tp), "sequence_parallel");
  tp.sequence_parallel = true;
  EXPECT_EQ(refused_at(routed, tp), "");
  tp.expert = 1;  // ETP without expert parallelism
  EXPECT_EQ(refused_at(routed, tp), "expert_tensor");
  tp.expert = 64;  // folded: e counts ranks of the stage (32), not DP ranks
  EXPECT_EQ(refused_at(routed, tp), "expert");
  tp.expert = 8;
  EXPECT_EQ(refused_at(m, tp), "");  // shared experts beside TP: the dense MLP's split
  ModelSpec odd = m;
  odd.shared_expert_ffn = 511;  // not divisible by t
  EXPECT_EQ(refused_at(odd, tp), "tensor");
  // An imbalance below 1 is no imbalance.
  l.expert_load_imbalance = 0.5;
  p = testing::Validate(m, Zero1(), c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "expert_load_imbalance");
}

// MoE parallel folding (parallel_layout.h expert_folded): with t = 2 and ETP 1 each rank routes its s/t
// sequence-parallel tokens to e consecutive ranks (crossing the tensor pairs), runs its E/e experts whole,
// and the MoE block has no tensor-parallel collective; the experts' gradients go over t d / e ranks.
TEST(Moe, AFoldedExpertGridRunsWholeExpertsOnTheSequenceSplitTokens) {
  ModelSpec m = Small();
  m.shared_expert_ffn = 0;
  const ZeroConfig z = Zero1();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);  // 32 ranks
  ParallelLayout plain;
  plain.expert = 8;
  ParallelLayout folded = plain;
  folded.tensor = 2;
  folded.sequence_parallel = true;
  folded.expert_tensor = 1;
  ASSERT_TRUE(testing::Validate(m, z, c, folded).empty());
  const Schedule a = BuildSchedule(m, z, RankShape(c, plain));
  const Schedule b = BuildSchedule(m, z, RankShape(c, folded));
  const EpOps ea = CountEpOps(a), eb = CountEpOps(b);
  EXPECT_EQ(eb.all_to_alls, ea.all_to_alls);
  EXPECT_EQ(eb.expert_group, 8);
  EXPECT_DOUBLE_EQ(eb.buffer_bytes, ea.buffer_bytes / 2);  // s/t tokens' rows
  // The group is 8 consecutive ranks: inside a node, across the tensor pairs.
  const Placement placement(c, GridOf(b));
  EXPECT_EQ(placement.Members(GroupKind::kExpert, 1), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(placement.Size(GroupKind::kExpertData), 4);  // t d / e = 2 x 16 / 8
  for (const Op& op : b.ops) {
    if (op.kind == OpKind::kCollective && op.coll.group == GroupKind::kExpertData) {
      EXPECT_EQ(op.coll.group_size, 4);
    }
  }
  // Whole experts: the rank holds the same expert elements as without tensor parallelism, and the MoE
  // modules carry no tensor-parallel collective (TP collectives per micro-step: the 4 blocks' attention and
  // the dense block's MLP, as for a dense model of 4 blocks with one MLP).
  EXPECT_DOUBLE_EQ(b.expert_elements, a.expert_elements);
  int tp_in_moe = 0;
  for (const Op& op : b.ops) {
    if (op.kind != OpKind::kCollective || op.purpose != Purpose::kTensorParallel || op.module < 0) continue;
    if (b.graph.modules[static_cast<size_t>(op.module)].name.find(".moe.") != std::string::npos) ++tp_in_moe;
  }
  EXPECT_EQ(tp_in_moe, 0);
  for (const Module& mod : b.graph.modules) {
    if (mod.name.ends_with("moe.experts.dense_h_to_4h")) {
      EXPECT_EQ(mod.work.gemms[0].n, 2 * 256);                    // the expert's whole width
      EXPECT_DOUBLE_EQ(mod.work.gemms[0].m, 2048.0 / 2 * 2 / 2);  // s/t tokens x k over 16/8 local experts
    }
  }
  // The states: experts over t d / e = 4 ranks, the rest (1/t of it on each rank) over d = 16.
  const MemoryBreakdown ma = EstimateMemory(m, z, c, a);
  const MemoryBreakdown mb = EstimateMemory(m, z, c, b);
  EXPECT_LT(mb.parameters_bytes, ma.parameters_bytes);
  const double dense_a = a.partitioned_elements - a.expert_elements;
  const double dense_b = b.partitioned_elements - b.expert_elements;
  EXPECT_NEAR(b.ShardedElements(16), dense_b / 16 + b.expert_elements / 4, 1.0);
  EXPECT_NEAR(a.ShardedElements(32), dense_a / 32 + a.expert_elements / 4, 1.0);
}

// Megatron-Core's MoEAllGatherTokenDispatcher (parallel_layout.h MoeDispatcher): the dispatch all-gathers the
// group's tokens (hidden states, routing map, fp32 probabilities), the combine reduce-scatters the outputs;
// in the backward the combine's gradient is gathered and the dispatch's (hidden states and probabilities)
// scattered.
TEST(Moe, TheAllgatherDispatcherGathersTheGroupsTokensAndScattersTheOutputs) {
  const ModelSpec m = Small();  // 16 experts, h 1024, s 2048
  ZeroConfig z = Zero1();
  z.activation_checkpointing = false;
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ParallelLayout l;
  l.expert = 8;
  l.moe_token_dispatcher = MoeDispatcher::kAllGather;
  ASSERT_TRUE(testing::Validate(m, z, c, l).empty());
  const Schedule s = BuildSchedule(m, z, RankShape(c, l));
  std::map<std::pair<CollectiveKind, double>, int> seen;  // (kind, buffer bytes) -> count
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.purpose != Purpose::kExpertParallel) continue;
    EXPECT_EQ(op.coll.group, GroupKind::kExpert);
    EXPECT_EQ(op.coll.group_size, 8);
    ++seen[{op.coll.kind, op.coll.buffer_bytes}];
  }
  const double tokens = 8.0 * 2048;  // the group's e T tokens
  const double hidden = tokens * 2 * 1024;
  // 3 MoE blocks x 2 micro-steps, each of the four once per block and micro-step.
  EXPECT_EQ((seen[{CollectiveKind::kAllGather, tokens * (2 * 1024 + 5 * 16)}]), 6);  // forward dispatch
  EXPECT_EQ((seen[{CollectiveKind::kReduceScatter, hidden}]), 6);                    // forward combine
  EXPECT_EQ((seen[{CollectiveKind::kAllGather, hidden}]), 6);                        // the combine's gradient
  EXPECT_EQ((seen[{CollectiveKind::kReduceScatter, tokens * (2 * 1024 + 4 * 16)}]), 6);  // the dispatch's
  EXPECT_EQ(seen.size(), 4u);                                                            // and no all-to-all
  // The key's rules: only beside expert parallelism; the flex dispatcher is not modelled.
  l.expert = 1;
  std::vector<Problem> p = testing::Validate(m, z, c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "moe_token_dispatcher_type");
  l.expert = 8;
  l.moe_token_dispatcher = MoeDispatcher::kFlex;
  p = testing::Validate(m, z, c, l);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].key, "moe_token_dispatcher_type");
  EXPECT_EQ(p[0].kind, ProblemKind::kNotModelled);
}

// Shared experts beside a folded expert grid (t = 2): Megatron-Core's SharedExpertMLP is split like the dense
// MLP, a column-parallel fc1 and a row-parallel fc2 on the whole sequence with their TP collectives, while
// the routed experts run whole on s/t tokens; one rank's block does 1/t of the block's FLOPs.
TEST(Moe, SharedExpertsBesideAFoldedGridAreSplitLikeTheDenseMlp) {
  const ModelSpec m = Small();  // shared expert of width 512
  ZeroConfig z = Zero1();
  z.activation_checkpointing = false;
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ParallelLayout l;
  l.tensor = 2;
  l.sequence_parallel = true;
  l.expert = 8;
  l.expert_tensor = 1;
  ASSERT_TRUE(testing::Validate(m, z, c, l).empty());
  const Schedule s = BuildSchedule(m, z, RankShape(c, l));
  std::map<std::string, int> tp_collectives;  // by module name suffix
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.purpose != Purpose::kTensorParallel || op.module < 0) continue;
    const std::string& name = s.graph.modules[static_cast<size_t>(op.module)].name;
    if (name.find(".moe.") != std::string::npos) ++tp_collectives[name.substr(name.find(".moe.") + 1)];
  }
  // Per MoE block (3) and micro-step (2), as the dense MLP's: fc1 gathers its input in the forward and again
  // in the backward (for the weight gradient) and reduce-scatters its input gradient; fc2 reduce-scatters its
  // output and gathers its output gradient. None on the router or the routed experts.
  EXPECT_EQ(tp_collectives["moe.shared_experts.dense_h_to_4h"], 3 * 2 * 3);
  EXPECT_EQ(tp_collectives["moe.shared_experts.dense_4h_to_h"], 3 * 2 * 2);
  EXPECT_EQ(tp_collectives.size(), 2u);
  double block_flops = 0;
  for (const Module& mod : s.graph.modules) {
    if (mod.layer == 1) block_flops += mod.forward_flops;
  }
  EXPECT_NEAR(block_flops / (ForwardFlopsOfLayer(m, 1, 2048) / 2), 1.0, 1e-12);
}

TEST(Moe, MoreExpertParallelismOverTheSameNodesNeverShrinksTheCrossNodeBytes) {
  // The all-to-all's node-crossing share grows with the group's span: e = 8 stays in the node.
  const ModelSpec m = Small();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  const Calibration cal = testing::TestCalibration();
  double last = -1;
  for (int e : {8, 16, 32}) {
    ParallelLayout l;
    l.expert = e;
    const VariantReport r = EvaluateAnalyticVariant("ep", {m, Zero1(), c, cal, l});
    ASSERT_TRUE(r.feasible) << r.infeasible_reason;
    EXPECT_GE(r.bytes.cross_node.expert_parallel, last) << e;
    if (e == 8) {
      EXPECT_EQ(r.bytes.cross_node.expert_parallel, 0.0);
    }
    last = r.bytes.cross_node.expert_parallel;
  }
  EXPECT_GT(last, 0.0);
}

}  // namespace
}  // namespace zerosim::model
