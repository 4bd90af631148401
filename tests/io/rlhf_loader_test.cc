// The [rlhf] section (model/io/rlhf_loader.h): DeepSpeed-Chat's defaults, and bad input named by file, line
// and key.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/io/loaders.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

const char* kRlhf = R"(
[rlhf]
critic_model = "m.toml"
prompt_len = 128
answer_len = 128
actor_lora_dim = 8
)";

StatusOr<Scenario> Load(const std::string& rlhf, const std::string& extra = "") {
  return LoadScenario(MemoryFileSource(testing::InputFiles(std::string(testing::kScenario) + rlhf + extra)),
                      "s.toml");
}

std::string With(const std::string& from, const std::string& to) {
  std::string text = kRlhf;
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(RlhfLoader, DefaultsAreDeepSpeedChats) {
  StatusOr<Scenario> s = Load(kRlhf);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->rlhf.has_value());
  EXPECT_EQ(s->rlhf->prompt_len, 128);
  EXPECT_EQ(s->rlhf->generation_batch_per_gpu, 16);  // --per_device_generation_batch_size
  EXPECT_EQ(s->rlhf->ppo_epochs, 1);
  EXPECT_EQ(s->rlhf->actor_lora_dim, 8);
  EXPECT_EQ(s->rlhf->critic_lora_dim, 0);
  EXPECT_EQ(s->rlhf->generation_gather, model::GenerationGather::kZeroHooks);
  EXPECT_EQ(s->rlhf->reference.name, s->variants.front().model.name);
}

TEST(RlhfLoader, HybridEngineModes) {
  StatusOr<Scenario> pinned = Load(std::string(kRlhf) + "hybrid_engine = true\n");
  ASSERT_TRUE(pinned.ok()) << pinned.status().message();
  EXPECT_EQ(pinned->rlhf->generation_gather, model::GenerationGather::kPinned);
  StatusOr<Scenario> unpinned = Load(std::string(kRlhf) + "hybrid_engine = true\npin_parameters = false\n");
  ASSERT_TRUE(unpinned.ok()) << unpinned.status().message();
  EXPECT_EQ(unpinned->rlhf->generation_gather, model::GenerationGather::kPerLayerBlocking);
}

TEST(RlhfLoader, BadInputNamesFileLineAndKey) {
  const struct {
    std::string rlhf;
    std::string key;
  } cases[] = {
      {With("prompt_len", "prompt_length"), "prompt_length"},
      {std::string(kRlhf) + "inference_tp_size = 2\n", "inference_tp_size"},
      {std::string(kRlhf) + "pin_parameters = false\n", "pin_parameters"},
      {With("answer_len = 128", "answer_len = 400"), "answer_len"},
      {std::string(kRlhf) + "lora_module_name = \"mlp\"\n", "lora_module_name"},
      {With("critic_model = \"m.toml\"", "critic_model = \"missing.toml\""), "critic_model"},
  };
  for (const auto& c : cases) {
    StatusOr<Scenario> s = Load(c.rlhf);
    ASSERT_FALSE(s.ok()) << c.key;
    EXPECT_NE(s.status().message().find("s.toml:"), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find(c.key), std::string::npos) << s.status().message();
  }
}

TEST(RlhfLoader, PhaseExpectationsNeedAnRlhfScenario) {
  const std::string expect = R"(
[[expect]]
variant = "ZeRO++"
baseline = "ZeRO-3"
metric = "speedup"
phase = "generation"
value = 2
tolerance = 0.1
source = "test"
)";
  StatusOr<Scenario> ok = Load(kRlhf, expect);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->expectations.front().phase, "generation");
  StatusOr<Scenario> plain = Load("", expect);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("phase"), std::string::npos) << plain.status().message();
}

}  // namespace
}  // namespace zerosim::io
