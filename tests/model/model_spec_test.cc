#include "model/spec/model_spec.h"

#include <gtest/gtest.h>

#include "model/report/evaluate.h"
#include "model/schedule/module_graph.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

TEST(ModelSpec, Paper18BHas18Point4BillionParameters) {
  const ModelSpec m = testing::Gpt18B();
  const double params = TotalParams(m);
  EXPECT_NEAR(params / 18.4e9, 1.0, 0.01) << "params = " << params;
}

TEST(ModelSpec, LayerParametersAreMegatrons12hSquaredPlus13h) {
  const ModelSpec m = testing::Gpt18B();
  const double h = m.hidden;
  EXPECT_DOUBLE_EQ(ParamsPerLayer(m), 12 * h * h + 13 * h);
}

TEST(ModelSpec, ModuleGraphHoldsExactlyTheCountedParameters) {
  for (bool tied : {true, false}) {
    ModelSpec m = testing::Gpt(3, 512, 8);
    m.tied_embeddings = tied;
    const ModuleGraph g = BuildModuleGraph(m, 2048);
    double sum = 0;
    for (const Param& p : g.params) sum += p.numel();
    EXPECT_DOUBLE_EQ(sum, TotalParams(m)) << "tied=" << tied;
    EXPECT_EQ(g.num_blocks, 3);
    EXPECT_EQ(g.modules.size(), 2u + 3u * 7u + 2u);
  }
}

TEST(ModelSpec, ForwardFlopsPerTokenFollowMegatron) {
  const ModelSpec m = testing::Gpt18B();
  const double h = m.hidden, s = m.seq_len;
  // Megatron: 24 B s h^2 + 4 B s^2 h per layer, i.e. per token 24 h^2 + 4 s h.
  EXPECT_DOUBLE_EQ(ForwardFlopsPerLayer(m, 1.0), 24 * h * h + 4 * s * h);
  EXPECT_DOUBLE_EQ(LogitForwardFlops(m, 1.0), 2 * h * m.vocab);
  // Training without checkpointing: forward + 2x backward.
  const double fwd = m.layers * ForwardFlopsPerLayer(m, 1.0) + LogitForwardFlops(m, 1.0);
  EXPECT_DOUBLE_EQ(TrainingFlops(m, 1.0, false), 3 * fwd);
  // With full recompute the blocks run one more forward; the logit layer does not.
  EXPECT_DOUBLE_EQ(TrainingFlops(m, 1.0, true), 3 * fwd + m.layers * ForwardFlopsPerLayer(m, 1.0));
}

TEST(ModelSpec, PaperTflopsFormulaEqualsTheCountWithRecompute) {
  const ModelSpec m = testing::Gpt18B();
  const double batch = 384;  // sequences
  const double formula = MegatronPaperFlops(m, batch);
  const double counted = TrainingFlops(m, batch * m.seq_len, true);
  EXPECT_NEAR(formula / counted, 1.0, 1e-12);
}

// Llama 3 as NVIDIA's tables run it (scenarios/published/tp_pp/runs.json): GQA, SwiGLU, untied 128,256 vocabulary.
ModelSpec Llama3(int layers, int hidden, int heads, int ffn_hidden) {
  ModelSpec m;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = 8;
  m.ffn_hidden = ffn_hidden;
  m.vocab = 128256;
  m.max_position_embeddings = 8192;
  m.seq_len = 8192;
  m.tied_embeddings = false;
  m.mlp = MlpKind::kSwiglu;
  m.norm = NormKind::kRmsNorm;
  m.positions = PositionKind::kRotary;
  m.biases = BiasKind::kNone;
  return m;
}

TEST(ModelSpec, NvidiaModelFlopsMatchWhatTheirTablesImply) {
  // The published model TFLOP/s over the published tokens/s of the same row (runs.json): NeMo 24.07 Llama3-70B
  // 734e12 / 1524 = 481.6 GFLOP per token (Megatron-LM r0.8's full-square count); Megatron-Bridge 25.09/25.11
  // Llama3-70B 449.0 and Llama3.1-405B 2,521-2,527 (the causal count).
  const ModelSpec l70 = Llama3(80, 8192, 64, 28672);
  const ModelSpec l405 = Llama3(126, 16384, 128, 53248);
  EXPECT_NEAR(MegatronModelFlopsPerToken(l70, false) / 481.6e9, 1.0, 2e-3);
  EXPECT_NEAR(MegatronModelFlopsPerToken(l70, true) / 449.0e9, 1.0, 2e-3);
  EXPECT_NEAR(MegatronModelFlopsPerToken(l405, true) / 2524e9, 1.0, 2e-3);
  // Both below PaLM's count, which adds the embedding table's 6 V h and counts 12 l h s per token.
  EXPECT_LT(MegatronModelFlopsPerToken(l70, false), ModelFlopsPerToken(l70));
}

}  // namespace
}  // namespace zerosim::model
