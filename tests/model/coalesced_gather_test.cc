// DeepSpeed's all_gather_coalesced per-rank host work (model/builders/fetch_coordinator.cc
// CoalescedPerRankOps): a gather of two or more parameters makes one view per rank of the flat buffer before
// the call, and its handle's wait one narrow and one record_stream per parameter and rank; a single-parameter
// gather makes none.
#include <gtest/gtest.h>

#include <vector>

#include "model/builders/fetch_coordinator.h"
#include "model/schedule/module_graph.h"
#include "model/builders/op_emitter.h"
#include "model/schedule/schedule.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

constexpr double kView = 2e-6;

// One module holding `n` weights of `numel` elements each (rows x 1000 columns), fetched once by itself in
// `phase` on `gpus` GPUs (16 a node); returns the host ops the fetch emits, in issue order. The view cost is
// kView unless `model_view_cost` (the model's own ZeroConfig::host_tensor_view_s).
std::vector<double> FetchHostOps(int n, double numel, int gpus, Phase phase, ZeroConfig z = {},
                                 bool model_view_cost = false) {
  ModuleGraph g;
  Module mod{"m", -1, {}, 0.0, {}};
  for (int i = 0; i < n; ++i) {
    g.params.push_back(Param{"w", static_cast<int64_t>(numel / 1000), 1000});
    mod.params.push_back(i);
  }
  g.modules.push_back(mod);
  if (!model_view_cost) z.runtime.host_tensor_view_s = kView;
  const ClusterSpec c = testing::PaperCluster(1, gpus / 16, 16);
  Schedule s;  // its frame: the ranks its groups are sized on (placement.h GridOf)
  s.nodes = c.nodes;
  s.gpus_per_node = c.gpus_per_node;
  s.world_size = c.total_gpus();
  OpEmitter emit(&s, z.zero_hpz_partition_size);
  FetchCoordinator fc(g, z, &emit);
  const std::vector<TraceStep> trace{{0, phase}};
  fc.BeginPass(&trace);
  fc.Fetch(0);
  fc.Release(0);
  fc.EndPass();
  std::vector<double> host;
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::kHost && op.host_s > 0) host.push_back(op.host_s);
  }
  return host;
}

// The host time the fetch emits.
double FetchHostSeconds(int n, double numel, int gpus, Phase phase, ZeroConfig z = {}) {
  double host = 0;
  for (double h : FetchHostOps(n, numel, gpus, phase, z)) host += h;
  return host;
}

TEST(CoalescedGather, TwoParametersAt1024RanksCostOneViewPerRankAndTwoOpsPerParameterAndRank) {
  // Each weight is 1024 x 1000 elements: a 1000-element slice on each of the 1024 ranks, so every rank's
  // slice starts inside it. Before the call: 1024 views; in wait: 2 weights x 1024 x (narrow +
  // record_stream).
  const double expected = (1024.0 + 2.0 * 1024.0 * 2.0) * kView;
  EXPECT_NEAR(FetchHostSeconds(2, 1024.0 * 1000, 1024, Phase::kForward), expected, 1e-12);
  // The view loop before the call alone, at the model's own view cost (2 us): 1024 x 2 us, then the wait's
  // 2 x 1024 x 2 ops.
  const std::vector<double> ops = FetchHostOps(2, 1024.0 * 1000, 1024, Phase::kForward, {}, true);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_NEAR(ops[0], 2.048e-3, 1e-12);
  EXPECT_NEAR(ops[1], 4096 * 2e-6, 1e-12);
}

TEST(CoalescedGather, ASingleParameterGatherHasNoPerRankLoop) {
  EXPECT_EQ(FetchHostSeconds(1, 1024.0 * 1000, 1024, Phase::kForward), 0.0);
}

TEST(CoalescedGather, HostTimeGrowsLinearlyWithTheGroupSize) {
  // 3 weights of 1024 x 1000: every rank of 256 or 1024 has a slice inside each: (1 + 3 x 2) views per rank.
  const double numel = 1024.0 * 1000;
  const double at256 = FetchHostSeconds(3, numel, 256, Phase::kForward);
  const double at1024 = FetchHostSeconds(3, numel, 1024, Phase::kForward);
  EXPECT_NEAR(at256, 7.0 * 256 * kView, 1e-12);
  EXPECT_NEAR(at1024, 4.0 * at256, 1e-12);
}

TEST(CoalescedGather, SmallParametersOnlyCountTheRanksWhoseSliceStartsInsideThem) {
  // 2 weights of 100 x 1000 = 100,000 elements (at the persistence threshold, so gathered) on 1024 ranks:
  // ceil(100000 / 1024) = 98-element slices, so ranks 0..1020 start inside each weight (98 x 1020 = 99,960 <
  // 100,000 <= 98 x 1021): 1024 views + 2 x 1021 x 2 ops.
  EXPECT_NEAR(FetchHostSeconds(2, 100.0 * 1000, 1024, Phase::kForward), (1024.0 + 4084.0) * kView, 1e-12);
}

TEST(CoalescedGather, HpzSecondaryGatherLoopsOverItsOwnGroup) {
  // hpZ over 8 ranks: the backward gather is from the secondary partition inside the 8-rank group; its slice
  // is 1000 x 1024 / 8 elements, so 8 ranks start inside each weight: 8 views + 2 x 8 x 2 ops.
  ZeroConfig z;
  z.zero_hpz_partition_size = 8;
  EXPECT_NEAR(FetchHostSeconds(2, 1024.0 * 1000, 1024, Phase::kBackward, z), (8.0 + 32.0) * kView, 1e-12);
  // Its forward gather is from the primary partition over all 1024 ranks.
  EXPECT_NEAR(FetchHostSeconds(2, 1024.0 * 1000, 1024, Phase::kForward, z), (1024.0 + 4096.0) * kView, 1e-12);
}

TEST(CoalescedGather, QuantizedGatherSplitsTheDequantizedBufferPerRankInsteadOfBeforeTheCall) {
  // qwZ: no views before the call; in wait one view per rank of the dequantized buffer, then the same
  // per-parameter loop: 1024 + 2 x 1024 x 2.
  ZeroConfig z;
  z.zero_quantized_weights = true;
  EXPECT_NEAR(FetchHostSeconds(2, 1024.0 * 1000, 1024, Phase::kForward, z), (1024.0 + 4096.0) * kView, 1e-12);
}

}  // namespace
}  // namespace zerosim::model
