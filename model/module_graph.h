// ModuleGraph: the leaf modules of Megatron's GPTModel in forward order, each with the parameters
// DeepSpeed's stage-3 hooks gather for it and the FLOPs it computes. This is the granularity at which
// DeepSpeed fetches and releases parameters (one fetch per leaf-module hook), so it is the granularity of
// the schedule.
//
// Per transformer block (Megatron ParallelTransformerLayer):
//   input_layernorm(w h, b h) -> attention.query_key_value(w 3h x h, b 3h) -> attention.core (no params;
//   QK^T and attention x V) -> attention.dense(w h x h, b h) -> post_attention_layernorm(w h, b h) ->
//   mlp.dense_h_to_4h(w f x h, b f) -> mlp.dense_4h_to_h(w h x f, b h)
// Around the blocks: embedding.word_embeddings (V x h), embedding.position_embeddings (max_pos x h),
// final_layernorm, and the logit layer (the word embedding again when tied).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace zerosim::model {

struct Param {
  std::string name;
  int64_t rows = 0;  // elements = rows * max(cols, 1)
  int64_t cols = 0;  // 0 for 1-D tensors (biases, LayerNorm); qgZ reduces those by reduce-scatter
  double numel() const { return static_cast<double>(rows) * static_cast<double>(cols > 0 ? cols : 1); }
  bool is_matrix() const { return cols > 0; }
};

struct Module {
  std::string name;
  int layer = -1;           // transformer block index, -1 outside the blocks
  std::vector<int> params;  // indices into ModuleGraph::params, in ds_id (creation) order
  double forward_flops = 0; // for one micro-batch
};

struct ModuleGraph {
  std::vector<Param> params;    // in creation order (DeepSpeed's ds_id order)
  std::vector<Module> modules;  // forward execution order
  int num_blocks = 0;
  // Indices into `modules` of each block's first module and one past its last.
  std::vector<int> block_begin;
  std::vector<int> block_end;
  int head_module = -1;         // the logit layer
};

// Builds the graph for `m` with `tokens` = micro-batch sequences * seq_len tokens per micro-step.
ModuleGraph BuildModuleGraph(const ModelSpec& m, double tokens);

}  // namespace zerosim::model
