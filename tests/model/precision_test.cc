// Number formats (model/spec/precision.h) against closed forms written here: the gradient reduction's wire
// format, the gradient and optimizer-state bytes, the FP8 weight all-gather's wire bytes, FP8 GEMM time
// against peak x efficiency, and the feasibility rules.
#include <gtest/gtest.h>

#include <cmath>

#include "model/cost/compute_cost.h"
#include "model/placement/traffic.h"
#include "model/report/evaluate.h"
#include "model/report/memory.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/feasibility.h"
#include "model/spec/precision.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

// Every use gathers (volume_test.cc's setting): one forward and one backward gather per parameter.
ZeroConfig EveryUseGathers(ZeroConfig z) {
  z.activation_checkpointing = false;
  z.stage3_max_reuse_distance = 0;
  z.stage3_prefetch_bucket_size = 0;
  return z;
}

// Three cluster shapes: the paper's 24 x 16, 4 x 8 and 2 x 8 with two NICs.
std::vector<ClusterSpec> Shapes() {
  return {testing::PaperCluster(1, 24, 16), testing::PaperCluster(1, 4, 8), testing::PaperCluster(2, 2, 8)};
}

ModelSpec Small() {
  ModelSpec m = testing::Gpt(4, 1024, 16);
  m.tied_embeddings = false;
  return m;
}

TEST(Precision, Fp32ReductionDoublesTheGradientBytesOnEveryTier) {
  const ModelSpec m = Small();
  for (const ClusterSpec& c : Shapes()) {
    ZeroConfig bf16 = EveryUseGathers(ZeroConfig{});
    ZeroConfig fp32 = bf16;
    fp32.precision.gradient_reduce_dtype = FloatFormat::kFp32;
    const TierVolumes a = SumTraffic(BuildSchedule(m, bf16, c), c);
    const TierVolumes b = SumTraffic(BuildSchedule(m, fp32, c), c);
    const auto grad = static_cast<size_t>(Purpose::kGradientReduce);
    const auto fwd = static_cast<size_t>(Purpose::kForwardAllGather);
    // Closed form: the ring reduce-scatter over P node-major ranks sends (P-1)/P of each rank's buffer out of
    // every node once; the buffer is every parameter padded to a multiple of P (DeepSpeed pads partitions) at
    // 4 bytes an element in fp32 (2 in bf16).
    const double p = c.total_gpus();
    double padded = 0;
    for (const Param& prm : BuildModuleGraph(m, 2048).params) padded += std::ceil(prm.numel() / p) * p;
    const double per_node = 4.0 * padded * (p - 1) / p;
    EXPECT_NEAR(b.cross_node[grad] / c.nodes / per_node, 1.0, 1e-12) << c.nodes << "x" << c.gpus_per_node;
    EXPECT_DOUBLE_EQ(b.cross_node[grad], 2.0 * a.cross_node[grad]);
    EXPECT_DOUBLE_EQ(b.intra_node[grad], 2.0 * a.intra_node[grad]);
    EXPECT_EQ(b.cross_node[fwd], a.cross_node[fwd]);  // the weights are unchanged
  }
}

TEST(Precision, Fp8AllGatherCarriesOneByteForEveryBlockLinearWeight) {
  const ModelSpec m = Small();
  for (const ClusterSpec& c : Shapes()) {
    ZeroConfig bf16 = EveryUseGathers(ZeroConfig{});
    bf16.stage3_param_persistence_threshold = 0;  // gather every parameter, so the sums below cover them all
    ZeroConfig fp8 = bf16;
    fp8.precision.fp8_gemms = true;
    fp8.precision.fp8_weight_all_gather = true;
    const TierVolumes a = SumTraffic(BuildSchedule(m, bf16, c), c);
    const TierVolumes b = SumTraffic(BuildSchedule(m, fp8, c), c);
    // Closed form: the block linear weights (4 matrices per block: QKV, attention output, MLP in and out) at
    // 1 byte per padded element, everything else (embeddings, logit layer, norms, biases) at 2; no scale
    // travels (torchao's amax is all-reduced once per iteration, so every rank already has each scale).
    const double p = c.total_gpus();
    double fp8_elements = 0, other_elements = 0;
    int fp8_tensors = 0;
    const ModuleGraph g = BuildModuleGraph(m, 2048);
    for (const Module& mod : g.modules) {
      for (int q : mod.params) {
        const Param& prm = g.params[static_cast<size_t>(q)];
        const double padded = std::ceil(prm.numel() / p) * p;
        if (mod.layer >= 0 && prm.is_matrix()) {
          fp8_elements += padded;
          ++fp8_tensors;
        } else {
          other_elements += padded;
        }
      }
    }
    EXPECT_EQ(fp8_tensors, 4 * m.layers);
    const double ratio =
        (1.0 * fp8_elements + 2.0 * other_elements) / (2.0 * (fp8_elements + other_elements));
    for (Purpose purpose : {Purpose::kForwardAllGather, Purpose::kBackwardAllGather}) {
      const auto i = static_cast<size_t>(purpose);
      EXPECT_NEAR(b.cross_node[i] / a.cross_node[i], ratio, 1e-12) << c.nodes << "x" << c.gpus_per_node;
      EXPECT_NEAR(b.intra_node[i] / a.intra_node[i], ratio, 1e-12);
    }
    const auto grad = static_cast<size_t>(Purpose::kGradientReduce);
    EXPECT_EQ(b.cross_node[grad], a.cross_node[grad]);  // gradients stay 16-bit
  }
}

TEST(Precision, Fp8ParamsAreTheBlockLinearWeightsOnly) {
  const ModuleGraph g = BuildModuleGraph(Small(), 2048);
  const std::vector<bool> fp8 = Fp8Params(g);
  int count = 0;
  for (size_t i = 0; i < fp8.size(); ++i) {
    if (!fp8[i]) continue;
    ++count;
    EXPECT_TRUE(g.params[i].is_matrix()) << g.params[i].name;
    EXPECT_EQ(g.params[i].name.find("embedding"), std::string::npos) << g.params[i].name;
  }
  EXPECT_EQ(count, 4 * 4);
}

TEST(Precision, GradientAndOptimizerStateBytesPerParameter) {
  const ModelSpec m = Small();
  const ClusterSpec c = testing::PaperCluster(1, 4, 8);
  ZeroConfig z;
  const Schedule s = BuildSchedule(m, z, c);
  const double psi_over_p = s.partitioned_elements / c.total_gpus();
  const MemoryBreakdown base = EstimateMemory(m, z, c, s);
  EXPECT_DOUBLE_EQ(base.gradients_bytes, 2.0 * psi_over_p);
  EXPECT_DOUBLE_EQ(base.optimizer_states_bytes, 12.0 * psi_over_p);

  ZeroConfig wide = z;
  wide.precision.gradient_accumulation_dtype = FloatFormat::kFp32;
  wide.precision.gradient_reduce_dtype = FloatFormat::kFp32;
  const MemoryBreakdown w = EstimateMemory(m, wide, c, BuildSchedule(m, wide, c));
  EXPECT_DOUBLE_EQ(w.gradients_bytes, 4.0 * psi_over_p);
  // The bucket (2 bytes x reduce_bucket_size) plus its fp32 copy for the reduction (4 bytes).
  EXPECT_DOUBLE_EQ(w.buffers_bytes - base.buffers_bytes, 4.0 * z.reduce_bucket_size);

  ZeroConfig lean = z;
  lean.precision.bf16_master_weights_and_grads = true;
  lean.precision.bf16_optimizer_states = true;
  const MemoryBreakdown l = EstimateMemory(m, lean, c, BuildSchedule(m, lean, c));
  EXPECT_DOUBLE_EQ(l.optimizer_states_bytes, (2.0 + 2.0 + 2.0) * psi_over_p);
  EXPECT_DOUBLE_EQ(AdamStepBytesPerParam(Precision{}), 28.0);  // kAdamBytesPerParam
  EXPECT_DOUBLE_EQ(AdamStepBytesPerParam(lean.precision), 2.0 * 6.0 + 2.0 + 2.0);
}

TEST(Precision, Fp8GemmRunsAtTheFp8PeakTimesItsEfficiencyPlusItsCasts) {
  ComputeRates r;
  r.peak_flops = 989e12;
  r.gemm_efficiency = 0.8;
  r.fp8_peak_flops = 1979e12;
  r.fp8_gemm_efficiency = 0.76;
  r.hbm_Bps = 3e12;
  r.sms = 0;  // no wave quantization
  const double m = 16384, n = 8192, k = 8192;
  ModuleWork w;
  w.gemms.push_back(Gemm{m, n, k, 1, true, false});
  const double flops = 2 * m * n * k;
  // Forward: the GEMM at 1979 TFLOPs x 0.76 (compute-bound: 1-byte operands are far below the roofline), and
  // the casts of the input (m k) and the weight (n k), 5 bytes an element, over HBM.
  const double fwd = flops / (1979e12 * 0.76) + 5.0 * (m * k + n * k) / 3e12;
  EXPECT_NEAR(ForwardTime(w, r).gemm_s / fwd, 1.0, 1e-12);
  // Backward: two GEMMs of the same FLOPs; casts of dY twice (m n), the weight (n k) and the input (m k).
  const double bwd = 2 * flops / (1979e12 * 0.76) + 5.0 * (2 * m * n + n * k + m * k) / 3e12;
  EXPECT_NEAR(BackwardTime(w, r).gemm_s / bwd, 1.0, 1e-12);
  // A gathered FP8 weight is not cast again.
  w.gemms[0].fp8_weight_gathered = true;
  EXPECT_NEAR(ForwardTime(w, r).gemm_s / (flops / (1979e12 * 0.76) + 5.0 * m * k / 3e12), 1.0, 1e-12);
  // The same GEMM in bf16: 989 x 0.8.
  w.gemms[0].fp8 = false;
  EXPECT_NEAR(ForwardTime(w, r).gemm_s / (flops / (989e12 * 0.8)), 1.0, 1e-12);
}

TEST(Precision, Fp8MarksTheBlockLinearGemmsOnly) {
  ModuleGraph g = BuildModuleGraph(Small(), 2048);
  Precision p;
  p.fp8_gemms = true;
  ApplyFp8Gemms(p, &g);
  int fp8 = 0, other = 0;
  for (const Module& mod : g.modules) {
    for (const Gemm& gemm : mod.work.gemms) (gemm.fp8 ? fp8 : other) += 1;
    if (mod.layer < 0) {
      for (const Gemm& gemm : mod.work.gemms) EXPECT_FALSE(gemm.fp8) << mod.name;  // the logit layer
    }
  }
  EXPECT_EQ(fp8, 4 * 4);
  EXPECT_EQ(other, 1);  // the logit layer (FlashAttention's core has no GEMM ops here)
}

TEST(Precision, FeasibilityRules) {
  ClusterSpec v100 = testing::PaperCluster(1, 4, 8);  // V100: no FP8 peak
  ZeroConfig z;
  z.precision.fp8_gemms = true;
  std::vector<Problem> problems = CheckZero(z, v100);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "fp8_gemms");
  EXPECT_NE(problems[0].message.find("no FP8 tensor cores"), std::string::npos) << problems[0].message;
  ClusterSpec h100 = v100;
  h100.gpu.fp8_peak_flops = 1979e12;
  EXPECT_TRUE(CheckZero(z, h100).empty());
  z.precision.fp8_weight_all_gather = true;
  z.zero_quantized_weights = true;
  problems = CheckZero(z, h100);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "fp8_weight_all_gather");
  ZeroConfig states;
  states.precision.bf16_optimizer_states = true;
  problems = CheckZero(states, h100);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "bf16_optimizer_states");
  // The FSDP builders model the reduce dtype (every FSDP strategy) and torchao's FP8 all-gather (FSDP2's
  // extension); DeepSpeed's state formats are refused at their key, not silently ignored. FP8 GEMMs apply to
  // every strategy.
  ZeroConfig fsdp;
  fsdp.strategy = Strategy::kFsdpFullShard;
  fsdp.framework = Framework::kFsdp;
  fsdp.precision.fp8_gemms = true;
  EXPECT_TRUE(CheckZero(fsdp, h100).empty());
  fsdp.precision.gradient_reduce_dtype = FloatFormat::kFp32;
  EXPECT_TRUE(CheckZero(fsdp, h100).empty());
  fsdp.precision.fp8_weight_all_gather = true;
  problems = CheckZero(fsdp, h100);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "fp8_weight_all_gather");
  EXPECT_NE(problems[0].message.find("FSDP2"), std::string::npos) << problems[0].message;
  for (Strategy st : {Strategy::kFsdp2}) {
    fsdp.strategy = st;
    EXPECT_TRUE(CheckZero(fsdp, h100).empty()) << StrategyName(st);
  }
  fsdp.precision.gradient_accumulation_dtype = FloatFormat::kFp32;
  problems = CheckZero(fsdp, h100);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "grad_accum_dtype");
}

// MFU is quoted against the dense BF16 peak whatever the GEMMs' dtype (issue 38: the convention of published
// MFUs), and an FP8 run also carries its MFU against the FP8 peak, labelled: the two differ by the peaks' ratio.
TEST(Precision, MfuIsOfTheBf16PeakAndFp8RunsAlsoCarryTheFp8PeaksMfu) {
  const ModelSpec m = Small();
  ClusterSpec c = testing::PaperCluster(1, 2, 8);
  c.gpu.fp8_peak_flops = 2 * c.gpu.peak_flops;
  const Calibration cal = testing::TestCalibration();
  ZeroConfig bf16;
  ZeroConfig fp8 = bf16;
  fp8.precision.fp8_gemms = true;
  const VariantReport a = EvaluateAnalyticVariant("bf16", {m, bf16, c, cal});
  const VariantReport b = EvaluateAnalyticVariant("fp8", {m, fp8, c, cal});
  const double model_flops = ModelFlopsPerToken(m);
  EXPECT_NEAR(a.mfu, model_flops * a.tokens_per_s / c.total_gpus() / c.gpu.peak_flops, 1e-12 * a.mfu);
  EXPECT_EQ(a.mfu_fp8_peak, 0);  // not an FP8 run
  EXPECT_NEAR(b.mfu, model_flops * b.tokens_per_s / c.total_gpus() / c.gpu.peak_flops, 1e-12 * b.mfu);
  EXPECT_NEAR(b.mfu_fp8_peak, b.mfu / 2, 1e-12 * b.mfu);
  // A GPU without an FP8 peak: no FP8-peak MFU.
  c.gpu.fp8_peak_flops = 0;
  EXPECT_EQ(EvaluateAnalyticVariant("fp8", {m, fp8, c, cal}).mfu_fp8_peak, 0);
}

}  // namespace
}  // namespace zerosim::model
