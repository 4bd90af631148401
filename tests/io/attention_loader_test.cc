// [training] attention as the loaders read it (zero_keys.cc, scenario_loader.cc) and the calibration's
// optional FlashAttention-v1 efficiencies (calibration_loader.cc): "flash_v1" needs them, they come as a set,
// and a variant with its own model file keeps the scenario's attention (a training setting, not the model's).
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "model/io/loaders.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

using testing::kModel;

// The shared inputs with `edits` applied: {file, from, to}, each `from` replaced once.
StatusOr<Scenario> Load(const std::vector<std::array<std::string, 3>>& edits) {
  std::map<std::string, std::string> files = testing::InputFiles();
  files["m2.toml"] = kModel;
  for (const auto& [file, from, to] : edits) {
    std::string& text = files[file];
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return LoadScenario(MemoryFileSource(files), "s.toml");
}

const std::array<std::string, 3> kV1Attention = {"s.toml", "activation_checkpointing = true",
                                                 "activation_checkpointing = true\nattention = \"flash_v1\""};
const std::array<std::string, 3> kV1Calibration = {
    "c.json", "\"kernel_gap_s\": 0,",
    "\"kernel_gap_s\": 0, \"attention_v1_forward\": 0.3, \"attention_v1_backward\": 0.25, "
    "\"attention_v1_source\": \"test\","};

TEST(AttentionLoader, FlashV1ReadsTheCalibrationsV1Efficiencies) {
  StatusOr<Scenario> s = Load({kV1Attention, kV1Calibration});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->variants[0].model.attention, model::AttentionImpl::kFlashV1);
  EXPECT_DOUBLE_EQ(s->calibration.compute.attention_v1_forward, 0.3);
  EXPECT_DOUBLE_EQ(s->calibration.compute.attention_v1_backward, 0.25);
  EXPECT_EQ(s->calibration.compute.attention_v1_source, "test");
}

TEST(AttentionLoader, FlashV1WithoutV1EfficienciesIsAnErrorAtTheAttentionKey) {
  StatusOr<Scenario> s = Load({kV1Attention});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("attention"), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("attention_v1_forward"), std::string::npos) << s.status().message();
}

TEST(AttentionLoader, TheV1EfficienciesComeTogether) {
  StatusOr<Scenario> s =
      Load({{"c.json", "\"kernel_gap_s\": 0,", "\"kernel_gap_s\": 0, \"attention_v1_forward\": 0.3,"}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("gemm_efficiency.attention_v1_backward"), std::string::npos)
      << s.status().message();
}

TEST(AttentionLoader, Flash2ReadsTheCalibrationsFlashAttention2EfficienciesAndNeedsThem) {
  const std::array<std::string, 3> attention = {"s.toml", "activation_checkpointing = true",
                                                "activation_checkpointing = true\nattention = \"flash2\""};
  StatusOr<Scenario> missing = Load({attention});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("attention_fa2_forward"), std::string::npos)
      << missing.status().message();
  StatusOr<Scenario> s = Load({attention,
                               {"c.json", "\"kernel_gap_s\": 0,",
                                "\"kernel_gap_s\": 0, \"attention_fa2_forward\": 0.31, \"attention_fa2_backward\": "
                                "0.3, \"attention_fa2_source\": \"test\","}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->variants[0].model.attention, model::AttentionImpl::kFlash2);
  EXPECT_DOUBLE_EQ(s->calibration.compute.attention_fa2_forward, 0.31);
  EXPECT_DOUBLE_EQ(s->calibration.compute.attention_fa2_backward, 0.3);
  // They come together.
  StatusOr<Scenario> partial =
      Load({{"c.json", "\"kernel_gap_s\": 0,", "\"kernel_gap_s\": 0, \"attention_fa2_forward\": 0.31,"}});
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(partial.status().message().find("attention_fa2_backward"), std::string::npos)
      << partial.status().message();
}

TEST(AttentionLoader, AnUnknownAttentionListsTheChoices) {
  StatusOr<Scenario> s = Load({{"s.toml", "activation_checkpointing = true",
                                "activation_checkpointing = true\nattention = \"triton\""}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("flash, flash2, flash_v1, unfused"), std::string::npos) << s.status().message();
}

TEST(AttentionLoader, AVariantWithItsOwnModelKeepsTheScenariosAttention) {
  // Before this was fixed, a variant's model file reset attention to the default (flash), so the published
  // DeepSpeed and paper scenarios, whose variants name their models, ran FlashAttention instead of "unfused".
  StatusOr<Scenario> s = Load({{"s.toml", "activation_checkpointing = true",
                                "activation_checkpointing = true\nattention = \"unfused\""},
                               {"s.toml", "name = \"ZeRO-3\"", "name = \"ZeRO-3\"\nmodel = \"m2.toml\""}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->variants[0].model.attention, model::AttentionImpl::kUnfused);
  EXPECT_EQ(s->variants[1].model.attention, model::AttentionImpl::kUnfused);
}

}  // namespace
}  // namespace zerosim::io
