// Cross-node communication volume per iteration against closed forms (the ZeRO++ paper's Table 2 logic).
//
// Volumes are per node (cross-node bytes summed over all GPUs, divided by K): a ring over P ranks sends
// (P-1)/P of the buffer out of every node once; the inter-node all-to-all among the K same-local-rank GPUs
// sends (K-1)/K of each GPU's buffer. M is the model in fp16 bytes.
//
// The closed forms hold exactly for a schedule in which every use of a parameter gathers it: no
// activation checkpointing (one forward and one backward use per parameter), an untied logit layer,
// stage3_max_reuse_distance = 0 (release right after each use) and no prefetch walk (DeepSpeed also keeps
// a parameter whose next use a prefetch walk has seen). DeepSpeed's defaults keep some parameters
// gathered between uses; ReuseDistanceDecidesWhetherTheBackwardGathersAgain below covers that.
#include <gtest/gtest.h>

#include <cmath>

#include "model/placement/traffic.h"
#include "model/builders/schedule_builder.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

struct PerNode {
  double fwd, bwd, grad;
  double total() const { return fwd + bwd + grad; }
};

PerNode CrossNodePerNode(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c) {
  const TierVolumes v = SumTraffic(BuildSchedule(m, z, c), c);
  const double k = c.nodes;
  return {v.cross_node[1] / k, v.cross_node[2] / k, v.cross_node[3] / k};
}

ZeroConfig EveryUseGathers(ZeroConfig z) {
  z.activation_checkpointing = false;
  z.stage3_max_reuse_distance = 0;
  z.stage3_prefetch_bucket_size = 0;
  return z;
}

ModelSpec Untied(ModelSpec m) {
  m.tied_embeddings = false;
  return m;
}

// The model's parameters, split as the closed forms need them.
struct Sizes {
  double gathered_bytes = 0;  // 2 * elements of parameters above the persistence threshold
  double persistent_bytes = 0;  // 2 * elements of the others, gathered one by one after the step (_post_step)
  double matrix_bytes = 0;    // 2 * elements of 2-D parameters
  double vector_bytes = 0;    // 2 * elements of 1-D parameters
  double qgz_scale_bytes = 0; // 4 * max(rows, cols, P) per matrix: qgZ's fp32 scales
};

Sizes ModelSizes(const ModelSpec& m, const ClusterSpec& c, const ZeroConfig& z) {
  Sizes s;
  const double p = c.total_gpus();
  for (const Param& prm : BuildModuleGraph(m, 2048).params) {
    const double padded = std::ceil(prm.numel() / p) * p;  // DeepSpeed pads partitions
    (prm.numel() >= z.stage3_param_persistence_threshold ? s.gathered_bytes : s.persistent_bytes) += 2 * padded;
    if (prm.is_matrix()) {
      s.matrix_bytes += 2 * prm.numel();
      s.qgz_scale_bytes += 4 * std::max({static_cast<double>(prm.rows), static_cast<double>(prm.cols), p});
    } else {
      s.vector_bytes += 2 * padded;
    }
  }
  return s;
}

class PaperVolumes : public ::testing::Test {
 protected:
  ModelSpec m_ = Untied(testing::Gpt18B());
  ClusterSpec c_ = testing::PaperCluster(1);
  double p_ = c_.total_gpus();
  double k_ = c_.nodes;
  double ring_ = (p_ - 1) / p_;
  double a2a_ = (k_ - 1) / k_;
};

TEST_F(PaperVolumes, Zero3MovesThreeTimesTheModelAcrossNodes) {
  const ZeroConfig z = EveryUseGathers(ZeroConfig{});
  const Sizes s = ModelSizes(m_, c_, z);
  const PerNode v = CrossNodePerNode(m_, z, c_);
  // Forward all-gather M, backward all-gather M, gradient reduce-scatter M, each times (P-1)/P. (M for the
  // all-gathers counts the gathered parameters: the 1-D ones below 1e5 elements stay on every GPU, gathered
  // once after the optimizer step, which the forward's count includes.)
  EXPECT_NEAR(v.fwd / ((s.gathered_bytes + s.persistent_bytes) * ring_), 1.0, 1e-12);
  EXPECT_NEAR(v.bwd / (s.gathered_bytes * ring_), 1.0, 1e-12);
  EXPECT_NEAR(v.grad / ((s.matrix_bytes + s.vector_bytes) * ring_), 1.0, 1e-12);
  const double big_m = 2 * TotalParams(m_);
  // 3M (P-1)/P, up to the persistent 1-D parameters that the backward all-gather skips (1.7e-4 of M here).
  EXPECT_NEAR(v.total() / big_m, 3 * ring_, 5e-4);
}

TEST_F(PaperVolumes, ZeroPlusPlusMovesThreeQuartersOfTheModel) {
  const ZeroConfig z = EveryUseGathers(testing::ZeroPlusPlus(16));
  const Sizes s = ModelSizes(m_, c_, z);
  const Schedule sched = BuildSchedule(m_, z, c_);
  // qwZ: int8 codes (half of fp16) plus fp32 scales, as two all-gathers; separate the scales.
  double fwd_codes = 0, fwd_scales = 0;
  for (const Op& op : sched.ops) {
    if (op.kind != OpKind::kCollective || op.purpose != Purpose::kForwardAllGather) continue;
    (op.coll.element_bytes == 4.0 ? fwd_scales : fwd_codes) +=
        CollectiveTraffic(op.coll, testing::PlacementFor(op.coll, c_)).cross_total_bytes / k_;
  }
  // The persistent parameters' post-step gathers stay fp16 (2 bytes on the wire).
  EXPECT_NEAR(fwd_codes / ((0.5 * s.gathered_bytes + s.persistent_bytes) * ring_), 1.0, 1e-12);
  // DeepSpeed's groups hold at most 8000 elements (at least 4 bytes of scale per 8000 codes) and, for
  // these shards, more than 1000.
  EXPECT_GE(fwd_scales / fwd_codes, 4.0 / 8000);
  EXPECT_LE(fwd_scales / fwd_codes, 4.0 / 1000);

  const PerNode v = CrossNodePerNode(m_, z, c_);
  EXPECT_DOUBLE_EQ(v.fwd, fwd_codes + fwd_scales);
  // hpZ: backward gathers stay inside the node.
  EXPECT_EQ(v.bwd, 0.0);
  // qgZ: int4 codes of every matrix (a quarter of fp16) and its fp32 scales cross nodes once, (K-1)/K of
  // them leave each node; 1-D tensors fall back to an fp16 reduce-scatter over all ranks.
  const double qgz = (0.25 * s.matrix_bytes + s.qgz_scale_bytes) * a2a_ + s.vector_bytes * ring_;
  EXPECT_NEAR(v.grad / qgz, 1.0, 1e-12);

  const PerNode z3 = CrossNodePerNode(m_, EveryUseGathers(ZeroConfig{}), c_);
  const double ratio = z3.total() / v.total();
  std::printf("cross-node volume per node: ZeRO-3 %.4g B, ZeRO++ %.4g B; ratio %.4f (paper: 4x)\n", z3.total(),
              v.total(), ratio);
  EXPECT_NEAR(ratio, 4.05, 0.01);  // not 4: ring factor (P-1)/P, all-to-all factor (K-1)/K, scales
}

TEST_F(PaperVolumes, EachOptimizationChangesOnlyItsOwnComponent) {
  const ZeroConfig base = EveryUseGathers(ZeroConfig{});
  const PerNode z3 = CrossNodePerNode(m_, base, c_);

  ZeroConfig qwz = base;
  qwz.zero_quantized_weights = true;
  const PerNode q = CrossNodePerNode(m_, qwz, c_);
  // DeepSpeed quantizes every weight all-gather once qwZ is on, forward and backward alike.
  EXPECT_LT(q.fwd, 0.51 * z3.fwd);
  EXPECT_LT(q.bwd, 0.51 * z3.bwd);
  EXPECT_EQ(q.grad, z3.grad);

  ZeroConfig hpz = base;
  hpz.zero_hpz_partition_size = 16;
  const PerNode h = CrossNodePerNode(m_, hpz, c_);
  EXPECT_EQ(h.fwd, z3.fwd);
  EXPECT_EQ(h.bwd, 0.0);
  EXPECT_EQ(h.grad, z3.grad);

  ZeroConfig qgz = base;
  qgz.zero_quantized_gradients = true;
  const PerNode g = CrossNodePerNode(m_, qgz, c_);
  EXPECT_EQ(g.fwd, z3.fwd);
  EXPECT_EQ(g.bwd, z3.bwd);
  EXPECT_LT(g.grad, 0.26 * z3.grad);
}

TEST_F(PaperVolumes, HpzKeepsBackwardTrafficOnNvSwitch) {
  const ZeroConfig z = EveryUseGathers(testing::ZeroPlusPlus(16));
  const TierVolumes v = SumTraffic(BuildSchedule(m_, z, c_), c_);
  // Every backward gather is a ring of 16 inside a node: each of the P GPUs sends 15/16 of the int8
  // codes (and scales) of every gathered parameter over NVSwitch.
  const Sizes s = ModelSizes(m_, c_, z);
  EXPECT_GE(v.intra_node[2], p_ * 0.5 * s.gathered_bytes * 15.0 / 16.0);
  EXPECT_LE(v.intra_node[2], p_ * 0.5 * s.gathered_bytes * 15.0 / 16.0 * (1 + 4.0 / 1000));
}

TEST(Volumes, QgzWithOneNodeFallsBackToReduceScatter) {
  const ModelSpec m = testing::Gpt(4, 1024, 8);
  const ClusterSpec one_node = testing::PaperCluster(1, /*nodes=*/1, /*gpus_per_node=*/16);
  ZeroConfig plain;
  ZeroConfig qgz;
  qgz.zero_quantized_gradients = true;
  auto gradient_ops = [&](const ZeroConfig& z) {
    std::vector<std::pair<CollectiveKind, double>> ops;
    for (const Op& op : BuildSchedule(m, z, one_node).ops) {
      if (op.kind == OpKind::kCollective && op.purpose == Purpose::kGradientReduce) {
        ops.emplace_back(op.coll.kind, op.coll.buffer_bytes);
      }
    }
    return ops;
  };
  const auto a = gradient_ops(plain);
  const auto b = gradient_ops(qgz);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  for (const auto& [kind, bytes] : b) EXPECT_EQ(kind, CollectiveKind::kReduceScatter);
}

// With DeepSpeed's defaults (activation checkpointing, reuse distance 1e9) a block's parameters are
// gathered once for the recompute and kept for its backward use when the block is small enough.
TEST(Volumes, ReuseDistanceDecidesWhetherTheBackwardGathersAgain) {
  const ClusterSpec c = testing::PaperCluster(1);
  ZeroConfig z;  // DeepSpeed defaults, checkpointing on, but no prefetch walk (which keeps parameters
  z.stage3_prefetch_bucket_size = 0;  // whose next use it has seen, whatever the distance)
  auto backward_over_forward = [&](const ModelSpec& m) {
    const TierVolumes v = SumTraffic(BuildSchedule(m, z, c), c);
    return v.cross_node[2] / v.cross_node[1];
  };
  // 18B (h = 6144): between a parameter's recompute and its backward use lie at most
  // 2 x (dense + fc1 + fc2) = 2 x 9h^2 = 679M < 1e9 elements, so one gather serves both. The backward
  // gathers a little less than the forward: the tied word embedding is gathered twice in the forward
  // (embedding, logit layer) but stays gathered from the logit layer's forward to its backward, and the
  // last block's fc2 stays gathered across the turn (308M + 308M + 8h^2 = 918M < 1e9).
  const double small = backward_over_forward(testing::Gpt18B());
  // h = 8192: 2 x 9h^2 = 1.2e9 and 2 x 8h^2 = 1.07e9 exceed 1e9, so qkv and dense (4h^2 of each block's
  // 12h^2) are released after the recompute and gathered again for the backward: about 4/3.
  const double large = backward_over_forward(testing::Gpt(8, 8192, 64));
  std::printf("backward / forward gather volume: h=6144 %.4f, h=8192 %.4f\n", small, large);
  EXPECT_LT(small, 1.0);
  EXPECT_GT(large, 1.15);
}

}  // namespace
}  // namespace zerosim::model
