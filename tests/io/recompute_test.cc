// `[training] recompute`: the policy reaches the variant, keeps activation_checkpointing consistent, and
// bad values or a conflict with activation_checkpointing are errors naming the key.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/report/memory.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

StatusOr<Scenario> WithTraining(const std::string& line) {
  std::string scenario = testing::kScenario;
  const std::string from = "activation_checkpointing = true\n";
  scenario.replace(scenario.find(from), from.size(), line);
  return LoadScenario(MemoryFileSource(testing::InputFiles(scenario)), "s.toml");
}

TEST(Recompute, EachPolicyReachesTheVariants) {
  const std::map<std::string, model::RecomputePolicy> policies = {
      {"none", model::RecomputePolicy::kNone},
      {"full", model::RecomputePolicy::kFull},
      {"selective", model::RecomputePolicy::kSelective},
      {"offload", model::RecomputePolicy::kOffload},
      {"selective_op", model::RecomputePolicy::kSelectiveOp},
      {"selective_block", model::RecomputePolicy::kSelectiveBlock}};
  for (const auto& [name, policy] : policies) {
    const StatusOr<Scenario> s = WithTraining("recompute = \"" + name + "\"\n");
    ASSERT_TRUE(s.ok()) << s.status().message();
    for (const Variant& v : s->variants) {
      EXPECT_EQ(model::RecomputeOf(v.zero), policy) << name;
      // The schedule builder's full recompute pass runs for full and offload only.
      EXPECT_EQ(v.zero.activation_checkpointing, name == "full" || name == "offload") << name;
    }
  }
  const StatusOr<Scenario> old = WithTraining("activation_checkpointing = false\n");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(model::RecomputeOf(old->variants[0].zero), model::RecomputePolicy::kNone);
}

TEST(Recompute, TheBlockIntervalReachesTheVariantsWithSelectiveBlockOnly) {
  const StatusOr<Scenario> s =
      WithTraining("recompute = \"selective_block\"\nrecompute_block_interval = 3\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  for (const Variant& v : s->variants) EXPECT_EQ(v.zero.recompute_block_interval, 3);
  const StatusOr<Scenario> d = WithTraining("recompute = \"selective_block\"\n");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->variants[0].zero.recompute_block_interval, 2);  // torchtitan's default "2"
  const StatusOr<Scenario> other = WithTraining("recompute = \"full\"\nrecompute_block_interval = 3\n");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("recompute_block_interval"), std::string::npos)
      << other.status().message();
  const StatusOr<Scenario> zero =
      WithTraining("recompute = \"selective_block\"\nrecompute_block_interval = 0\n");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("recompute_block_interval"), std::string::npos)
      << zero.status().message();
}

TEST(Recompute, BadValuesAreErrorsNamingTheKey) {
  const StatusOr<Scenario> bad = WithTraining("recompute = \"partial\"\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("recompute"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("selective"), std::string::npos) << bad.status().message();
  const StatusOr<Scenario> both = WithTraining("recompute = \"full\"\nactivation_checkpointing = true\n");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("not both"), std::string::npos) << both.status().message();
}

}  // namespace
}  // namespace zerosim::io
