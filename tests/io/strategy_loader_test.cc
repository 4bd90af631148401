// `strategy` in scenarios: each variant's strategy and its framework's runtime defaults, a mixed scenario,
// and the clear errors (an unknown strategy, a strategy under the other framework, ZeRO++ switches outside
// zero3, a shard group that does not tile the cluster), each naming file, line and key.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/io/loaders.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

using model::Framework;
using model::Strategy;

// The test scenario (32 GPUs, 4 nodes of 8) with `zero` as its [zero] table body, `runtime` before it and
// `variants` as its variants.
StatusOr<Scenario> Load(const std::string& runtime, const std::string& zero, const std::string& variants) {
  std::string s = testing::kScenario;
  s = s.substr(0, s.find("[zero]")) + runtime + "[zero]\n" + zero + "\n" + variants;
  return LoadScenario(MemoryFileSource(testing::InputFiles(s)), "s.toml");
}

TEST(StrategyLoader, VariantsMixStrategiesEachUnderItsFramework) {
  StatusOr<Scenario> s =
      Load("", "stage = 3",
           "[[variant]]\nname = \"ZeRO-3\"\n"
           "[[variant]]\nname = \"FSDP\"\nstrategy = \"fsdp_full_shard\"\n"
           "[[variant]]\nname = \"HSDP\"\nstrategy = \"fsdp_hybrid_shard\"\nhsdp_shard_size = 16\n"
           "[[variant]]\nname = \"ZeRO-2\"\nstage = 2\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const auto& v = s->variants;
  EXPECT_EQ(v[0].zero.strategy, Strategy::kZero3);
  EXPECT_EQ(v[0].zero.framework, Framework::kDeepSpeed);
  EXPECT_EQ(v[0].zero.runtime.cuda_device_max_connections,
            8);  // plain DeepSpeed does not set it (model/spec/strategy.h)
  EXPECT_EQ(v[1].zero.strategy, Strategy::kFsdpFullShard);
  EXPECT_EQ(v[1].zero.framework, Framework::kFsdp);
  EXPECT_EQ(v[1].zero.runtime.cuda_device_max_connections, 8);  // CUDA's default: FSDP does not set it
  EXPECT_EQ(v[2].zero.shard_group_size(), 16);
  EXPECT_EQ(v[3].zero.strategy, Strategy::kZero2);
  EXPECT_FALSE(v[3].zero.overlap_comm);  // DeepSpeed's default for stages 1 and 2
}

TEST(StrategyLoader, FrameworkFsdpMakesFullShardTheDefault) {
  StatusOr<Scenario> s =
      Load("[runtime]\nframework = \"fsdp\"\ncuda_device_max_connections = 2\n\n", "",
           "[[variant]]\nname = \"FSDP\"\n[[variant]]\nname = \"FSDP2\"\nstrategy = \"fsdp2\"\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->variants[0].zero.strategy, Strategy::kFsdpFullShard);
  EXPECT_EQ(s->variants[1].zero.strategy, Strategy::kFsdp2);
  EXPECT_EQ(s->variants[1].zero.runtime.cuda_device_max_connections, 2);  // the [runtime] key wins
}

void ExpectError(const StatusOr<Scenario>& s, const std::string& where, const std::string& what) {
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(where), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find(what), std::string::npos) << s.status().message();
}

TEST(StrategyLoader, AStrategyUnderTheOtherFrameworkIsAnError) {
  ExpectError(Load("[runtime]\nframework = \"deepspeed\"\n\n", "stage = 3",
                   "[[variant]]\nname = \"FSDP\"\nstrategy = \"fsdp_full_shard\"\n"),
              "s.toml:17:12", "runs under framework \"fsdp\", not \"deepspeed\"");
  ExpectError(Load("[runtime]\nframework = \"fsdp\"\n\n", "",
                   "[[variant]]\nname = \"ZeRO-3\"\nstrategy = \"zero3\"\n"),
              "strategy", "runs under framework \"deepspeed\", not \"fsdp\"");
}

TEST(StrategyLoader, ZeroPlusPlusOutsideZero3IsAnError) {
  ExpectError(
      Load("", "stage = 3",
           "[[variant]]\nname = \"x\"\nstrategy = \"fsdp_full_shard\"\nzero_quantized_weights = true\n"),
      "zero_quantized_weights", "applies to strategy \"zero3\" only");
}

TEST(StrategyLoader, AShardGroupMustTileTheCluster) {
  ExpectError(Load("", "stage = 3", "[[variant]]\nname = \"x\"\nstrategy = \"mics\"\nmics_shard_size = 12\n"),
              "mics_shard_size", "must divide the 8 GPUs per node");
  ExpectError(Load("", "stage = 3",
                   "[[variant]]\nname = \"x\"\nstrategy = \"fsdp_hybrid_shard\"\nhsdp_shard_size = 24\n"),
              "hsdp_shard_size", "divides the 32 GPUs");
}

TEST(StrategyLoader, StageAndStrategyMustAgree) {
  ExpectError(Load("", "stage = 2\nstrategy = \"zero3\"", "[[variant]]\nname = \"x\"\n"), "[zero] stage",
              "contradicts strategy \"zero3\"");
}

}  // namespace
}  // namespace zerosim::io
