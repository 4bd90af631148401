#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "model/io/loaders.h"
#include "model/io/table_reader.h"

namespace zerosim::io {
namespace {

// Reads an optional enumerated string key: absent gives `fallback`; an unknown value is an error listing
// the accepted ones.
template <typename E, size_t N>
E ReadChoice(TableReader& t, Status& status, std::string_view key, E fallback,
             const std::array<std::pair<const char*, E>, N>& choices) {
  const std::optional<std::string> v = t.OptionalString(key);
  if (!v) return fallback;
  std::string names;
  for (const auto& [name, value] : choices) {
    if (*v == name) return value;
    names += names.empty() ? name : fmt::format(", {}", name);
  }
  if (status.ok()) t.Fail(key, fmt::format("unknown value \"{}\" (supported: {})", *v, names));
  return fallback;
}

// The mixture-of-experts keys (model_spec.h ModelSpec::experts and after): `experts` (E), `experts_per_token`
// (k, 1..E, required with experts), `moe_ffn_hidden` (default ffn_hidden, as Megatron-Core's
// moe_ffn_hidden_size falls back to ffn_hidden_size), `shared_expert_ffn` (default 0) and
// `first_dense_layers` (default 0, below `layers`). The others without `experts` are an error: they would
// describe experts the model does not have.
void ReadMoeKeys(TableReader& root, model::ModelSpec& m) {
  m.experts = static_cast<int>(root.IntOr("experts", 0, 0));
  if (m.experts == 0) {
    for (const char* key :
         {"experts_per_token", "moe_ffn_hidden", "shared_expert_ffn", "first_dense_layers"}) {
      if (root.Has(key))
        root.Fail(key, "needs `experts` (the routed experts of an MoE block; 0 or absent: dense)");
    }
    return;
  }
  m.experts_per_token = static_cast<int>(root.Int("experts_per_token", 1));
  if (m.experts_per_token > m.experts) {
    root.Fail("experts_per_token",
              fmt::format("top-k = {} routes each token to more experts than the {} there are",
                          m.experts_per_token, m.experts));
  }
  m.moe_ffn_hidden = static_cast<int>(root.IntOr("moe_ffn_hidden", m.ffn_hidden, 1));
  m.shared_expert_ffn = static_cast<int>(root.IntOr("shared_expert_ffn", 0, 0));
  m.first_dense_layers = static_cast<int>(root.IntOr("first_dense_layers", 0, 0, std::max(0, m.layers - 1)));
}

}  // namespace

StatusOr<ModelFile> LoadModel(const FileSource& fs, const std::string& path) {
  StatusOr<TomlFile> doc = ReadTomlFile(fs, path);
  if (!doc.ok()) return doc.status();

  Status status;
  ModelFile out;
  out.file = doc->file;
  model::ModelSpec& m = out.model;
  TableReader root(&doc.value().table, path, "", &status);
  m.name = root.String("name");
  out.source = root.String("source");
  m.layers = static_cast<int>(root.Int("layers", 1));
  m.hidden = static_cast<int>(root.Int("hidden", 1));
  m.heads = static_cast<int>(root.Int("heads", 1));
  m.ffn_hidden = static_cast<int>(root.Int("ffn_hidden", 1));
  m.vocab = static_cast<int>(root.Int("vocab", 1));
  m.max_position_embeddings = static_cast<int>(root.Int("max_position_embeddings", 1));
  m.tied_embeddings = root.Bool("tied_embeddings");
  m.dropout = root.NumberOr("dropout", m.dropout, 0.0, 0.99);
  // Architecture keys; each defaults to GPT's (multi-head attention, GeLU MLP, LayerNorm, learned positions,
  // biases everywhere), so GPT files need none of them.
  m.kv_heads = static_cast<int>(root.IntOr("kv_heads", 0, 1));
  m.head_dim = static_cast<int>(root.IntOr("head_dim", 0, 1));
  m.sliding_window = static_cast<int>(root.IntOr("sliding_window", 0, 1));
  m.full_attention_interval = static_cast<int>(root.IntOr("full_attention_interval", 0, 1));
  if (m.sliding_window == 0 && root.Has("full_attention_interval")) {
    root.Fail("full_attention_interval", "needs `sliding_window` (the window the other blocks attend to)");
  }
  using model::MlpKind, model::NormKind, model::PositionKind, model::BiasKind;
  m.mlp = ReadChoice<MlpKind, 3>(
      root, status, "mlp", MlpKind::kGelu,
      {{{"gelu", MlpKind::kGelu}, {"swiglu", MlpKind::kSwiglu}, {"geglu", MlpKind::kGeglu}}});
  m.norm = ReadChoice<NormKind, 2>(root, status, "norm", NormKind::kLayerNorm,
                                   {{{"layernorm", NormKind::kLayerNorm}, {"rmsnorm", NormKind::kRmsNorm}}});
  m.positions = ReadChoice<PositionKind, 3>(root, status, "positions", PositionKind::kLearned,
                                            {{{"learned", PositionKind::kLearned},
                                              {"rotary", PositionKind::kRotary},
                                              {"alibi", PositionKind::kAlibi}}});
  m.biases = ReadChoice<BiasKind, 3>(
      root, status, "biases", BiasKind::kAll,
      {{{"all", BiasKind::kAll}, {"none", BiasKind::kNone}, {"qkv", BiasKind::kQkvOnly}}});
  const std::string dtype = root.String("dtype");
  if (dtype == "fp16") {
    m.dtype = model::DType::kFp16;
  } else if (dtype == "bf16") {
    m.dtype = model::DType::kBf16;
  } else if (status.ok()) {
    root.Fail("dtype", fmt::format("unknown dtype \"{}\" (supported: fp16, bf16)", dtype));
  }
  ReadMoeKeys(root, m);
  if (status.ok() && m.head_dim == 0 && m.hidden % m.heads != 0) {
    root.Fail("heads", fmt::format("hidden size {} is not divisible by {} heads", m.hidden, m.heads));
  }
  if (status.ok() && m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    root.Fail("kv_heads",
              fmt::format("{} query heads are not divisible into {} key/value heads (grouped-query "
                          "attention needs heads % kv_heads == 0)",
                          m.heads, m.kv_heads));
  }
  root.Finish();
  if (!status.ok()) return status;
  return out;
}

}  // namespace zerosim::io
