// Mixture-of-experts inputs (issue 37): the model file's MoE keys and their errors at file:line:key, Hugging
// Face's Mixtral / Qwen-MoE configs, and `[parallel] expert` in a scenario with its rules.
#include <gtest/gtest.h>

#include <string>

#include "model/io/file_source.h"
#include "model/io/hf_config.h"
#include "model/io/loaders.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

StatusOr<ModelFile> LoadModelText(const std::string& extra) {
  return LoadModel(MemoryFileSource({{"m.toml", std::string(testing::kModel) + extra}}), "m.toml");
}

void ExpectError(const Status& s, const std::string& where, const std::string& what) {
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(where), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
}

TEST(MoeLoader, ModelKeysParseWithTheirDefaults) {
  const StatusOr<ModelFile> m =
      LoadModelText("experts = 8\nexperts_per_token = 2\nshared_expert_ffn = 512\n");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model.experts, 8);
  EXPECT_EQ(m->model.experts_per_token, 2);
  EXPECT_EQ(m->model.moe_ffn_hidden, 1024);  // ffn_hidden, Megatron-Core's fallback
  EXPECT_EQ(m->model.shared_expert_ffn, 512);
  EXPECT_EQ(m->model.first_dense_layers, 0);
  const StatusOr<ModelFile> dense = LoadModelText("");
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(dense->model.experts, 0);
}

TEST(MoeLoader, BadMoeKeysAreErrorsAtTheirLine) {
  // kModel has 10 lines: the extra keys start at line 11.
  ExpectError(LoadModelText("experts = 8\nexperts_per_token = 9\n").status(), "m.toml:12",
              "experts_per_token: top-k = 9 routes each token to more experts than the 8 there are");
  ExpectError(LoadModelText("experts = 8\n").status(), "m.toml", "experts_per_token");
  ExpectError(LoadModelText("moe_ffn_hidden = 512\n").status(), "m.toml:11", "needs `experts`");
  ExpectError(LoadModelText("experts = 8\nexperts_per_token = 2\nfirst_dense_layers = 2\n").status(),
              "m.toml:13", "first_dense_layers");
}

const char* kMixtral = R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32,
  "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
  "max_position_embeddings": 32768, "num_local_experts": 8, "num_experts_per_tok": 2, "hidden_act": "silu",
  "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";

TEST(MoeLoader, HuggingFaceMixtralEqualsTheShippedFile) {
  const StatusOr<ModelFile> hf = ParseHfConfig(kMixtral, "mixtral.json");
  ASSERT_TRUE(hf.ok()) << hf.status().message();
  const StatusOr<ModelFile> shipped =
      LoadModel(DiskFileSource(), std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/models/mixtral_8x7b.toml");
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  model::ModelSpec a = hf->model, b = shipped->model;
  a.name = b.name;
  EXPECT_EQ(a, b);
}

TEST(MoeLoader, QwenMoeReadsItsKeysAndRefusesWhatIsNotModelled) {
  // Qwen1.5-MoE-A2.7B's shape (transformers Qwen2MoeConfig): 60 experts of 1408, 4 per token, a shared expert
  // of 5632, QKV biases.
  const std::string qwen2 = R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
    "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 5632, "vocab_size": 151936,
    "max_position_embeddings": 8192, "num_experts": 60, "moe_intermediate_size": 1408,
    "num_experts_per_tok": 4, "shared_expert_intermediate_size": 5632, "decoder_sparse_step": 1,
    "mlp_only_layers": [], "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";
  const StatusOr<ModelFile> m = ParseHfConfig(qwen2, "q.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model.experts, 60);
  EXPECT_EQ(m->model.moe_ffn_hidden, 1408);
  EXPECT_EQ(m->model.shared_expert_ffn, 5632);
  EXPECT_EQ(m->model.biases, model::BiasKind::kQkvOnly);
  // Qwen1.5-MoE-A2.7B: 14.3B parameters, 2.7B activated (its model card).
  EXPECT_NEAR(model::TotalParams(m->model) / 14.3e9, 1.0, 0.01) << model::TotalParams(m->model);
  std::string sparse = qwen2;
  sparse.replace(sparse.find("\"decoder_sparse_step\": 1"), 24, "\"decoder_sparse_step\": 2");
  ExpectError(ParseHfConfig(sparse, "q.json").status(), "q.json: $.decoder_sparse_step", "not modeled");
  std::string dense_middle = qwen2;
  dense_middle.replace(dense_middle.find("\"mlp_only_layers\": []"), 21, "\"mlp_only_layers\": [3]");
  ExpectError(ParseHfConfig(dense_middle, "q.json").status(), "q.json: $.mlp_only_layers", "first blocks");
  std::string top_k = qwen2;
  top_k.replace(top_k.find("\"num_experts_per_tok\": 4"), 24, "\"num_experts_per_tok\": 61");
  ExpectError(ParseHfConfig(top_k, "q.json").status(), "q.json: $.num_experts_per_tok", "more experts");
  // Qwen3-30B-A3B's wide heads (head_dim 128 at hidden 2048, 32 heads): 30.5B parameters, 3.3B activated (its
  // model card; the config's untied embeddings).
  const std::string qwen3 = R"({"model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 48,
    "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 6144,
    "vocab_size": 151936, "max_position_embeddings": 40960, "num_experts": 128, "moe_intermediate_size": 768,
    "num_experts_per_tok": 8, "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";
  const StatusOr<ModelFile> q3 = ParseHfConfig(qwen3, "q3.json");
  ASSERT_TRUE(q3.ok()) << q3.status().message();
  EXPECT_EQ(q3->model.head_dim, 128);
  EXPECT_NEAR(model::TotalParams(q3->model) / 30.5e9, 1.0, 0.01) << model::TotalParams(q3->model);
  EXPECT_NEAR(model::ActiveParams(q3->model) / 3.3e9, 1.0, 0.03) << model::ActiveParams(q3->model);
}

TEST(MoeLoader, GptOssReadsItsBiasesAndAlternatingWindows) {
  std::string types;
  for (int i = 0; i < 36; ++i)
    types += std::string(i ? ", " : "") + (i % 2 ? "\"full_attention\"" : "\"sliding_attention\"");
  const std::string config = R"({"model_type": "gpt_oss", "hidden_size": 2880, "num_hidden_layers": 36,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880,
    "vocab_size": 201088, "max_position_embeddings": 131072, "num_local_experts": 128, "num_experts_per_tok": 4,
    "sliding_window": 128, "attention_bias": true, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "layer_types": [)" + types +
                             "]}";
  const StatusOr<ModelFile> m = ParseHfConfig(config, "oss.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model.sliding_window, 128);
  EXPECT_EQ(m->model.full_attention_interval, 2);
  EXPECT_EQ(m->model.head_dim, 64);
  EXPECT_EQ(m->model.biases, model::BiasKind::kAll);
  // gpt-oss-120b: 116.8B parameters, 5.1B active (OpenAI's model card: "117B", "5.1B"; its active count
  // leaves out the input embedding table, V h = 0.58B, which a token reads one row of).
  EXPECT_NEAR(model::TotalParams(m->model) / 116.8e9, 1.0, 0.005) << model::TotalParams(m->model);
  const double embedding = 201088.0 * 2880;
  EXPECT_NEAR((model::ActiveParams(m->model) - embedding) / 5.13e9, 1.0, 0.01)
      << model::ActiveParams(m->model);
  std::string other = config;
  other.replace(other.find("\"sliding_attention\""), 19, "\"full_attention\"");
  ExpectError(ParseHfConfig(other, "oss.json").status(), "oss.json: $.layer_types", "alternating");
}

TEST(MoeLoader, ModuleRecomputeRefinesNoneOrSelectiveOnly) {
  auto load = [](const std::string& training) {
    std::string s = testing::kScenario;
    const size_t at = s.find("activation_checkpointing = true\n");
    s.replace(at, std::string("activation_checkpointing = true\n").size(), training);
    return LoadScenario(MemoryFileSource(testing::InputFiles(s)), "s.toml");
  };
  const StatusOr<Scenario> ok =
      load("recompute = \"selective\"\nrecompute_layernorm = true\nrecompute_moe_act = true\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(ok->variants[0].zero.recompute_layernorm);
  EXPECT_TRUE(ok->variants[0].zero.recompute_moe_act);
  ExpectError(load("recompute = \"full\"\nrecompute_moe_act = true\n").status(), "s.toml:9",
              "recompute_moe_act: Megatron's module recompute refines recompute = \"none\" or \"selective\"");
}

TEST(MoeLoader, ScenarioExpertKeysLoadAndTheirRulesNameTheKey) {
  const std::string moe_model = std::string(testing::kModel) + "experts = 8\nexperts_per_token = 2\n";
  auto load = [&](const std::string& variants) {
    std::string s = testing::kScenario;
    s = s.substr(0, s.find("[zero]")) + "[zero]\nstrategy = \"zero1\"\n\n" + variants;
    std::map<std::string, std::string> files = testing::InputFiles(s);
    files["m.toml"] = moe_model;
    return LoadScenario(MemoryFileSource(files), "s.toml");
  };
  const StatusOr<Scenario> ok =
      load("[[variant]]\nname = \"ep8\"\nexpert = 8\nexpert_load_imbalance = 1.25\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->variants[0].parallel.expert, 8);
  EXPECT_EQ(ok->variants[0].parallel.expert_load_imbalance, 1.25);
  ExpectError(load("[[variant]]\nname = \"ep3\"\nexpert = 3\n").status(), "s.toml:15",
              "expert: expert parallelism 3 does not divide the model's 8 experts");
  ExpectError(load("[[variant]]\nname = \"rho\"\nexpert_load_imbalance = 0.5\n").status(), "s.toml:15",
              "expert_load_imbalance");
}

}  // namespace
}  // namespace zerosim::io
