#include "model/module_graph.h"

#include <fmt/format.h>

namespace zerosim::model {
namespace {

class GraphBuilder {
 public:
  explicit GraphBuilder(ModuleGraph* g) : g_(g) {}

  int AddParam(std::string name, int64_t rows, int64_t cols) {
    g_->params.push_back(Param{std::move(name), rows, cols});
    return static_cast<int>(g_->params.size()) - 1;
  }

  int AddModule(std::string name, int layer, std::vector<int> params, double flops) {
    g_->modules.push_back(Module{std::move(name), layer, std::move(params), flops});
    return static_cast<int>(g_->modules.size()) - 1;
  }

  // A linear layer y = x W^T + b with W of shape out x in; forward FLOPs 2 * tokens * in * out.
  int AddLinear(const std::string& name, int layer, int64_t in, int64_t out, double tokens) {
    const int w = AddParam(name + ".weight", out, in);
    const int b = AddParam(name + ".bias", out, 0);
    return AddModule(name, layer, {w, b}, 2.0 * tokens * static_cast<double>(in) * static_cast<double>(out));
  }

  int AddLayerNorm(const std::string& name, int layer, int64_t h) {
    const int w = AddParam(name + ".weight", h, 0);
    const int b = AddParam(name + ".bias", h, 0);
    return AddModule(name, layer, {w, b}, 0.0);  // elementwise: not counted by Megatron's formula
  }

 private:
  ModuleGraph* g_;
};

}  // namespace

ModuleGraph BuildModuleGraph(const ModelSpec& m, double tokens) {
  ModuleGraph g;
  GraphBuilder b(&g);
  const int64_t h = m.hidden, f = m.ffn_hidden, v = m.vocab;

  const int word = b.AddParam("embedding.word_embeddings.weight", v, h);
  b.AddModule("embedding.word_embeddings", -1, {word}, 0.0);
  const int pos = b.AddParam("embedding.position_embeddings.weight", m.max_position_embeddings, h);
  b.AddModule("embedding.position_embeddings", -1, {pos}, 0.0);

  g.num_blocks = m.layers;
  for (int l = 0; l < m.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    g.block_begin.push_back(static_cast<int>(g.modules.size()));
    b.AddLayerNorm(p + "input_layernorm", l, h);
    b.AddLinear(p + "attention.query_key_value", l, h, 3 * h, tokens);
    // QK^T and softmax(QK^T) V: 2 * tokens * s * h FLOPs each (Megatron's 4*B*s^2*h).
    b.AddModule(p + "attention.core", l, {}, 4.0 * tokens * m.seq_len * static_cast<double>(h));
    b.AddLinear(p + "attention.dense", l, h, h, tokens);
    b.AddLayerNorm(p + "post_attention_layernorm", l, h);
    b.AddLinear(p + "mlp.dense_h_to_4h", l, h, f, tokens);
    b.AddLinear(p + "mlp.dense_4h_to_h", l, f, h, tokens);
    g.block_end.push_back(static_cast<int>(g.modules.size()));
  }

  b.AddLayerNorm("final_layernorm", -1, h);
  const double logit_flops = LogitForwardFlops(m, tokens);
  if (m.tied_embeddings) {
    g.head_module = b.AddModule("output_layer(tied)", -1, {word}, logit_flops);
  } else {
    const int head = b.AddParam("output_layer.weight", v, h);
    g.head_module = b.AddModule("output_layer", -1, {head}, logit_flops);
  }
  return g;
}

}  // namespace zerosim::model
