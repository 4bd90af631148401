// Reading a Hugging Face transformers `config.json` as a model shape (issue 10): `model = "hf:path"` in a
// scenario, and `zerosim run --hf-config`. Families by `model_type`:
//   llama, mistral  hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads (default: the
//                   heads), intermediate_size, vocab_size, max_position_embeddings, tie_word_embeddings
//                   (default false); SwiGLU (hidden_act "silu"; "gelu*" gives GeGLU), RMSNorm, rotary, no
//                   biases (`attention_bias` / `mlp_bias` true is rejected as not modeled). Llama 3.1's
//                   `rope_scaling` changes no shape and is accepted.
//   qwen2           as llama, with the q/k/v biases Qwen2Attention always has.
//   gpt2            n_embd, n_layer, n_head, n_inner (null: 4 n_embd), vocab_size, n_positions; learned
//                   positions, LayerNorm, biases, tied; dropout resid_pdrop.
//   gpt_neox        hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, vocab_size,
//                   max_position_embeddings, tie_word_embeddings (default false); rotary, LayerNorm, biases.
//   mpt             d_model, n_layers, n_heads, expansion_ratio, vocab_size, max_seq_len, no_bias (default
//                   true), attn_config.alibi (default false: learned positions); LayerNorm, tied.
//   opt             hidden_size, num_hidden_layers, num_attention_heads, ffn_dim, vocab_size,
//                   max_position_embeddings (+2 rows: OPT's learned-position offset), word_embed_proj_dim
//                   (must equal hidden_size: OPT-350m's projections are not modeled), tie_word_embeddings
//                   (default true); ReLU MLP (GeLU's shapes), LayerNorm, biases; dropout.
// `torch_dtype` "bfloat16" or "float16" sets the dtype (absent or "float32": bf16, the training dtype).
// Every other key is not read (config.json carries many inference-only keys). Errors name the file and the
// JSON path ("config.json: $.num_key_value_heads: expected an integer, got a string"); an unknown
// model_type lists the supported ones. The scenario's [training] sets seq_len and attention as for TOML.
#pragma once

#include <string>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/status.h"

namespace zerosim::io {

// The scenario key's prefix that names a config.json instead of a model TOML.
inline constexpr const char* kHfModelPrefix = "hf:";

StatusOr<ModelFile> LoadHfConfig(const FileSource& fs, const std::string& path);
// The same from text; `path` is used in messages and provenance.
StatusOr<ModelFile> ParseHfConfig(const std::string& text, const std::string& path);

}  // namespace zerosim::io
