// The strategy table (model/spec/strategy.h TraitsOf): one row per strategy that the loaders, the builders
// and the memory read. Its rows agree with one another and with what the schedules divide the states over.
#include <gtest/gtest.h>

#include <cstring>

#include "model/builders/schedule_builder.h"
#include "model/spec/strategy.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

TEST(StrategyTraits, EveryRowIsConsistent) {
  for (int i = 0; i < kNumStrategies; ++i) {
    const auto s = static_cast<Strategy>(i);
    const StrategyTraits& t = TraitsOf(s);
    SCOPED_TRACE(t.name);
    EXPECT_EQ(ParseStrategy(t.name), s);
    EXPECT_LE(std::strlen(t.label), 13u);
    EXPECT_NE(std::strstr(StrategyNames(), t.name), nullptr);
    // FSDP has no DeepSpeed stage; each DeepSpeed stage maps back to its strategy.
    EXPECT_EQ(t.framework == Framework::kFsdp, t.zero_stage == 0);
    EXPECT_EQ(t.framework == Framework::kFsdp, t.builder == StrategyTraits::Builder::kFsdp);
    if (t.zero_stage > 0) {
      EXPECT_EQ(DeepSpeedStrategyOfStage(t.zero_stage, HasShardGroup(s)), s);
    }
    // A shard-size key exactly when some state is divided over a shard group; the states are divided at
    // least as finely from the parameters to the optimizer states (ZeRO's stages: 1 the optimizer states, 2
    // and the gradients, 3 and the parameters).
    const bool group = t.parameters == ShardOver::kShardGroup || t.gradients == ShardOver::kShardGroup ||
                       t.optimizer_states == ShardOver::kShardGroup;
    EXPECT_EQ(t.shard_size_key != nullptr, group);
    EXPECT_LE(static_cast<int>(t.parameters != ShardOver::kNone),
              static_cast<int>(t.gradients != ShardOver::kNone));
    EXPECT_LE(static_cast<int>(t.gradients != ShardOver::kNone),
              static_cast<int>(t.optimizer_states != ShardOver::kNone));
  }
}

TEST(StrategyTraits, SchedulesDivideTheStatesAsTheTableSays) {
  // 2 nodes of 8 GPUs: the data-parallel group is 16 ranks, a shard group (MiCS, HSDP) one node of 8.
  const ModelSpec m = testing::Gpt(4, 1024, 8);
  const ClusterSpec c = testing::PaperCluster(1, 2, 8);
  for (int i = 0; i < kNumStrategies; ++i) {
    ZeroConfig z;
    z.strategy = static_cast<Strategy>(i);
    z.framework = FrameworkOf(z.strategy);
    const StrategyTraits& t = TraitsOf(z.strategy);
    SCOPED_TRACE(t.name);
    const Schedule s = BuildSchedule(m, z, RankShape(c));
    auto expected = [](ShardOver over) {
      return over == ShardOver::kNone ? 1 : over == ShardOver::kShardGroup ? 8 : 16;
    };
    EXPECT_EQ(s.param_shards, expected(t.parameters));
    EXPECT_EQ(s.gradient_shards, expected(t.gradients));
    EXPECT_EQ(s.optimizer_shards, expected(t.optimizer_states));
  }
}

}  // namespace
}  // namespace zerosim::model
