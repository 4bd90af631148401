// Hugging Face config.json as a model shape: the stored copies (tests/data/hf/, sources in its README)
// against their published parameter counts and the shipped model files, errors with file and JSON path,
// and `model = "hf:..."` in a scenario.
#include "model/io/hf_config.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

const std::string kData = std::string(ZEROSIM_SOURCE_DIR) + "/tests/data/hf/";

model::ModelSpec Hf(const std::string& name) {
  const StatusOr<ModelFile> m = LoadHfConfig(DiskFileSource(), kData + name + ".json");
  EXPECT_TRUE(m.ok()) << name << ": " << m.status().message();
  return m.ok() ? m->model : model::ModelSpec{};
}

model::ModelSpec Shipped(const std::string& name) {
  const StatusOr<ModelFile> m =
      LoadModel(DiskFileSource(), std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/models/" + name + ".toml");
  EXPECT_TRUE(m.ok()) << name << ": " << m.status().message();
  return m.ok() ? m->model : model::ModelSpec{};
}

TEST(HfConfig, StoredConfigsMatchPublishedParameterCounts) {
  const std::map<std::string, double> published = {
      {"llama3.1_8b", 8.03e9},    // huggingface.co/meta-llama/Llama-3.1-8B: 8.03B params
      {"llama3.1_70b", 70.6e9},   // huggingface.co/meta-llama/Llama-3.1-70B: 70.6B params
      {"llama3.1_405b", 406e9},   // huggingface.co/meta-llama/Llama-3.1-405B: 406B params
      {"llama2_7b", 6.74e9},      // huggingface.co/meta-llama/Llama-2-7b-hf: 6.74B params
      {"llama2_70b", 69.0e9},     // huggingface.co/meta-llama/Llama-2-70b-hf: 69B params
      {"mistral_7b", 7.24e9},     // huggingface.co/mistralai/Mistral-7B-v0.1: 7.24B params
      {"qwen2.5_72b", 72.7e9},    // Qwen2.5-72B model card: 72.7B
      {"gpt2", 124e6},            // huggingface.co/openai-community/gpt2: 124M params
      {"gpt_neox_20b", 20.55e9},  // Black et al. 2022, GPT-NeoX-20B, sec. 2: 20,554,567,680 parameters
      {"opt_30b", 30e9},          // Zhang et al. 2022, OPT, Table 1
      {"opt_66b", 66e9},          // Zhang et al. 2022, OPT, Table 1
  };
  // Not checked here: MPT-7B (its card's "6.7B" is the architecture's 6.65B rounded up, 0.8%), OPT-1.3B and
  // OPT-13B (the OPT paper's 1.3B and 13B are nominal: the architecture gives 1.316B and 12.85B, 1.2% and
  // 1.1% off); their shapes are checked against their sources instead.
  for (const auto& [name, count] : published) {
    const double params = model::TotalParams(Hf(name));
    EXPECT_NEAR(params / count, 1.0, 0.005) << name << ": " << params;
  }
}

// The shipped TOMLs and the configs describe the same models (MPT's TOMLs use llm-foundry's training
// vocabulary, 50368, where the released config has 50432, so MPT is not compared).
TEST(HfConfig, StoredConfigsEqualTheShippedModelFiles) {
  for (const char* name : {"llama3.1_8b", "llama3.1_70b", "llama3.1_405b", "llama2_7b", "llama2_70b",
                           "mistral_7b", "qwen2.5_72b", "opt_1.3b", "opt_13b", "opt_30b", "opt_66b"}) {
    const model::ModelSpec hf = Hf(name), toml = Shipped(name);
    EXPECT_DOUBLE_EQ(model::TotalParams(hf), model::TotalParams(toml)) << name;
    EXPECT_EQ(model::KvHeads(hf), model::KvHeads(toml)) << name;
    EXPECT_EQ(hf.mlp, toml.mlp) << name;
    EXPECT_EQ(hf.norm, toml.norm) << name;
    EXPECT_EQ(hf.positions, toml.positions) << name;
    EXPECT_EQ(hf.biases, toml.biases) << name;
    EXPECT_EQ(hf.tied_embeddings, toml.tied_embeddings) << name;
  }
}

TEST(HfConfig, FamiliesSetTheirArchitecture) {
  const model::ModelSpec llama = Hf("llama3.1_70b");
  EXPECT_EQ(llama.kv_heads, 8);
  EXPECT_EQ(llama.mlp, model::MlpKind::kSwiglu);
  EXPECT_EQ(llama.positions, model::PositionKind::kRotary);
  EXPECT_FALSE(llama.tied_embeddings);
  EXPECT_EQ(Hf("qwen2.5_72b").biases, model::BiasKind::kQkvOnly);
  const model::ModelSpec mpt = Hf("mpt_7b");
  EXPECT_EQ(mpt.positions, model::PositionKind::kAlibi);
  EXPECT_EQ(mpt.biases, model::BiasKind::kNone);
  EXPECT_EQ(Hf("gpt2").ffn_hidden, 4 * 768);
  EXPECT_EQ(Hf("opt_1.3b").max_position_embeddings, 2050);
}

std::string Error(const std::string& text) {
  const StatusOr<ModelFile> m = ParseHfConfig(text, "cfg.json");
  EXPECT_FALSE(m.ok()) << text;
  return m.ok() ? "" : m.status().message();
}

TEST(HfConfig, ErrorsNameTheFileAndTheJsonPath) {
  const std::string llama =
      R"({"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8,
          "intermediate_size": 688, "vocab_size": 1000, "max_position_embeddings": 2048)";
  ASSERT_TRUE(ParseHfConfig(llama + "}", "cfg.json").ok());
  EXPECT_NE(Error(llama + R"(, "num_key_value_heads": "8"})")
                .find("cfg.json: $.num_key_value_heads: expected an integer"),
            std::string::npos);
  EXPECT_NE(Error(llama + R"(, "num_key_value_heads": 3})").find("$.num_key_value_heads"), std::string::npos);
  EXPECT_NE(Error(R"({"model_type": "llama", "hidden_size": 256})").find("$.num_hidden_layers: missing"),
            std::string::npos);
  const std::string unknown = Error(R"({"model_type": "falcon"})");
  EXPECT_NE(unknown.find("$.model_type: \"falcon\" is not supported"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("qwen2"), std::string::npos) << unknown;
  EXPECT_NE(Error(R"({"hidden_size": 1})").find("$.model_type: missing"), std::string::npos);
  EXPECT_NE(Error("{not json").find("cfg.json: not valid JSON"), std::string::npos);
  EXPECT_NE(Error(R"({"model_type": "mpt", "d_model": 64, "n_layers": 2, "n_heads": 4, "expansion_ratio": 4,
                      "vocab_size": 100, "max_seq_len": 128, "attn_config": {"alibi": "yes"}})")
                .find("$.attn_config.alibi: expected a boolean"),
            std::string::npos);
}

// Dimensions computed from the file's integers (GPT-2's default n_inner, MPT's expansion ratio, OPT's two
// offset rows) in 64 bits: near INT_MAX they are refused at the key, never a signed overflow; a 30-digit
// integer is out of range; a torch_dtype other than the 16-bit formats is refused, not taken for bf16 (issue
// 39).
TEST(HfConfig, OutOfRangeAndUnmodelledValuesAreRefusedAtTheKey) {
  const std::string big = "2147483647";
  const std::string gpt2 = Error(R"({"model_type": "gpt2", "n_embd": 1073741824, "n_layer": 2, "n_head": 1,
                                     "vocab_size": 100, "n_positions": 128})");
  EXPECT_NE(gpt2.find("cfg.json: $.n_inner: its default 4 * n_embd = 4294967296 is above 2147483647"),
            std::string::npos)
      << gpt2;
  const std::string mpt = Error(R"({"model_type": "mpt", "d_model": 65536, "n_layers": 2, "n_heads": 4,
                                    "expansion_ratio": )" +
                                big + R"(, "vocab_size": 100, "max_seq_len": 128})");
  EXPECT_NE(mpt.find("cfg.json: $.expansion_ratio: expansion_ratio * d_model = "), std::string::npos) << mpt;
  const std::string opt = Error(R"({"model_type": "opt", "hidden_size": 64, "num_hidden_layers": 2,
                                    "num_attention_heads": 4, "ffn_dim": 256, "vocab_size": 100,
                                    "max_position_embeddings": )" +
                                big + "}");
  EXPECT_NE(opt.find("cfg.json: $.max_position_embeddings: max_position_embeddings + 2"), std::string::npos)
      << opt;
  // float32 was trained as bf16 without a word (issue 39 item 7).
  const std::string fp32 =
      Error(R"({"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 100,
                                     "n_positions": 128, "torch_dtype": "float32"})");
  EXPECT_NE(fp32.find("cfg.json: $.torch_dtype: \"float32\" is not modeled"), std::string::npos) << fp32;
  // A 30-digit integer (a float to the JSON parser) is out of range, not "a float".
  const std::string digits =
      Error(R"({"model_type": "llama", "hidden_size": 123456789012345678901234567890})");
  EXPECT_NE(digits.find("$.hidden_size: out of range: expected a positive integer up to 2147483647"),
            std::string::npos)
      << digits;
}

TEST(HfConfig, AScenarioNamesAConfigWithTheHfPrefix) {
  std::string scenario = testing::kScenario;
  scenario.replace(scenario.find("model = \"m.toml\""), 16, "model = \"hf:cfg.json\"");
  const std::map<std::string, std::string> files = {
      {"s.toml", scenario},
      {"t.toml", testing::kTopology},
      {"c.json", testing::Calibration()},
      {"cfg.json",
       R"({"model_type": "mistral", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 8,
           "num_key_value_heads": 2, "intermediate_size": 688, "vocab_size": 1000, "max_position_embeddings": 2048})"}};
  const StatusOr<Scenario> s = LoadScenario(MemoryFileSource(files), "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->variants[0].model.kv_heads, 2);
  EXPECT_EQ(s->variants[0].model.mlp, model::MlpKind::kSwiglu);
  EXPECT_EQ(s->variants[0].model.seq_len, 512);
}

}  // namespace
}  // namespace zerosim::io
