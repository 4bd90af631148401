#include "model/report/memory.h"

#include <gtest/gtest.h>

#include "model/builders/schedule_builder.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

MemoryBreakdown Estimate(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c) {
  return EstimateMemory(m, z, c, BuildSchedule(m, z, c));
}

TEST(Memory, HpzAddsExactlyTwoPsiOverHBytesPerGpu) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1);
  const double psi = TotalParams(m);
  for (int h : {2, 4, 8, 16}) {
    ZeroConfig off;
    ZeroConfig on;
    on.zero_hpz_partition_size = h;
    const MemoryBreakdown a = Estimate(m, off, c);
    const MemoryBreakdown b = Estimate(m, on, c);
    EXPECT_DOUBLE_EQ(b.hpz_secondary_bytes, 2 * psi / h);
    // Besides the secondary partition, hpZ's own communicator holds NCCL buffers
    // (model/report/runtime_memory.h).
    EXPECT_GT(b.nccl_buffers_bytes, a.nccl_buffers_bytes);
    EXPECT_NEAR(b.total_bytes - a.total_bytes - (b.nccl_buffers_bytes - a.nccl_buffers_bytes), 2 * psi / h,
                1e-6 * psi);
  }
}

TEST(Memory, ModelStatesAreSixteenBytesPerParameterOverP) {
  const ModelSpec m = testing::Gpt18B();
  const ClusterSpec c = testing::PaperCluster(1);
  const MemoryBreakdown r = Estimate(m, ZeroConfig{}, c);
  const double psi = TotalParams(m), p = c.total_gpus();
  EXPECT_DOUBLE_EQ(r.gradients_bytes + r.optimizer_states_bytes, 14 * psi / p);
  // Parameters below the persistence threshold (biases, LayerNorms: 1e5 elements) stay whole on every GPU.
  double persistent = 0;
  for (const Param& prm : BuildModuleGraph(m, 2048).params) {
    if (prm.numel() < 1e5) persistent += prm.numel();
  }
  EXPECT_DOUBLE_EQ(r.parameters_bytes, 2 * psi / p + 2 * persistent);
}

TEST(Memory, ALargeModelOnFewGpusDoesNotFit) {
  const ModelSpec m = testing::Gpt(76, 12288, 96);  // 138B
  const ClusterSpec c = testing::PaperCluster(1, /*nodes=*/2, /*gpus_per_node=*/16);
  const MemoryBreakdown r = Estimate(m, ZeroConfig{}, c);
  EXPECT_GT(r.total_bytes, r.hbm_bytes);  // 16 x 138B / 32 GPUs = 69 GB of model states alone
}

// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models": per layer
// (no tensor or sequence parallelism) sbh(34 + 5as/h) bytes without recompute (eq. 1), 34 sbh with
// selective recompute (sec. 4.2), and 2sbh per layer kept with full recompute (sec. 4) plus the layer being
// recomputed. FlashAttention stores no s x s tensor, only its fp32 log-sum-exp (4 bytes per head and row).
TEST(Memory, ActivationsFollowKorthikantiForEveryPolicy) {
  ModelSpec m = testing::Gpt18B();
  m.attention = AttentionImpl::kUnfused;
  const double s = m.seq_len, h = m.hidden, a = m.heads, l = m.layers;
  for (double b : {1.0, 4.0}) {
    const double sbh = s * b * h;
    const double eq1 = sbh * (34 + 5 * a * s / h);
    EXPECT_DOUBLE_EQ(BlockActivationBytes(m, b, RecomputePolicy::kNone), eq1);
    EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kNone), l * eq1);
    EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kSelective), l * 34 * sbh);
    EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kFull), l * 2 * sbh + eq1);
    EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kOffload), eq1);
    m.attention = AttentionImpl::kFlash;
    EXPECT_DOUBLE_EQ(ActivationBytes(m, b, RecomputePolicy::kNone), l * (34 * sbh + 4 * a * s * b));
    m.attention = AttentionImpl::kUnfused;
  }
}

// Without dropout the masks go: the output dropout and MLP dropout masks (sbh each) and the attention
// dropout mask (as^2b).
TEST(Memory, NoDropoutStoresNoMasks) {
  ModelSpec m = testing::Gpt18B();
  m.attention = AttentionImpl::kUnfused;
  m.dropout = 0;
  const double s = m.seq_len, h = m.hidden, a = m.heads;
  EXPECT_DOUBLE_EQ(BlockActivationBytes(m, 1, RecomputePolicy::kNone), s * h * 32 + 4 * a * s * s);
}

// The 8B-at-8K case of issue 10: with FlashAttention and full recompute, Llama-3.1-8B at micro-batch 1 and
// 8192 tokens keeps 2sbh per layer plus one layer's working set (34sbh + 4as), no s^2 term.
TEST(Memory, FlashAttentionRemovesTheQuadraticTerm) {
  ModelSpec m = testing::Gpt(32, 4096, 32);
  m.seq_len = 8192;
  m.attention = AttentionImpl::kUnfused;
  const double unfused = ActivationBytes(m, 1, RecomputePolicy::kNone);
  m.attention = AttentionImpl::kFlash;
  const double flash = ActivationBytes(m, 1, RecomputePolicy::kNone);
  const double s = 8192, h = 4096, a = 32;
  EXPECT_DOUBLE_EQ(unfused - flash, 32 * (5 * a * s * s - 4 * a * s));
  EXPECT_DOUBLE_EQ(ActivationBytes(m, 1, RecomputePolicy::kFull), 32 * 2 * s * h + 34 * s * h + 4 * a * s);
}

// The loss's working memory over the logits by implementation (memory.h LossBytesPerLogit), counted here tensor
// by tensor from the sources: fused (Megatron's in-place vocab-parallel cross-entropy) the 16-bit logits and one
// fp32 copy; eager PyTorch at its backward peak the saved fp32 log_softmax output, nll_loss's fp32 gradient and
// log_softmax's fp32 gradient, and under DTensor's loss_parallel one fp32 temporary more (zeros_like, exp, their
// sum and the product beside the saved output); compiled the saved 16-bit logits and their 16-bit gradient.
// Only the activations move, by the difference times b*s*V/t.
TEST(Memory, TheLossWorkingMemoryFollowsItsImplementation) {
  EXPECT_DOUBLE_EQ(LossBytesPerLogit(LossImpl::kFused, 1), 2.0 + 4.0);
  EXPECT_DOUBLE_EQ(LossBytesPerLogit(LossImpl::kFused, 8), 2.0 + 4.0);
  EXPECT_DOUBLE_EQ(LossBytesPerLogit(LossImpl::kEager, 1), 4.0 + 4.0 + 4.0);
  EXPECT_DOUBLE_EQ(LossBytesPerLogit(LossImpl::kEager, 8), 4.0 + 4.0 + 4.0 + 4.0);
  EXPECT_DOUBLE_EQ(LossBytesPerLogit(LossImpl::kCompiled, 1), 2.0 + 2.0);
  const ModelSpec m = testing::Gpt(4, 1024, 16);
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  ZeroConfig z;
  z.train_micro_batch_size_per_gpu = 2;
  const double logits = 2.0 * m.seq_len * m.vocab;  // b*s*V, no tensor parallelism
  const MemoryBreakdown fused = Estimate(m, z, c);
  for (LossImpl loss : {LossImpl::kEager, LossImpl::kCompiled}) {
    ZeroConfig other = z;
    other.loss = loss;
    const MemoryBreakdown r = Estimate(m, other, c);
    EXPECT_NEAR(r.activations_bytes - fused.activations_bytes,
                (LossBytesPerLogit(loss, 1) - 6.0) * logits, 1e-9 * logits);
    EXPECT_DOUBLE_EQ(r.parameters_bytes, fused.parameters_bytes);
    EXPECT_DOUBLE_EQ(r.gathered_parameters_bytes, fused.gathered_parameters_bytes);
    EXPECT_DOUBLE_EQ(r.buffers_bytes, fused.buffers_bytes);
  }
  // The eager loss holds more than the fused one, the compiled one less.
  ZeroConfig eager = z;
  eager.loss = LossImpl::kEager;
  ZeroConfig compiled = z;
  compiled.loss = LossImpl::kCompiled;
  EXPECT_GT(Estimate(m, eager, c).reserved_bytes, fused.reserved_bytes);
  EXPECT_LT(Estimate(m, compiled, c).reserved_bytes, fused.reserved_bytes);
}

}  // namespace
}  // namespace zerosim::model
