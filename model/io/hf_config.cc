#include "model/io/hf_config.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace zerosim::io {
namespace {

using nlohmann::json;

const char* TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::number_float:
      return "a float";
    default:
      return "an integer";
  }
}

// Reads typed fields of one JSON object, keeping the first error (file and JSON path) in `status`.
class JsonReader {
 public:
  JsonReader(const json* obj, std::string file, std::string path, Status* status)
      : obj_(obj), file_(std::move(file)), path_(std::move(path)), status_(status) {}

  const json* Find(const std::string& key) const {
    if (obj_ == nullptr || !obj_->is_object()) return nullptr;
    const auto it = obj_->find(key);
    return it == obj_->end() ? nullptr : &*it;
  }

  void Fail(const std::string& key, const std::string& message) {
    if (status_->ok()) *status_ = Status::Error(fmt::format("{}: {}.{}: {}", file_, path_, key, message));
  }

  // A positive integer (a float holding a whole number is accepted, as JSON writers emit 4.0).
  int PositiveInt(const std::string& key) {
    const json* v = Find(key);
    if (v == nullptr) {
      Fail(key, "missing (needed for this model_type)");
      return 1;
    }
    return CheckInt(key, *v);
  }

  int PositiveIntOr(const std::string& key, int fallback) {
    const json* v = Find(key);
    return v == nullptr || v->is_null() ? fallback : CheckInt(key, *v);
  }

  bool BoolOr(const std::string& key, bool fallback) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_boolean()) {
      Fail(key, fmt::format("expected a boolean, got {}", TypeName(*v)));
      return fallback;
    }
    return v->get<bool>();
  }

  double ProbabilityOr(const std::string& key, double fallback) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_number() || v->get<double>() < 0 || v->get<double>() >= 1) {
      Fail(key, fmt::format("expected a probability in [0, 1), got {}", v->dump()));
      return fallback;
    }
    return v->get<double>();
  }

  std::string StringOr(const std::string& key, const std::string& fallback) {
    const json* v = Find(key);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_string()) {
      Fail(key, fmt::format("expected a string, got {}", TypeName(*v)));
      return fallback;
    }
    return v->get<std::string>();
  }

  // `value` (computed in 64 bits from the file's integers) as an int; an error at `key` when it is above
  // INT_MAX (the model's dimensions are ints), naming how it was computed.
  int Fits(const std::string& key, int64_t value, const std::string& how) {
    if (value <= std::numeric_limits<int>::max()) return static_cast<int>(value);
    Fail(key, fmt::format("{} = {} is above {}, the largest dimension ZeroSim models", how, value,
                          std::numeric_limits<int>::max()));
    return 1;
  }

  JsonReader Object(const std::string& key) {
    const json* v = Find(key);
    if (v != nullptr && !v->is_null() && !v->is_object()) {
      Fail(key, fmt::format("expected an object, got {}", TypeName(*v)));
      v = nullptr;
    }
    return JsonReader(v != nullptr && v->is_object() ? v : nullptr, file_, path_ + "." + key, status_);
  }

 private:
  int CheckInt(const std::string& key, const json& v) {
    if (v.is_number_integer() || (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()))) {
      // A 30-digit integer is a float to the JSON parser: out of range, not "a float".
      const double x = v.get<double>();
      if (x >= 1 && x <= 2147483647.0) return static_cast<int>(x);
      Fail(key, fmt::format("{}expected a positive integer up to 2147483647, got {}",
                            x >= 1 ? "out of range: " : "", v.dump()));
      return 1;
    }
    Fail(key, fmt::format("expected an integer, got {}", TypeName(v)));
    return 1;
  }

  const json* obj_;
  std::string file_;
  std::string path_;
  Status* status_;
};

using model::BiasKind, model::MlpKind, model::NormKind, model::PositionKind;

void ReadLlamaLike(JsonReader& r, const std::string& type, model::ModelSpec* m) {
  m->hidden = r.PositiveInt("hidden_size");
  m->layers = r.PositiveInt("num_hidden_layers");
  m->heads = r.PositiveInt("num_attention_heads");
  m->kv_heads = r.PositiveIntOr("num_key_value_heads", m->heads);
  m->ffn_hidden = r.PositiveInt("intermediate_size");
  m->vocab = r.PositiveInt("vocab_size");
  m->max_position_embeddings = r.PositiveInt("max_position_embeddings");
  m->tied_embeddings = r.BoolOr("tie_word_embeddings", false);
  const std::string act = r.StringOr("hidden_act", "silu");
  if (act == "silu" || act == "swish") {
    m->mlp = MlpKind::kSwiglu;
  } else if (act.rfind("gelu", 0) == 0) {
    m->mlp = MlpKind::kGeglu;
  } else {
    r.Fail("hidden_act", fmt::format("\"{}\" is not modeled (silu: SwiGLU, gelu*: GeGLU)", act));
  }
  m->norm = NormKind::kRmsNorm;
  m->positions = PositionKind::kRotary;
  m->biases = type == "qwen2" || type == "qwen2_moe" ? BiasKind::kQkvOnly : BiasKind::kNone;
  // Heads wider or narrower than hidden_size / num_attention_heads (Qwen3's head_dim 128 at hidden 2048 or
  // 4096): ModelSpec::head_dim; left at 0 (h / a) where it equals that.
  const int head_dim = r.PositiveIntOr("head_dim", 0);
  if (head_dim > 0 && head_dim * int64_t{m->heads} != m->hidden) m->head_dim = head_dim;
  if (type != "gpt_oss" && r.BoolOr("attention_bias", false)) {
    r.Fail("attention_bias", "true is not modeled (q/k/v/o biases)");
  }
  if (r.BoolOr("mlp_bias", false)) r.Fail("mlp_bias", "true is not modeled");
  m->dropout = r.ProbabilityOr("attention_dropout", 0.0);
}

// The mixture-of-experts keys of the Mixtral, Qwen2-MoE and Qwen3-MoE configs (transformers'
// configuration_mixtral.py, configuration_qwen2_moe.py, configuration_qwen3_moe.py;
// docs/design/moe_cp_sources.md (b)) on top of the Llama-like keys. Mixtral: every block MoE,
// num_local_experts experts of intermediate_size. Qwen: num_experts of moe_intermediate_size, Qwen2-MoE's one
// shared expert of shared_expert_intermediate_size; blocks listed in mlp_only_layers or off the
// decoder_sparse_step stride stay dense, which ZeroSim expresses only as dense blocks first
// (ModelSpec::first_dense_layers): other patterns are refused.
void ReadMoe(JsonReader& r, const std::string& type, model::ModelSpec* m) {
  if (type == "mixtral") {
    m->experts = r.PositiveInt("num_local_experts");
    m->moe_ffn_hidden = m->ffn_hidden;
  } else {
    m->experts = r.PositiveInt("num_experts");
    m->moe_ffn_hidden = r.PositiveInt("moe_intermediate_size");
    if (type == "qwen2_moe") m->shared_expert_ffn = r.PositiveIntOr("shared_expert_intermediate_size", 0);
    if (r.PositiveIntOr("decoder_sparse_step", 1) != 1) {
      r.Fail("decoder_sparse_step",
             "MoE blocks every n > 1 blocks are not modeled (only dense blocks first)");
    }
    const json* dense = r.Find("mlp_only_layers");
    if (dense != nullptr && !dense->is_null()) {
      // Accept 0, 1, ..., k-1 (the first k blocks dense); refuse any other list.
      bool prefix = dense->is_array();
      for (size_t i = 0; prefix && i < dense->size(); ++i) {
        prefix = (*dense)[i].is_number_integer() && (*dense)[i].get<int64_t>() == static_cast<int64_t>(i);
      }
      if (!prefix) {
        r.Fail("mlp_only_layers",
               "only the first blocks [0, 1, ..., k-1] may be dense in ZeroSim's MoE model");
      } else {
        m->first_dense_layers = static_cast<int>(dense->size());
      }
    }
  }
  m->experts_per_token = r.PositiveInt("num_experts_per_tok");
  if (m->experts_per_token > m->experts) {
    r.Fail("num_experts_per_tok",
           fmt::format("top-k = {} routes each token to more experts than the {} there are",
                       m->experts_per_token, m->experts));
  }
  if (m->first_dense_layers >= m->layers) {
    r.Fail("mlp_only_layers", fmt::format("all {} blocks are dense: not an MoE model", m->layers));
  }
}

// gpt-oss (transformers configuration_gpt_oss.py; docs/design/moe_cp_sources.md (b)): the Llama-like keys
// with biases on the attention projections and the experts (attention_bias, the experts' gate_up_proj_bias
// and down_proj_bias: BiasKind::kAll, RMSNorm without bias), every block MoE (num_local_experts of
// intermediate_size, num_experts_per_tok), and layer_types alternating "sliding_attention" (window
// sliding_window) and "full_attention" from the first block, which ZeroSim expresses as
// full_attention_interval 2; another pattern is refused. Not modeled (their cost is negligible or not in the
// FLOP counts): the attention sinks (one logit per head), the router's bias, the SwiGLU clamp.
void ReadGptOss(JsonReader& r, model::ModelSpec* m) {
  ReadLlamaLike(r, "gpt_oss", m);
  m->biases = BiasKind::kAll;
  m->experts = r.PositiveInt("num_local_experts");
  m->moe_ffn_hidden = m->ffn_hidden;
  m->experts_per_token = r.PositiveInt("num_experts_per_tok");
  if (m->experts_per_token > m->experts) {
    r.Fail("num_experts_per_tok",
           fmt::format("top-k = {} routes each token to more experts than the {} there are",
                       m->experts_per_token, m->experts));
  }
  m->sliding_window = r.PositiveIntOr("sliding_window", 0);
  const json* types = r.Find("layer_types");
  if (m->sliding_window > 0 && types != nullptr && types->is_array()) {
    bool alternating = types->size() == static_cast<size_t>(m->layers);
    for (size_t i = 0; alternating && i < types->size(); ++i) {
      const char* expected = i % 2 == 0 ? "sliding_attention" : "full_attention";
      alternating = (*types)[i].is_string() && (*types)[i].get<std::string>() == expected;
    }
    if (!alternating) {
      r.Fail("layer_types", "only sliding and full attention alternating from the first block is modeled");
    }
    m->full_attention_interval = 2;
  }
}

void ReadGpt2(JsonReader& r, model::ModelSpec* m) {
  m->hidden = r.PositiveInt("n_embd");
  m->layers = r.PositiveInt("n_layer");
  m->heads = r.PositiveInt("n_head");
  m->ffn_hidden = r.Find("n_inner") == nullptr || r.Find("n_inner")->is_null()
                      ? r.Fits("n_inner", int64_t{4} * m->hidden, "its default 4 * n_embd")
                      : r.PositiveInt("n_inner");
  m->vocab = r.PositiveInt("vocab_size");
  m->max_position_embeddings = r.PositiveInt("n_positions");
  m->tied_embeddings = r.BoolOr("tie_word_embeddings", true);
  m->dropout = r.ProbabilityOr("resid_pdrop", 0.1);
}

void ReadNeox(JsonReader& r, model::ModelSpec* m) {
  m->hidden = r.PositiveInt("hidden_size");
  m->layers = r.PositiveInt("num_hidden_layers");
  m->heads = r.PositiveInt("num_attention_heads");
  m->ffn_hidden = r.PositiveInt("intermediate_size");
  m->vocab = r.PositiveInt("vocab_size");
  m->max_position_embeddings = r.PositiveInt("max_position_embeddings");
  m->tied_embeddings = r.BoolOr("tie_word_embeddings", false);
  m->positions = PositionKind::kRotary;
  m->dropout = r.ProbabilityOr("hidden_dropout", 0.0);
}

void ReadMpt(JsonReader& r, model::ModelSpec* m) {
  m->hidden = r.PositiveInt("d_model");
  m->layers = r.PositiveInt("n_layers");
  m->heads = r.PositiveInt("n_heads");
  m->ffn_hidden = r.Fits("expansion_ratio", int64_t{r.PositiveInt("expansion_ratio")} * m->hidden,
                         "expansion_ratio * d_model");
  m->vocab = r.PositiveInt("vocab_size");
  m->max_position_embeddings = r.PositiveInt("max_seq_len");
  m->tied_embeddings = true;  // MPT's lm head is the word embedding (llm-foundry's MPTForCausalLM)
  m->biases = r.BoolOr("no_bias", true) ? BiasKind::kNone : BiasKind::kAll;
  JsonReader attn = r.Object("attn_config");
  m->positions = attn.BoolOr("alibi", false) ? PositionKind::kAlibi : PositionKind::kLearned;
  m->dropout = r.ProbabilityOr("resid_pdrop", 0.0);
}

void ReadOpt(JsonReader& r, model::ModelSpec* m) {
  m->hidden = r.PositiveInt("hidden_size");
  m->layers = r.PositiveInt("num_hidden_layers");
  m->heads = r.PositiveInt("num_attention_heads");
  m->ffn_hidden = r.PositiveInt("ffn_dim");
  m->vocab = r.PositiveInt("vocab_size");
  // OPTLearnedPositionalEmbedding keeps 2 extra rows (its offset).
  m->max_position_embeddings =
      r.Fits("max_position_embeddings", int64_t{r.PositiveInt("max_position_embeddings")} + 2,
             "max_position_embeddings + 2 (OPT's offset rows)");
  m->tied_embeddings = r.BoolOr("tie_word_embeddings", true);
  const int proj = r.PositiveIntOr("word_embed_proj_dim", m->hidden);
  if (proj != m->hidden) {
    r.Fail("word_embed_proj_dim",
           fmt::format("{} != hidden_size {}: OPT's embedding projections are not modeled", proj, m->hidden));
  }
  if (!r.BoolOr("do_layer_norm_before", true))
    r.Fail("do_layer_norm_before", "post-LayerNorm OPT is not modeled");
  m->dropout = r.ProbabilityOr("dropout", 0.1);
}

}  // namespace

StatusOr<ModelFile> ParseHfConfig(const std::string& text, const std::string& path) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Error(fmt::format("{}: not valid JSON", path));
  if (!doc.is_object())
    return Status::Error(fmt::format("{}: $: expected an object, got {}", path, TypeName(doc)));
  Status status;
  JsonReader r(&doc, path, "$", &status);
  const json* type_node = r.Find("model_type");
  if (type_node == nullptr || !type_node->is_string()) {
    return Status::Error(fmt::format("{}: $.model_type: {}", path,
                                     type_node == nullptr
                                         ? std::string("missing")
                                         : fmt::format("expected a string, got {}", TypeName(*type_node))));
  }
  const std::string type = type_node->get<std::string>();
  ModelFile out;
  model::ModelSpec& m = out.model;
  if (type == "llama" || type == "mistral" || type == "qwen2") {
    ReadLlamaLike(r, type, &m);
  } else if (type == "mixtral" || type == "qwen2_moe" || type == "qwen3_moe") {
    ReadLlamaLike(r, type, &m);
    ReadMoe(r, type, &m);
  } else if (type == "gpt_oss") {
    ReadGptOss(r, &m);
  } else if (type == "gpt2") {
    ReadGpt2(r, &m);
  } else if (type == "gpt_neox") {
    ReadNeox(r, &m);
  } else if (type == "mpt") {
    ReadMpt(r, &m);
  } else if (type == "opt") {
    ReadOpt(r, &m);
  } else {
    return Status::Error(
        fmt::format("{}: $.model_type: \"{}\" is not supported (supported: llama, mistral, qwen2, "
                    "mixtral, qwen2_moe, qwen3_moe, gpt_oss, gpt2, gpt_neox, mpt, opt)",
                    path, type));
  }
  // The checkpoint's dtype is the training's 16-bit format; anything else was taken for bf16 silently.
  const std::string dtype = r.StringOr("torch_dtype", "bfloat16");
  m.dtype = dtype == "float16" ? model::DType::kFp16 : model::DType::kBf16;
  if (dtype != "float16" && dtype != "bfloat16") {
    r.Fail("torch_dtype", fmt::format("\"{}\" is not modeled: ZeroSim trains in bf16 or fp16 mixed precision "
                                      "(give \"bfloat16\" or \"float16\")",
                                      dtype));
  }
  if (status.ok() && m.head_dim == 0 && m.hidden % m.heads != 0) {
    r.Fail("num_attention_heads",
           fmt::format("hidden size {} is not divisible by {} heads", m.hidden, m.heads));
  }
  if (status.ok() && m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    r.Fail("num_key_value_heads",
           fmt::format("{} heads are not divisible into {} key/value heads", m.heads, m.kv_heads));
  }
  if (!status.ok()) return status;
  const json* name = r.Find("_name_or_path");
  m.name = name != nullptr && name->is_string() && !name->get<std::string>().empty()
               ? name->get<std::string>()
               : path;
  out.source = fmt::format("Hugging Face config.json (model_type {}): {}", type, path);
  out.file = {path, HashBytes(text)};
  return out;
}

StatusOr<ModelFile> LoadHfConfig(const FileSource& fs, const std::string& path) {
  StatusOr<std::string> text = fs.Read(path);
  if (!text.ok()) return text.status();
  return ParseHfConfig(*text, path);
}

}  // namespace zerosim::io
