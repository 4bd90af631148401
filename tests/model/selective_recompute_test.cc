// Selective activation checkpointing as PyTorch users run it (issue 20 item 10): torchtitan's op-level policy
// (recompute = "selective_op": the matmuls except every second one and the SDPA outputs saved) and its
// every-n-th-block policy (recompute = "selective_block"), their recomputed FLOPs (in the schedule's compute
// and in the reported FLOPs) and their activation memory, against closed forms written here. Neither existed
// on 402d782.
#include <gtest/gtest.h>

#include "model/cost/compute_cost.h"
#include "model/report/evaluate.h"
#include "model/report/memory.h"
#include "model/builders/schedule_builder.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

ModelSpec Llama() {
  ModelSpec m = testing::Gpt(6, 1024, 16);
  m.mlp = MlpKind::kSwiglu;
  m.ffn_hidden = 2816;
  m.kv_heads = 4;
  m.dropout = 0;
  return m;
}

ZeroConfig With(RecomputePolicy p, int interval = 2) {
  ZeroConfig z;
  z.activation_checkpointing = p == RecomputePolicy::kFull;
  z.recompute = p;
  z.recompute_block_interval = interval;
  return z;
}

TEST(SelectiveRecompute, OpPolicyRecomputesTheUnsavedMatmuls) {
  for (ModelSpec m : {Llama(), testing::Gpt(4, 1024, 16)}) {
    const double t = m.seq_len, h = m.hidden, f = m.ffn_hidden, kv = KvWidth(m);
    // wk, wo and w3 (SwiGLU) or the GELU MLP's second matmul; FlashAttention's output is saved.
    const double expected = 2.0 * t * (h * kv + h * h + h * f);
    EXPECT_DOUBLE_EQ(RecomputeFlopsPerLayer(m, t, RecomputePolicy::kSelectiveOp), expected);
    // The schedule re-runs the same GEMM work in the blocks' backward, nothing outside the blocks.
    const Schedule s = BuildSchedule(m, With(RecomputePolicy::kSelectiveOp), testing::PaperCluster(1, 2, 8));
    double recomputed = 0;
    for (const Module& mod : s.graph.modules) {
      double gemm = 0;
      for (const Gemm& g : mod.work.gemms) gemm += g.flops();
      if (mod.layer < 0) {
        EXPECT_EQ(mod.work.recompute_gemm_fraction, 0.0) << mod.name;
        EXPECT_FALSE(mod.work.recompute_elementwise) << mod.name;
      }
      if (mod.layer == 0) recomputed += mod.work.recompute_gemm_fraction * gemm;
      EXPECT_FALSE(mod.work.recompute_in_backward) << mod.name;  // flash: the core is saved
    }
    EXPECT_NEAR(recomputed / expected, 1.0, 1e-12);
    // No recompute pass in the trace: the backward re-runs what it needs.
    for (const Op& op : s.ops) EXPECT_NE(op.phase, Phase::kRecompute);
    // Unfused attention: its bmm and softmax are not saved, so the core is recomputed too.
    m.attention = AttentionImpl::kUnfused;
    EXPECT_DOUBLE_EQ(RecomputeFlopsPerLayer(m, t, RecomputePolicy::kSelectiveOp), expected + 4.0 * t * t * h);
  }
}

TEST(SelectiveRecompute, OpPolicyBackwardTakesTheRecomputedForwardGemmTime) {
  const ModelSpec m = Llama();
  const Schedule none = BuildSchedule(m, With(RecomputePolicy::kNone), testing::PaperCluster(1, 2, 8));
  const Schedule sac = BuildSchedule(m, With(RecomputePolicy::kSelectiveOp), testing::PaperCluster(1, 2, 8));
  const ComputeRates r = MakeComputeRates(testing::PaperCluster().gpu, testing::TestCalibration());
  for (size_t i = 0; i < none.graph.modules.size(); ++i) {
    const ModuleWork& a = none.graph.modules[i].work;
    const ModuleWork& b = sac.graph.modules[i].work;
    const double extra = BackwardTime(b, r).gemm_s - BackwardTime(a, r).gemm_s;
    EXPECT_NEAR(extra, b.recompute_gemm_fraction * ForwardTime(a, r).gemm_s, 1e-15)
        << none.graph.modules[i].name;
    if (none.graph.modules[i].layer >= 0) {
      EXPECT_NEAR(BackwardTime(b, r).memory_s - BackwardTime(a, r).memory_s, ForwardTime(a, r).memory_s,
                  1e-15);
    }
  }
}

TEST(SelectiveRecompute, OpPolicyKeepsTheSavedOutputs) {
  const ModelSpec m = Llama();
  const double b = 2, s = m.seq_len, h = m.hidden, a = m.heads, f = m.ffn_hidden, kv = KvWidth(m);
  // Block input, wq, wv, SDPA output and log-sum-exp, w1 and w2 outputs.
  const double saved = s * b * (2 * h + 2 * h + 2 * kv + 2 * h + 2 * f + 2 * h) + 4 * a * s * b;
  EXPECT_DOUBLE_EQ(BlockActivationBytes(m, b, RecomputePolicy::kSelectiveOp), saved);
  const double working = BlockActivationBytes(m, b, RecomputePolicy::kNone);
  EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kSelectiveOp), m.layers * saved + working);
  EXPECT_LT(ActivationBytes(m, b, RecomputePolicy::kSelectiveOp),
            ActivationBytes(m, b, RecomputePolicy::kNone));
  EXPECT_GT(ActivationBytes(m, b, RecomputePolicy::kSelectiveOp),
            ActivationBytes(m, b, RecomputePolicy::kFull));
}

TEST(SelectiveRecompute, EveryNthBlockIsCheckpointedWhole) {
  const ModelSpec m = Llama();  // 6 blocks
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  const double b = 1;
  const double input = 2.0 * m.seq_len * b * m.hidden;
  const double working = BlockActivationBytes(m, b, RecomputePolicy::kNone);
  for (int n : {1, 2, 3, 4, 7}) {
    const int k = m.layers / n;  // blocks n, 2n, ... (torchtitan's `_count % ac_freq == 0`)
    EXPECT_EQ(CheckpointedBlocks(m, RecomputePolicy::kSelectiveBlock, n), k);
    EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kSelectiveBlock, n),
                     k * input + (m.layers - k) * working + (k > 0 ? working : 0.0))
        << n;
    const Schedule s = BuildSchedule(m, With(RecomputePolicy::kSelectiveBlock, n), c);
    // A recompute pass over the 7 modules of each checkpointed block, blocks n, 2n, ... only.
    int recompute_ops = 0;
    for (const Op& op : s.ops) {
      if (op.kind != OpKind::kCompute || op.phase != Phase::kRecompute) continue;
      ++recompute_ops;
      const int layer = s.graph.modules[static_cast<size_t>(op.module)].layer;
      EXPECT_EQ((layer + 1) % n, 0) << n << " block " << layer;
    }
    EXPECT_EQ(recompute_ops, 7 * k) << n;
    // The reported FLOPs count one forward of each checkpointed block.
    const double tokens = 16.0 * m.seq_len;
    EXPECT_DOUBLE_EQ(IterationFlops(m, With(RecomputePolicy::kSelectiveBlock, n), 16),
                     TrainingFlops(m, tokens, false) + k * ForwardFlopsPerLayer(m, tokens))
        << n;
  }
  // n = 1 is full recompute's memory; n past the depth keeps everything.
  EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kSelectiveBlock, 1),
                   ActivationBytes(m, b, RecomputePolicy::kFull));
  EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kSelectiveBlock, 7),
                   ActivationBytes(m, b, RecomputePolicy::kNone));
  // Op-level: the reported FLOPs add the recomputed matmuls of every block.
  const double tokens = 16.0 * m.seq_len;
  EXPECT_DOUBLE_EQ(IterationFlops(m, With(RecomputePolicy::kSelectiveOp), 16),
                   TrainingFlops(m, tokens, false) +
                       m.layers * RecomputeFlopsPerLayer(m, tokens, RecomputePolicy::kSelectiveOp));
}

}  // namespace
}  // namespace zerosim::model
