// FSDP's number formats (issue 20 item 9; model/builders/fsdp_builder.cc): the fp32 gradient reduction
// (MixedPrecision(reduce_dtype=torch.float32), FSDP2's MixedPrecisionPolicy) for FSDP1, FSDP2 and HSDP, and
// torchao's FP8 weight all-gather for FSDP2, against closed forms written here. On 402d782 both were refused
// ("modelled for the DeepSpeed strategies only") and the FSDP builders gathered and reduced in 16 bits
// whatever the precision said.
#include <gtest/gtest.h>

#include "model/placement/traffic.h"
#include "model/report/memory.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/feasibility.h"
#include "strategy_test_util.h"

namespace zerosim::model {
namespace {

const Strategy kFsdpStrategies[] = {Strategy::kFsdpFullShard, Strategy::kFsdpShardGradOp,
                                    Strategy::kFsdpNoShard, Strategy::kFsdpHybridShard, Strategy::kFsdp2};

double QueueMemoryBytes(const Schedule& s, Queue q) {
  double bytes = 0;
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::kMemory && op.queue == q) bytes += op.memory_bytes;
  }
  return bytes;
}

TEST(FsdpPrecision, Fp32ReductionDoublesTheGradientBytesAndCastsOnce) {
  const ModelSpec m = testing::EvenGpt();
  const double psi = testing::EvenGptParams(m);
  const auto grad = static_cast<size_t>(Purpose::kGradientReduce);
  const auto fwd = static_cast<size_t>(Purpose::kForwardAllGather);
  for (Strategy st : kFsdpStrategies) {
    for (const ClusterSpec& c : testing::StrategyClusters()) {
      const ZeroConfig bf16 = testing::StrategyConfig(st);
      ZeroConfig fp32 = bf16;
      fp32.precision.gradient_reduce_dtype = FloatFormat::kFp32;
      EXPECT_TRUE(CheckZero(fp32, c).empty())
          << StrategyName(st) << ": " << DescribeProblems(CheckZero(fp32, c));
      const Schedule a = BuildSchedule(m, bf16, c);
      const Schedule b = BuildSchedule(m, fp32, c);
      const TierVolumes va = SumTraffic(a, c), vb = SumTraffic(b, c);
      // Every reduce-scatter, HSDP's replica all-reduce and NO_SHARD's all-reduce carry 4 bytes an element.
      EXPECT_DOUBLE_EQ(vb.cross_node[grad], 2.0 * va.cross_node[grad]) << StrategyName(st) << " " << c.nodes;
      EXPECT_DOUBLE_EQ(vb.intra_node[grad], 2.0 * va.intra_node[grad]) << StrategyName(st) << " " << c.nodes;
      EXPECT_GT(vb.intra_node[grad] + vb.cross_node[grad], 0) << StrategyName(st);
      EXPECT_EQ(vb.cross_node[fwd], va.cross_node[fwd]) << StrategyName(st);  // the weights are unchanged
      // The cast: FSDP1's grad.to(float32) on the post-backward stream reads 2 and writes 4 bytes of every
      // (unpadded: EvenGpt divides) gradient element; FSDP2's reduce-scatter copy-in writes 4 instead of 2.
      const double cast_a = QueueMemoryBytes(a, Queue::kReduceStream);
      const double cast_b = QueueMemoryBytes(b, Queue::kReduceStream);
      if (st == Strategy::kFsdp2) {
        EXPECT_DOUBLE_EQ(cast_a, 4.0 * psi);
        EXPECT_DOUBLE_EQ(cast_b, 6.0 * psi);
      } else {
        EXPECT_DOUBLE_EQ(cast_a, 0.0) << StrategyName(st);
        EXPECT_DOUBLE_EQ(cast_b, 6.0 * psi) << StrategyName(st);
      }
      // Memory: the largest unit's fp32 gradient beside its 16-bit one.
      const MemoryBreakdown ma = EstimateMemory(m, bf16, c, a), mb = EstimateMemory(m, fp32, c, b);
      EXPECT_DOUBLE_EQ(mb.buffers_bytes - ma.buffers_bytes, 4.0 * b.reduce_buffer_elements)
          << StrategyName(st);
    }
  }
}

TEST(FsdpPrecision, Fsdp2Fp8AllGatherCarriesOneByteForEveryBlockLinearWeight) {
  const ModelSpec m = testing::EvenGpt();
  const double h = m.hidden;
  const double psi = testing::EvenGptParams(m);
  const double blocks = m.layers * (12 * h * h + 13 * h);
  const double fp8 = m.layers * 12 * h * h;  // QKV 3h^2, attention output h^2, MLP 4h^2 twice
  const auto fwd = static_cast<size_t>(Purpose::kForwardAllGather);
  const auto bwd = static_cast<size_t>(Purpose::kBackwardAllGather);
  for (ClusterSpec c : testing::StrategyClusters()) {
    c.gpu.fp8_peak_flops = 1979e12;
    ZeroConfig bf16 = testing::StrategyConfig(Strategy::kFsdp2);
    bf16.precision.fp8_gemms = true;
    ZeroConfig f8 = bf16;
    f8.precision.fp8_weight_all_gather = true;
    EXPECT_TRUE(CheckZero(f8, c).empty()) << DescribeProblems(CheckZero(f8, c));
    const Schedule a = BuildSchedule(m, bf16, c);
    const Schedule b = BuildSchedule(m, f8, c);
    const TierVolumes va = SumTraffic(a, c), vb = SumTraffic(b, c);
    // The forward gathers every unit once (the root included), the backward the blocks again (FSDP2
    // reshards them after forward): 1 byte per FP8 element, 2 per other one.
    const double fwd_ratio = (2 * psi - fp8) / (2 * psi);
    const double bwd_ratio = (2 * blocks - fp8) / (2 * blocks);
    EXPECT_NEAR(vb.cross_node[fwd] / va.cross_node[fwd], fwd_ratio, 1e-12) << c.nodes;
    EXPECT_NEAR(vb.intra_node[fwd] / va.intra_node[fwd], fwd_ratio, 1e-12) << c.nodes;
    EXPECT_NEAR(vb.cross_node[bwd] / va.cross_node[bwd], bwd_ratio, 1e-12) << c.nodes;
    EXPECT_NEAR(vb.intra_node[bwd] / va.intra_node[bwd], bwd_ratio, 1e-12) << c.nodes;
    // The all-gather copy-in stream: torchao's cast of the FP8 shards (read 2, write 1), then the copy-in of
    // the gathered input's bytes (read and write).
    const double p = c.total_gpus();
    const double in_a = 2.0 * (2 * psi + 2 * blocks) / p;
    const double in_b = (3.0 * fp8 + 2.0 * (2 * psi - fp8)) / p + (3.0 * fp8 + 2.0 * (2 * blocks - fp8)) / p;
    EXPECT_NEAR(QueueMemoryBytes(a, Queue::kAllGatherStream) / in_a, 1.0, 1e-12) << c.nodes;
    EXPECT_NEAR(QueueMemoryBytes(b, Queue::kAllGatherStream) / in_b, 1.0, 1e-12) << c.nodes;
    // The unsharded FP8 weights hold 1 byte an element.
    EXPECT_LT(EstimateMemory(m, f8, c, b).gathered_parameters_bytes,
              EstimateMemory(m, bf16, c, a).gathered_parameters_bytes);
    // FSDP1 has no all-gather hook: refused at the key, as a problem of the configuration.
    for (Strategy st : {Strategy::kFsdpFullShard, Strategy::kFsdpShardGradOp, Strategy::kFsdpHybridShard}) {
      ZeroConfig z = f8;
      z.strategy = st;
      const std::vector<Problem> problems = CheckZero(z, c);
      ASSERT_EQ(problems.size(), 1u) << StrategyName(st);
      EXPECT_EQ(problems[0].key, "fp8_weight_all_gather");
    }
  }
}

}  // namespace
}  // namespace zerosim::model
