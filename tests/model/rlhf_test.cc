// RLHF phases (model/builders/rlhf_schedule.h, model/report/rlhf_evaluate.h) against closed forms written
// here: the bytes per tier of one generation (decode) step under ZeRO-3 and hpZ, the KV cache, and LoRA's
// gradient volume.
#include <cmath>

#include <gtest/gtest.h>

#include "model/placement/traffic.h"
#include "model/report/rlhf_evaluate.h"
#include "model/report/runtime_memory.h"
#include "model/builders/rlhf_schedule.h"
#include "model/spec/precision.h"
#include "tests/test_util.h"

namespace zerosim::model {
namespace {

constexpr int kNodes = 2, kGpn = 16, kP = kNodes * kGpn;
constexpr int kRank = 8;

ModelSpec Small() { return testing::Gpt(4, 1024, 16); }

// Bytes a global ring all-gather (or reduce-scatter) of `elements` per parameter puts across nodes, summed
// over GPUs: node-major ring, one inter-node edge per node, each edge carrying (P - 1) / P of the P-shard
// buffer.
double GlobalRingCross(double elements, double element_bytes) {
  const double shard = std::ceil(elements / kP);
  return kNodes * (kP - 1.0) * shard * element_bytes;
}

struct Sums {
  double frozen_gathered = 0;  // elements of frozen params above the persistence threshold
  double frozen_shards = 0;    // sum of ceil(numel / P) over them
  double lora_cross = 0;       // GlobalRingCross of every adapter
  double all_cross = 0;        // GlobalRingCross of every gathered param
};

Sums SumParams(const ModelSpec& m, int r, const ZeroConfig& z) {
  Sums s;
  ModelSpec step = m;
  step.seq_len = 1;
  const LoraGraph lg = BuildLoraGraph(step, 1.0, r);
  for (const Param& p : lg.graph.params) {
    if (p.numel() < z.stage3_param_persistence_threshold) continue;
    s.all_cross += GlobalRingCross(p.numel(), 2.0);
    if (p.frozen) {
      s.frozen_gathered += p.numel();
      s.frozen_shards += std::ceil(p.numel() / kP);
    } else {
      s.lora_cross += GlobalRingCross(p.numel(), 2.0);
    }
  }
  return s;
}

const ForwardShape kDecode{4, 1, 300, true, false};

// Bytes of `s` on the cluster every test here runs on.
TierVolumes Volumes(const Schedule& s) { return SumTraffic(s, testing::PaperCluster(4, kNodes, kGpn)); }
double Cross(const Schedule& s) { return Volumes(s).cross_total(); }
double Intra(const Schedule& s) { return Volumes(s).intra_total(); }

TEST(RlhfGenerationStep, Zero3GathersEveryParameterOverTheGlobalRing) {
  const ClusterSpec c = testing::PaperCluster(4, kNodes, kGpn);
  const ZeroConfig z;
  const Schedule s = BuildForwardSchedule(Small(), z, c, kRank, kDecode, ForwardGather::kCoordinator);
  const Sums sums = SumParams(Small(), kRank, z);
  EXPECT_NEAR(Cross(s), sums.all_cross, 1e-9 * sums.all_cross);
  // Nothing is reduced in a forward-only pass.
  EXPECT_EQ(Volumes(s).cross_node[static_cast<size_t>(Purpose::kGradientReduce)], 0.0);
}

TEST(RlhfGenerationStep, HpzKeepsFrozenWeightsInsideTheNode) {
  const ClusterSpec c = testing::PaperCluster(4, kNodes, kGpn);
  ZeroConfig z;
  z.zero_hpz_partition_size = kGpn;
  const Schedule s = BuildForwardSchedule(Small(), z, c, kRank, kDecode, ForwardGather::kCoordinator);
  const Sums sums = SumParams(Small(), kRank, z);
  // Only the trainable adapters (their secondary partition expires every step) still cross nodes.
  EXPECT_NEAR(Cross(s), sums.lora_cross, 1e-9 * sums.lora_cross);
  EXPECT_LT(Cross(s), 0.05 * sums.all_cross);
  // Frozen weights: P / h rings of h ranks, each rank receiving (h - 1) / h of a buffer of P shards (fp16).
  const double frozen_intra = kP * (kGpn - 1.0) / kGpn * sums.frozen_shards * kP * 2.0;
  EXPECT_GE(Intra(s), frozen_intra * (1 - 1e-9));
  // MixZ++ stores them int8: the same rings carry one byte per element plus fp32 scales (groups of ~8000).
  z.zero_quantized_nontrainable_weights = true;
  const Schedule q = BuildForwardSchedule(Small(), z, c, kRank, kDecode, ForwardGather::kCoordinator);
  EXPECT_NEAR(Cross(q), sums.lora_cross, 1e-9 * sums.lora_cross);
  const double adapters_intra = Intra(s) - frozen_intra;
  EXPECT_NEAR(Intra(q) - adapters_intra, frozen_intra / 2, 0.01 * frozen_intra / 2);
}

TEST(RlhfGenerationStep, DecodeReadsTheKvCache) {
  // The attention core of a decode step is two batched GEMMs per (sequence, kv head) over the context.
  const ClusterSpec c = testing::PaperCluster(4, kNodes, kGpn);
  const Schedule s = BuildForwardSchedule(Small(), ZeroConfig{}, c, 0, kDecode, ForwardGather::kCoordinator);
  int cores = 0;
  for (const Module& mod : s.graph.modules) {
    if (mod.name.find("attention.core") == std::string::npos) continue;
    ++cores;
    ASSERT_EQ(mod.work.gemms.size(), 2u);
    EXPECT_EQ(mod.work.gemms[0].n, 300);
    EXPECT_EQ(mod.work.gemms[0].batch, 4.0 * 16);
  }
  EXPECT_EQ(cores, 4);
}

TEST(RlhfMemory, KvCacheFormula) {
  ModelSpec m = Small();
  m.heads = 32;
  m.kv_heads = 8;
  m.layers = 32;
  m.hidden = 4096;
  const double head_dim = 4096.0 / 32;
  // 2 (K and V) x layers x kv_heads x head_dim x 2 bytes x tokens, tokens = sequences x positions.
  EXPECT_DOUBLE_EQ(KvCacheBytes(m, 16, 512), 2.0 * 32 * 8 * head_dim * 2.0 * 16 * 512);
}

TEST(RlhfLora, AdapterCountPerLayer) {
  const ModelSpec m = Small();
  const double h = 1024, f = 4096;
  // q, k, v, out: (h + h) each; fc1: (h + f); fc2: (f + h).
  EXPECT_DOUBLE_EQ(LoraParamsPerLayer(m, kRank), kRank * (4 * 2 * h + 2 * (h + f)));
  EXPECT_DOUBLE_EQ(BuildLoraGraph(m, m.seq_len, kRank).lora_elements,
                   m.layers * LoraParamsPerLayer(m, kRank));
}

TEST(RlhfLora, OnlyAdapterGradientsAreReduced) {
  const ClusterSpec c = testing::PaperCluster(4, kNodes, kGpn);
  ModelSpec m = Small();
  m.seq_len = 512;
  ZeroConfig z;
  z.stage3_max_reuse_distance = 0;  // this small model would otherwise stay gathered from forward to backward
  const Schedule s = BuildLoraTrainingSchedule(m, z, c, kRank, 1);
  const double lora = m.layers * kRank * (4 * 2 * 1024.0 + 2 * (1024.0 + 4096.0));
  // One reduce-scatter ring over all P ranks of the adapters' fp16 gradients: K (P - 1) / P x 2 bytes x
  // elements.
  const double expected = kNodes * (kP - 1.0) / kP * 2.0 * lora;
  const double got = Volumes(s).cross_node[static_cast<size_t>(Purpose::kGradientReduce)];
  EXPECT_NEAR(got, expected, 1e-3 * expected);
  // The base weights are still gathered for the forward and for the backward's input gradients.
  EXPECT_GT(Volumes(s).cross_node[static_cast<size_t>(Purpose::kBackwardAllGather)], 0.0);
}

// The small RLHF run both evaluation tests use: every model the small GPT at 512 tokens, LoRA of rank kRank,
// batches of 2, 16 prompt and 16 answer tokens.
ModelSpec SmallRlhfModel() {
  ModelSpec m = Small();
  m.seq_len = 512;
  return m;
}
RlhfSpec SmallRlhfSpec(const ModelSpec& m) {
  RlhfSpec spec;
  spec.critic = spec.reward = spec.reference = m;
  spec.actor_lora_dim = spec.critic_lora_dim = kRank;
  spec.generation_batch_per_gpu = spec.training_batch_per_gpu = 2;
  spec.answer_len = 16;
  spec.prompt_len = 16;
  spec.sft_batch_per_gpu = 2;
  return spec;
}

TEST(RlhfEvaluate, PhasesAreReported) {
  const ClusterSpec c = testing::PaperCluster(4, kNodes, kGpn);
  const ModelSpec m = SmallRlhfModel();
  const RlhfSpec spec = SmallRlhfSpec(m);
  const Calibration cal = testing::TestCalibration();
  AnalyticEngine engine(cal);
  const ZeroConfig plain;
  StatusOr<VariantReport> r = EvaluateRlhfVariant(
      "x", {.model = m, .zero = plain, .cluster = c, .calibration = cal, .rlhf = &spec}, engine);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->phases.size(), 4u);
  EXPECT_EQ(r->phases[0].name, "generation");
  EXPECT_TRUE(r->invariant_violation.empty()) << r->invariant_violation;
  EXPECT_NEAR(r->phases[0].throughput, 2.0 * 16 / r->phases[0].time_s, 1e-12);
  // Step 1 runs the actor alone; step 3 holds the reference, critic and reward models too.
  EXPECT_LT(r->phases[3].resident_bytes, r->phases[0].resident_bytes);
  EXPECT_NEAR(r->iteration_time_s, r->phases[0].time_s + r->phases[1].time_s + r->phases[2].time_s, 1e-12);
}

// Every phase holds the runtime's memory besides its tensors (runtime_memory.h: at least the CUDA context,
// and NCCL's buffers for the step's communicators), its parts sum to its total, and the resident partitions
// follow the variant's number formats: bf16 master weights, gradients and optimizer states (6 bytes of
// state instead of 12, 2 of gradient as before) shrink the trained adapters' share.
TEST(RlhfEvaluate, PhaseMemoryHoldsTheRuntimeAndFollowsThePrecision) {
  const ClusterSpec c = testing::PaperCluster(4, kNodes, kGpn);
  const ModelSpec m = SmallRlhfModel();
  const RlhfSpec spec = SmallRlhfSpec(m);
  const Calibration cal = testing::TestCalibration();
  AnalyticEngine engine(cal);
  ZeroConfig z;
  StatusOr<VariantReport> r = EvaluateRlhfVariant(
      "x", {.model = m, .zero = z, .cluster = c, .calibration = cal, .rlhf = &spec}, engine);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const PhaseReport& p : r->phases) {
    EXPECT_GT(p.runtime_bytes, kCudaContextBytes) << p.name;
    EXPECT_NEAR(
        p.memory_bytes,
        p.resident_bytes + p.kv_cache_bytes + p.activations_bytes + p.gathered_bytes + p.runtime_bytes, 1.0)
        << p.name;
  }
  EXPECT_GT(r->memory.nccl_buffers_bytes, 0);
  EXPECT_NEAR(r->memory.total_bytes,
              r->memory.parameters_bytes + r->memory.cuda_context_bytes + r->memory.nccl_buffers_bytes +
                  r->memory.cublas_workspace_bytes + r->memory.allocator_rounding_bytes +
                  r->memory.reserve_bytes,
              1.0);

  z.precision.bf16_master_weights_and_grads = true;
  z.precision.bf16_optimizer_states = true;
  StatusOr<VariantReport> bf16 = EvaluateRlhfVariant(
      "y", {.model = m, .zero = z, .cluster = c, .calibration = cal, .rlhf = &spec}, engine);
  ASSERT_TRUE(bf16.ok()) << bf16.status().message();
  // Only the actor's adapters take the variant's formats (the other three models run plain ZeRO-3): the sft
  // phase holds the actor alone, 16 - 10 = 6 bytes fewer per adapter parameter over P.
  const double adapters = LoraParamsPerLayer(m, kRank) * m.layers;
  EXPECT_NEAR(r->phases[3].resident_bytes - bf16->phases[3].resident_bytes,
              (16.0 - (2 + GradientPartitionBytes(z.precision) + OptimizerStateBytesPerParam(z.precision))) *
                  adapters / kP,
              1e-6);
  EXPECT_GT(r->phases[3].resident_bytes, bf16->phases[3].resident_bytes);
}

}  // namespace
}  // namespace zerosim::model
