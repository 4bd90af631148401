// Memory per GPU of every strategy against closed forms: the model states are Psi x (2 / Np + 2 / Ng +
// 12 / No) bytes (ZeRO's accounting, Rajbhandari et al. 2020 sec. 3) with each strategy's divisors: ZeRO-1
// (1, 1, P), ZeRO-2 (1, P, P), ZeRO-3, FSDP FULL_SHARD / SHARD_GRAD_OP and FSDP2 (P, P, P), MiCS and HSDP
// (s, s, s), NO_SHARD (1, 1, 1). Plus what each keeps gathered.
#include <gtest/gtest.h>

#include "model/report/memory.h"
#include "model/builders/schedule_builder.h"
#include "strategy_test_util.h"

namespace zerosim::testing {
namespace {

using model::Strategy;

struct Divisors {
  double params, grads, optimizer;
};

Divisors DivisorsOf(Strategy s, int p, int shard) {
  switch (s) {
    case Strategy::kZero1:
      return {1, 1, static_cast<double>(p)};
    case Strategy::kZero2:
      return {1, static_cast<double>(p), static_cast<double>(p)};
    case Strategy::kMics:
    case Strategy::kFsdpHybridShard:
      return {static_cast<double>(shard), static_cast<double>(shard), static_cast<double>(shard)};
    case Strategy::kFsdpNoShard:
      return {1, 1, 1};
    default:
      return {static_cast<double>(p), static_cast<double>(p), static_cast<double>(p)};
  }
}

model::MemoryBreakdown MemoryOf(const model::ModelSpec& m, const model::ZeroConfig& z,
                                const model::ClusterSpec& c) {
  return model::EstimateMemory(m, z, c, model::BuildSchedule(m, z, c));
}

TEST(StrategyMemory, ModelStatesFollowEachStrategysDivisors) {
  const model::ModelSpec m = EvenGpt();
  const double psi = EvenGptParams(m);
  for (const model::ClusterSpec& c : StrategyClusters()) {
    const int p = c.total_gpus();
    for (Strategy s : AllStrategies()) {
      model::ZeroConfig z = StrategyConfig(s);
      const int shard = 2 * c.gpus_per_node < p ? 2 * c.gpus_per_node : c.gpus_per_node;
      z.mics_shard_size = z.fsdp.hsdp_shard_size = shard;
      const Divisors d = DivisorsOf(s, p, shard);
      const model::MemoryBreakdown r = MemoryOf(m, z, c);
      const char* name = model::StrategyName(s);
      EXPECT_NEAR(r.parameters_bytes, 2 * psi / d.params, 1e-9 * psi) << name << " on " << p;
      EXPECT_NEAR(r.gradients_bytes, 2 * psi / d.grads, 1e-9 * psi) << name << " on " << p;
      EXPECT_NEAR(r.optimizer_states_bytes, 12 * psi / d.optimizer, 1e-9 * psi) << name << " on " << p;
      EXPECT_NEAR(r.parameters_bytes + r.gradients_bytes + r.optimizer_states_bytes,
                  psi * (2 / d.params + 2 / d.grads + 12 / d.optimizer), 1e-9 * psi)
          << name << " on " << p;
    }
  }
}

TEST(StrategyMemory, WhatEachKeepsGathered) {
  const model::ModelSpec m = EvenGpt(4);
  const double psi = EvenGptParams(m), root = EvenGptRootParams(m);
  const double block = (psi - root) / m.layers;
  for (const model::ClusterSpec& c : StrategyClusters()) {
    // ZeRO-1/2 and NO_SHARD gather nothing: the parameters are whole already.
    for (Strategy s : {Strategy::kZero1, Strategy::kZero2, Strategy::kFsdpNoShard}) {
      EXPECT_EQ(MemoryOf(m, StrategyConfig(s), c).gathered_parameters_bytes, 0) << model::StrategyName(s);
    }
    // SHARD_GRAD_OP keeps every unit unsharded from its forward to its backward: the whole model at the
    // end of the forward.
    EXPECT_NEAR(MemoryOf(m, StrategyConfig(Strategy::kFsdpShardGradOp), c).gathered_parameters_bytes, 2 * psi,
                1e-9 * psi);
    // FULL_SHARD with limit_all_gathers: the root and at most two blocks (the limiter lets a third unshard
    // start only once the first is freed).
    const double full = MemoryOf(m, StrategyConfig(Strategy::kFsdpFullShard), c).gathered_parameters_bytes;
    EXPECT_LE(full, 2 * (root + 2 * block) * (1 + 1e-9));
    EXPECT_GE(full, 2 * (root + block));
    // FSDP's reduction buffer: the largest unit's unsharded gradient (here the root).
    EXPECT_NEAR(MemoryOf(m, StrategyConfig(Strategy::kFsdpFullShard), c).buffers_bytes, 2 * root, 1e-9 * psi);
  }
}

}  // namespace
}  // namespace zerosim::testing
