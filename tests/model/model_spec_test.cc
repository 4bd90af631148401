#include "model/spec/model_spec.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace zerosim::model
