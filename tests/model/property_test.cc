// A randomized property test: configurations drawn at random (a fixed seed, so the test is deterministic)
// either fail model::Validate or evaluate to a report that satisfies every invariant
// (model/report/invariants.h). Sizes are kept small so that thousands of evaluations take seconds.
#include <gtest/gtest.h>

#include <random>

#include "model/report/evaluate.h"
#include "model/report/invariants.h"
#include "model/spec/feasibility.h"
#include "sim/sim_evaluate.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

struct Config {
  ModelSpec m;
  ZeroConfig z;
  ClusterSpec c;
};

// One random configuration (feasible or not) from `rng`.
Config Draw(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<int> values) {
    return values.begin()[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
  };
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  Config x;
  ClusterSpec& c = x.c;
  c = testing::PaperCluster(pick({0, 1, 2, 3, 4, 8}), pick({1, 2, 3, 4, 6, 8, 16}), pick({1, 2, 4, 6, 8}));
  c.nic.bandwidth_Bps = uniform(1e9, 1e11);
  c.intra.bandwidth_Bps = uniform(1e10, 1e12);
  c.gpu.peak_flops = uniform(1e13, 1e15);
  c.gpu.sms = pick({1, 80, 132});
  c.nccl.channels = pick({0, 2, 16});
  switch (pick({0, 1, 2})) {
    case 0:
      c.fabric.kind = FabricKind::kSingleSwitch;
      break;
    case 1:
      c.fabric.kind = FabricKind::kFatTree;
      c.fabric.nodes_per_leaf = pick({1, 2, 3, 4});
      c.fabric.oversubscription = uniform(1, 8);
      c.fabric.leaves_per_pod = pick({0, 0, 2});
      break;
    default:
      c.fabric.kind = FabricKind::kRailOptimized;
      break;
  }
  ModelSpec& m = x.m;
  m = testing::Gpt(pick({1, 2, 3}), pick({64, 128, 256, 384}), pick({1, 2, 3, 4, 8}));
  m.vocab = pick({100, 1000, 50257});
  m.max_position_embeddings = pick({128, 512});
  m.seq_len = pick({64, 128, 512, 1024});
  ZeroConfig& z = x.z;
  z.zero_quantized_weights = pick({0, 1}) == 1;
  z.zero_quantized_gradients = pick({0, 1}) == 1;
  z.zero_hpz_partition_size = pick({1, 2, 3, 4, 8});
  z.train_micro_batch_size_per_gpu = pick({1, 2, 4});
  z.gradient_accumulation_steps = pick({1, 2});
  z.activation_checkpointing = pick({0, 1}) == 1;
  z.reduce_bucket_size = pick({1, 1000, 500000000});
  z.stage3_prefetch_bucket_size = pick({0, 1000, 50000000});
  z.stage3_param_persistence_threshold = pick({0, 100000});
  z.runtime.cuda_device_max_connections = pick({1, 8});
  return x;
}

TEST(Property, RandomConfigurationsAreInfeasibleOrSatisfyTheInvariants) {
  std::mt19937_64 rng(12);
  int feasible = 0;
  const Calibration cal = testing::TestCalibration();
  for (int i = 0; i < 10000; ++i) {
    const Config x = Draw(rng);
    if (!testing::Validate(x.m, x.z, x.c).empty()) continue;
    ++feasible;
    const VariantReport r = EvaluateAnalyticVariant("random", {x.m, x.z, x.c, cal});
    EXPECT_EQ(r.invariant_violation, "") << "configuration " << i;
  }
  EXPECT_GT(feasible, 1000);  // the draw exercises the evaluation, not only the checks
}

// The sim engine on a sample of the same draw (each replay is a child process, so a sample).
TEST(Property, ASampleReplayedOnSimGridSatisfiesTheInvariants) {
  std::mt19937_64 rng(34);
  const Calibration cal = testing::TestCalibration();
  int simulated = 0;
  for (int i = 0; i < 2000 && simulated < 24; ++i) {
    const Config x = Draw(rng);
    if (!testing::Validate(x.m, x.z, x.c).empty()) continue;
    ++simulated;
    StatusOr<VariantReport> r = sim::EvaluateSimVariant("random", {x.m, x.z, x.c, cal}, sim::SimOptions{});
    ASSERT_TRUE(r.ok()) << "configuration " << i << ": " << r.status().message();
    EXPECT_EQ(r->invariant_violation, "") << "configuration " << i;
  }
  EXPECT_EQ(simulated, 24);
}

}  // namespace
}  // namespace zerosim::model
