// Compute time per module pass from its work (model/cost/compute_cost.h): wave quantization, the HBM
// roofline, FlashAttention's causal halving and backward factor, memory-bound bytes and kernel gaps, each
// against a hand-computed value.
#include <gtest/gtest.h>

#include <tuple>

#include "model/cost/compute_cost.h"
#include "model/schedule/module_graph.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

ComputeRates Rates() {
  ComputeRates r;
  r.peak_flops = 100e12;
  r.sms = 100;
  r.gemm_efficiency = 0.8;
  r.attention_forward_efficiency = 0.5;
  r.attention_backward_efficiency = 0.4;
  r.hbm_Bps = 1e12;
  r.kernel_gap_s = 2e-6;
  return r;
}

TEST(ComputeCost, FullWavesRunAtTheGemmEfficiency) {
  // 1280 x 1280 output = 10 x 10 = 100 tiles of 128 x 128: one full wave on 100 SMs.
  const Gemm g{1280, 1280, 8192, 1};
  EXPECT_DOUBLE_EQ(WaveUtilisation(g, 100), 1.0);
  EXPECT_DOUBLE_EQ(GemmTime(g, Rates()), g.flops() / (100e12 * 0.8));
}

TEST(ComputeCost, APartialLastWaveCostsAWholeWave) {
  // 101 tiles on 100 SMs: two waves, 101 / 200 of the SMs busy on average, so it takes as long as 200 tiles.
  const Gemm g{101 * 128, 128, 8192, 1};
  EXPECT_DOUBLE_EQ(WaveUtilisation(g, 100), 101.0 / 200.0);
  EXPECT_DOUBLE_EQ(GemmTime(g, Rates()), g.flops() / (100e12 * 0.8 * 101.0 / 200.0));
}

TEST(ComputeCost, ThinGemmsAreBoundByMemory) {
  // k = 8: 2 m n k FLOPs against 2 (m k + k n + m n) bytes; the output write dominates.
  const Gemm g{12800, 12800, 8, 1};
  const double bytes = 2.0 * (12800.0 * 8 + 8 * 12800.0 + 12800.0 * 12800.0);
  EXPECT_DOUBLE_EQ(GemmTime(g, Rates()), bytes / 1e12);
}

TEST(ComputeCost, BackwardIsTwoGemmsOfTheSameFlops) {
  ModuleWork w;
  w.gemms.push_back(Gemm{1280, 1280, 12800, 1});  // every shape below fills whole waves
  w.kernels = 1;
  const ComputeTime f = ForwardTime(w, Rates());
  const ComputeTime b = BackwardTime(w, Rates());
  EXPECT_DOUBLE_EQ(b.gemm_s, 2 * f.gemm_s);
  EXPECT_DOUBLE_EQ(f.launch_s, 2e-6);
  EXPECT_DOUBLE_EQ(b.launch_s, 4e-6);
}

TEST(ComputeCost, FlashAttentionSkipsMaskedTilesAndDoesTwoAndAHalfTimesTheWorkBackward) {
  ModuleWork w;
  w.attention = AttentionWork{32, 2048, 2048, 128, true};
  const double dense = 4.0 * 32 * 2048 * 2048 * 128;
  EXPECT_DOUBLE_EQ(ForwardTime(w, Rates()).attention_s, 0.5 * dense / (100e12 * 0.5));
  EXPECT_DOUBLE_EQ(BackwardTime(w, Rates()).attention_s, 2.5 * 0.5 * dense / (100e12 * 0.4));
  w.attention.causal = false;
  EXPECT_DOUBLE_EQ(ForwardTime(w, Rates()).attention_s, dense / (100e12 * 0.5));
}

TEST(ComputeCost, AnotherAttentionKernelDoesTheSameWorkAtItsOwnEfficiencies) {
  // Same FLOPs as the generation's kernel (causal halving, 2.5x backward), at the kernel's own efficiencies:
  // FlashAttention v1's 0.3 / 0.25, FlashAttention-2's beside a cuDNN generation 0.31 / 0.3 (not the
  // generation's 0.5 / 0.4).
  ComputeRates r = Rates();
  r.attention_v1_forward_efficiency = 0.3;
  r.attention_v1_backward_efficiency = 0.25;
  r.attention_fa2_forward_efficiency = 0.31;
  r.attention_fa2_backward_efficiency = 0.3;
  const double causal = 0.5 * 4.0 * 32 * 2048 * 2048 * 128;
  for (const auto& [kernel, forward, backward] : {std::tuple{AttentionKernel::kFlashV1, 0.3, 0.25},
                                                  std::tuple{AttentionKernel::kFlash2, 0.31, 0.3}}) {
    ModuleWork w;
    w.attention = AttentionWork{32, 2048, 2048, 128, true, kernel};
    EXPECT_DOUBLE_EQ(ForwardTime(w, r).attention_s, causal / (100e12 * forward));
    EXPECT_DOUBLE_EQ(BackwardTime(w, r).attention_s, 2.5 * causal / (100e12 * backward));
  }
}

TEST(ComputeCost, SelectiveRecomputeRunsTheForwardAgainInsideTheBackward) {
  // An unfused attention core: Q K^T and scores x V, 2 GB of softmax/dropout traffic, 4 kernels.
  ModuleWork w;
  w.gemms.push_back(Gemm{2048, 2048, 128, 32});
  w.gemms.push_back(Gemm{2048, 128, 2048, 32});
  w.elementwise_bytes = 2e9;
  w.kernels = 4;
  const ComputeTime plain = BackwardTime(w, Rates());
  w.recompute_in_backward = true;
  const ComputeTime with = BackwardTime(w, Rates());
  w.recompute_in_backward = false;
  const ComputeTime fwd = ForwardTime(w, Rates());
  EXPECT_DOUBLE_EQ(with.gemm_s, plain.gemm_s + fwd.gemm_s);
  // Forward 2 GB, backward kBackwardBytesFactor x 2 GB, at 1 TB/s.
  EXPECT_DOUBLE_EQ(with.memory_s, (kBackwardBytesFactor + 1.0) * 2e-3);
  EXPECT_DOUBLE_EQ(with.launch_s, (2.0 * 4 + 4) * 2e-6);
}

TEST(ComputeCost, MemoryBoundKernelsMoveTheirBytesAtHbmSpeed) {
  ModuleWork w;
  w.elementwise_bytes = 3e9;
  EXPECT_DOUBLE_EQ(ForwardTime(w, Rates()).memory_s, 3e-3);
  EXPECT_DOUBLE_EQ(BackwardTime(w, Rates()).memory_s, kBackwardBytesFactor * 3e-3);
}

TEST(ComputeCost, SmallModelsSpendAShareOnMemoryBoundWorkThatShrinksWithWidth) {
  // The GPT block's memory-bound bytes grow with h, its GEMM FLOPs with h^2: the share falls as h grows
  // (the trend of the llm-foundry runs that a GEMM-only model missed, issue 9).
  auto share = [](int hidden) {
    ModelSpec m = testing::Gpt(1, hidden, hidden / 64);
    m.seq_len = 2048;
    const ModuleGraph g = BuildModuleGraph(m, 4 * 2048.0);
    double memory = 0, total = 0;
    for (int i = g.block_begin[0]; i < g.block_end[0]; ++i) {
      const ComputeTime t = ForwardTime(g.modules[static_cast<size_t>(i)].work, Rates());
      memory += t.memory_s;
      total += t.total();
    }
    return memory / total;
  };
  EXPECT_GT(share(768), 2 * share(8192));
  EXPECT_GT(share(768), 0.1);
}

TEST(ComputeCost, ModuleFlopsMatchMegatronsCount) {
  // The GEMMs and the (dense-counted) attention of a block equal ForwardFlopsPerLayer.
  ModelSpec m = testing::Gpt(1, 1024, 16);
  m.attention = AttentionImpl::kUnfused;
  const double tokens = 2.0 * m.seq_len;
  const ModuleGraph g = BuildModuleGraph(m, tokens);
  double flops = 0;
  for (int i = g.block_begin[0]; i < g.block_end[0]; ++i) {
    for (const Gemm& gemm : g.modules[static_cast<size_t>(i)].work.gemms) flops += gemm.flops();
  }
  EXPECT_NEAR(flops, ForwardFlopsPerLayer(m, tokens), 1e-9 * flops);
}

}  // namespace
}  // namespace zerosim::model
