// Per-tier volumes of every strategy against closed forms written here. M = 2 Psi bytes (the model in fp16),
// P ranks, K nodes of N GPUs. A ring over g ranks moves (g-1)/g of its buffer out of every rank, one ring
// edge per rank; a node-major ring spanning k nodes has k of its g edges across nodes
// (model/placement/traffic.h). So a global collective of buffer B puts K (P-1)/P B on the NICs and
// (P-K)(P-1)/P B on NVSwitch, summed over all GPUs; an all-reduce twice that.
#include <gtest/gtest.h>

#include "model/placement/traffic.h"
#include "model/builders/schedule_builder.h"
#include "strategy_test_util.h"

namespace zerosim::testing {
namespace {

using model::Purpose;
using model::Strategy;

struct Tiers {
  double cross[4] = {0, 0, 0, 0};  // by Purpose
  double intra[4] = {0, 0, 0, 0};
};

// A ring collective over instances of g ranks each spanning k nodes (k = 1: inside a node), `rounds`
// passes (2: all-reduce), buffer `b` per rank, all P/g instances together.
void AddRing(Tiers* t, Purpose p, int world, int g, int k, double b, int rounds = 1) {
  if (g <= 1) return;
  const double per_rank = rounds * (g - 1.0) / g * b;
  const double instances = static_cast<double>(world) / g;
  const int cross_edges = k > 1 ? k : 0;
  t->cross[static_cast<int>(p)] += instances * cross_edges * per_rank;
  t->intra[static_cast<int>(p)] += instances * (g - cross_edges) * per_rank;
}

void ExpectTiers(const model::ModelSpec& m, const model::ZeroConfig& z, const model::ClusterSpec& c,
                 const Tiers& want, const char* what) {
  const model::TierVolumes v = model::SumTraffic(model::BuildSchedule(m, z, c), c);
  for (int p = 1; p < 4; ++p) {
    const char* purpose = model::PurposeName(static_cast<Purpose>(p));
    EXPECT_NEAR(v.cross_node[p], want.cross[p], 1e-9 * want.cross[p] + 1)
        << what << " cross-node " << purpose << " on " << c.nodes << "x" << c.gpus_per_node;
    EXPECT_NEAR(v.intra_node[p], want.intra[p], 1e-9 * want.intra[p] + 1)
        << what << " intra-node " << purpose << " on " << c.nodes << "x" << c.gpus_per_node;
  }
}

constexpr Purpose kFwd = Purpose::kForwardAllGather;
constexpr Purpose kBwd = Purpose::kBackwardAllGather;
constexpr Purpose kGrad = Purpose::kGradientReduce;

TEST(StrategyVolume, Zero3IsThreeRingsOfTheModel) {
  const model::ModelSpec m = EvenGpt();
  const double mb = 2 * EvenGptParams(m);
  for (const model::ClusterSpec& c : StrategyClusters()) {
    const int p = c.total_gpus(), k = c.nodes;
    Tiers t;  // 3 x (P-1)/P x M per GPU: forward gather, backward gather, reduce-scatter
    AddRing(&t, kFwd, p, p, k, mb);
    AddRing(&t, kBwd, p, p, k, mb);
    AddRing(&t, kGrad, p, p, k, mb);
    ExpectTiers(m, StrategyConfig(Strategy::kZero3), c, t, "zero3");
  }
}

TEST(StrategyVolume, Zero1AndZero2AreAReduceScatterAndAnAllGather) {
  const model::ModelSpec m = EvenGpt();
  const double mb = 2 * EvenGptParams(m);
  for (const model::ClusterSpec& c : StrategyClusters()) {
    const int p = c.total_gpus(), k = c.nodes;
    for (int accumulation : {1, 3}) {
      for (Strategy s : {Strategy::kZero1, Strategy::kZero2}) {
        model::ZeroConfig z = StrategyConfig(s);
        z.gradient_accumulation_steps = accumulation;
        // 2 x (P-1)/P x M per GPU per step; stage 2 reduces every micro-step, stage 1 once at the boundary.
        Tiers t;
        AddRing(&t, kGrad, p, p, k, mb * (s == Strategy::kZero2 ? accumulation : 1));
        AddRing(&t, kFwd, p, p, k, mb);  // the post-step all-gather of the updated fp16 partitions
        ExpectTiers(m, z, c, t, model::StrategyName(s));
      }
    }
  }
}

TEST(StrategyVolume, FsdpFullShardAndFsdp2GatherAllButTheRootTwice) {
  const model::ModelSpec m = EvenGpt();
  const double mb = 2 * EvenGptParams(m), root = 2 * EvenGptRootParams(m);
  for (const model::ClusterSpec& c : StrategyClusters()) {
    const int p = c.total_gpus(), k = c.nodes;
    // (P-1)/P x (3M - M_root) per GPU: the root unit is not resharded after forward (_post_forward_reshard).
    Tiers t;
    AddRing(&t, kFwd, p, p, k, mb);
    AddRing(&t, kBwd, p, p, k, mb - root);
    AddRing(&t, kGrad, p, p, k, mb);
    ExpectTiers(m, StrategyConfig(Strategy::kFsdpFullShard), c, t, "fsdp_full_shard");
    ExpectTiers(m, StrategyConfig(Strategy::kFsdp2), c, t, "fsdp2");
  }
}

TEST(StrategyVolume, ShardGradOpGathersOnce) {
  const model::ModelSpec m = EvenGpt();
  const double mb = 2 * EvenGptParams(m);
  for (const model::ClusterSpec& c : StrategyClusters()) {
    const int p = c.total_gpus(), k = c.nodes;
    Tiers t;  // 2 x (P-1)/P x M per GPU
    AddRing(&t, kFwd, p, p, k, mb);
    AddRing(&t, kGrad, p, p, k, mb);
    ExpectTiers(m, StrategyConfig(Strategy::kFsdpShardGradOp), c, t, "fsdp_shard_grad_op");
  }
}

TEST(StrategyVolume, NoShardAllReducesTheModel) {
  const model::ModelSpec m = EvenGpt();
  const double mb = 2 * EvenGptParams(m);
  for (const model::ClusterSpec& c : StrategyClusters()) {
    const int p = c.total_gpus(), k = c.nodes;
    Tiers t;  // 2 x (P-1)/P x M per GPU, all of it gradient all-reduce
    AddRing(&t, kGrad, p, p, k, mb, 2);
    ExpectTiers(m, StrategyConfig(Strategy::kFsdpNoShard), c, t, "fsdp_no_shard");
  }
}

TEST(StrategyVolume, HybridShardsInsideTheGroupAndAllReducesAShardAcross) {
  const model::ModelSpec m = EvenGpt();
  const double mb = 2 * EvenGptParams(m), root = 2 * EvenGptRootParams(m);
  for (const model::ClusterSpec& c : StrategyClusters()) {
    const int p = c.total_gpus(), n = c.gpus_per_node;
    for (int shard : {n, 2 * n}) {
      if (p % shard != 0 || shard == p) continue;
      model::ZeroConfig z = StrategyConfig(Strategy::kFsdpHybridShard);
      z.fsdp.hsdp_shard_size = shard;
      const int span = shard > n ? shard / n : 1;  // nodes one shard group covers
      const int replicas = p / shard;
      Tiers t;
      // Inside the group: FULL_SHARD's three rings of g = s; across: all-reduce of the shard (M / s per
      // rank) over the P/s replicas, one per group; with s = N every replica edge crosses nodes.
      AddRing(&t, kFwd, p, shard, span, mb);
      AddRing(&t, kBwd, p, shard, span, mb - root);
      AddRing(&t, kGrad, p, shard, span, mb);
      AddRing(&t, kGrad, p, replicas, replicas, mb / shard, 2);
      ExpectTiers(m, z, c, t, shard == n ? "hsdp s=N" : "hsdp s=2N");
    }
  }
}

TEST(StrategyVolume, MicsGathersInTheShardGroupAndAllReducesAtTheBoundary) {
  const model::ModelSpec m = EvenGpt();
  const double mb = 2 * EvenGptParams(m);
  for (const model::ClusterSpec& c : StrategyClusters()) {
    const int p = c.total_gpus(), n = c.gpus_per_node;
    for (int shard : {n, 2 * n}) {
      if (p % shard != 0 || shard == p) continue;
      for (bool hierarchical : {false, true}) {
        model::ZeroConfig z = StrategyConfig(Strategy::kMics);
        z.mics_shard_size = shard;
        z.mics_hierarchical_params_gather = hierarchical;
        z.gradient_accumulation_steps = 2;
        const int span = shard > n ? shard / n : 1;
        const int replicas = p / shard;
        Tiers t;
        for (Purpose gather : {kFwd, kBwd}) {
          for (int micro = 0; micro < 2; ++micro) {
            if (hierarchical && span > 1) {
              // Across nodes among the group's same-local-rank ranks (span of them, M / N per rank
              // gathered), then inside the node (N ranks, M per rank gathered).
              AddRing(&t, gather, p, span, span, mb / n);
              AddRing(&t, gather, p, n, 1, mb);
            } else {
              AddRing(&t, gather, p, shard, span, mb);
            }
          }
        }
        AddRing(&t, kGrad, p, shard, span, 2 * mb);                // a reduce-scatter per micro-step
        AddRing(&t, kGrad, p, replicas, replicas, mb / shard, 2);  // all-reduce once, at the boundary
        ExpectTiers(m, z, c, t, hierarchical ? "mics hierarchical" : "mics");
      }
    }
  }
}

// Each strategy moves the bytes it should relative to ZeRO-3 on the paper's shape, across nodes: the ratios
// a user compares (ZeRO-1/2 2/3 of ZeRO-3, NO_SHARD 2/3, HSDP's cross-node share 2 (K-1)/K of M over
// 3 (P-1)/P x K/P of it per node...). Here only the orderings, which every shape must keep.
TEST(StrategyVolume, CrossNodeOrderingHolds) {
  const model::ModelSpec m = EvenGpt();
  for (const model::ClusterSpec& c : StrategyClusters()) {
    auto cross = [&](Strategy s) {
      return model::SumTraffic(model::BuildSchedule(m, StrategyConfig(s), c), c).cross_total();
    };
    EXPECT_LT(cross(Strategy::kZero2), cross(Strategy::kZero3));
    EXPECT_LT(cross(Strategy::kFsdpShardGradOp), cross(Strategy::kFsdpFullShard));
    EXPECT_LT(cross(Strategy::kFsdpHybridShard), cross(Strategy::kFsdpFullShard));
  }
}

}  // namespace
}  // namespace zerosim::testing
