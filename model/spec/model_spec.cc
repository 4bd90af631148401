#include "model/spec/model_spec.h"

#include <algorithm>
#include <array>

#include "model/enum_names.h"

namespace zerosim::model {

double BytesPerElement(DType dtype) {
  switch (dtype) {
    case DType::kFp16:
    case DType::kBf16:
      return 2.0;
  }
  return 2.0;
}

const char* DTypeName(DType dtype) { return dtype == DType::kFp16 ? "fp16" : "bf16"; }

const char* AttentionImplName(AttentionImpl a) {
  constexpr std::array<const char*, 4> kNames = {"flash", "unfused", "flash_v1", "flash2"};
  return NameOf(kNames, a, "flash");
}

const char* MlpKindName(MlpKind k) {
  constexpr std::array<const char*, 3> kNames = {"gelu", "swiglu", "geglu"};
  return NameOf(kNames, k, "gelu");
}

const char* NormKindName(NormKind k) { return k == NormKind::kLayerNorm ? "layernorm" : "rmsnorm"; }

const char* PositionKindName(PositionKind k) {
  constexpr std::array<const char*, 3> kNames = {"learned", "rotary", "alibi"};
  return NameOf(kNames, k, "learned");
}

const char* BiasKindName(BiasKind k) {
  constexpr std::array<const char*, 3> kNames = {"all", "none", "qkv"};
  return NameOf(kNames, k, "all");
}

int KvHeads(const ModelSpec& m) { return m.kv_heads > 0 ? m.kv_heads : m.heads; }

double HeadDim(const ModelSpec& m) {
  return m.head_dim > 0 ? static_cast<double>(m.head_dim) : static_cast<double>(m.hidden) / m.heads;
}

double QueryWidth(const ModelSpec& m) {
  return m.head_dim > 0 ? static_cast<double>(m.heads) * m.head_dim : static_cast<double>(m.hidden);
}

double KvWidth(const ModelSpec& m) { return static_cast<double>(KvHeads(m)) * HeadDim(m); }

int MlpMatrices(const ModelSpec& m) { return m.mlp == MlpKind::kGelu ? 2 : 3; }

double NormParams(const ModelSpec& m) {
  const bool bias = m.norm == NormKind::kLayerNorm && m.biases != BiasKind::kNone;
  return (bias ? 2.0 : 1.0) * m.hidden;
}

bool IsMoe(const ModelSpec& m) { return m.experts > 0; }

bool IsMoeLayer(const ModelSpec& m, int layer) {
  return IsMoe(m) && m.layer_offset + layer >= m.first_dense_layers;
}

double AttentionSpan(const ModelSpec& m, int layer) {
  const int index = m.layer_offset + layer;
  const bool full = m.sliding_window <= 0 ||
                    (m.full_attention_interval > 0 && (index + 1) % m.full_attention_interval == 0);
  return full ? static_cast<double>(m.seq_len) : std::min<double>(m.sliding_window, m.seq_len);
}

int MoeLayers(const ModelSpec& m) {
  int n = 0;
  for (int l = 0; l < m.layers; ++l) n += IsMoeLayer(m, l) ? 1 : 0;
  return n;
}

namespace {

// One MLP of width `f` as MlpKind says: 2 or 3 matrices of h x f, with biases (BiasKind::kAll) f + h (plain)
// or 2f + h (gated).
double MlpParams(const ModelSpec& m, double f) {
  const double h = m.hidden;
  const double mlp_in = MlpMatrices(m) - 1;  // up (and gate) projections
  return mlp_in * h * f + f * h + (m.biases == BiasKind::kAll ? mlp_in * f + h : 0.0);
}

}  // namespace

double MlpWidthOfLayer(const ModelSpec& m, int layer) {
  return IsMoeLayer(m, layer)
             ? static_cast<double>(m.experts_per_token) * m.moe_ffn_hidden + m.shared_expert_ffn
             : static_cast<double>(m.ffn_hidden);
}

double ParamsPerLayer(const ModelSpec& m) {
  const double h = m.hidden;
  const double f = m.ffn_hidden;
  const double kv = KvWidth(m), q = QueryWidth(m);
  const bool qkv_bias = m.biases != BiasKind::kNone;
  const bool other_bias = m.biases == BiasKind::kAll;
  const double qkv = h * (q + 2 * kv) + (qkv_bias ? q + 2 * kv : 0.0);
  const double attn_out = q * h + (other_bias ? h : 0.0);
  return qkv + attn_out + MlpParams(m, f) + 2 * NormParams(m);
}

double MoeMlpParams(const ModelSpec& m, double routed) {
  const double router = static_cast<double>(m.hidden) * m.experts;
  const double shared = m.shared_expert_ffn > 0 ? MlpParams(m, m.shared_expert_ffn) : 0.0;
  return router + routed * MlpParams(m, m.moe_ffn_hidden) + shared;
}

double ParamsOfLayer(const ModelSpec& m, int layer) {
  if (!IsMoeLayer(m, layer)) return ParamsPerLayer(m);
  return ParamsPerLayer(m) - MlpParams(m, m.ffn_hidden) + MoeMlpParams(m, m.experts);
}

double EmbeddingParams(const ModelSpec& m) {
  const double positions =
      m.positions == PositionKind::kLearned ? static_cast<double>(m.max_position_embeddings) * m.hidden : 0.0;
  return static_cast<double>(m.vocab) * m.hidden + positions;
}

double TotalParams(const ModelSpec& m) {
  const bool own_head = m.has_head && (!m.tied_embeddings || !m.has_embedding);
  const double head = own_head ? static_cast<double>(m.vocab) * m.hidden : 0.0;
  const double embedding = m.has_embedding ? EmbeddingParams(m) : 0.0;
  const double final_norm = m.has_head ? NormParams(m) : 0.0;
  double blocks = m.layers * ParamsPerLayer(m);
  if (IsMoe(m)) {
    blocks = 0;
    for (int l = 0; l < m.layers; ++l) blocks += ParamsOfLayer(m, l);
  }
  return blocks + embedding + final_norm + head;
}

double ActiveParams(const ModelSpec& m) {
  const double unused_experts = static_cast<double>(m.experts - m.experts_per_token) * MoeLayers(m);
  return TotalParams(m) - (IsMoe(m) ? unused_experts * MlpParams(m, m.moe_ffn_hidden) : 0.0);
}

double ForwardFlopsPerLayer(const ModelSpec& m, double tokens) {
  const double h = m.hidden;
  const double f = m.ffn_hidden;
  const double q = QueryWidth(m);
  const double weight_gemms = 2.0 * tokens * (2 * h * q + 2 * h * KvWidth(m) + MlpMatrices(m) * h * f);
  const double attention = 4.0 * tokens * m.seq_len * q;
  return weight_gemms + attention;
}

double ForwardFlopsOfLayer(const ModelSpec& m, int layer, double tokens) {
  const double window = 4.0 * tokens * QueryWidth(m) * (AttentionSpan(m, layer) - m.seq_len);  // 0 unwindowed
  if (!IsMoeLayer(m, layer)) return ForwardFlopsPerLayer(m, tokens) + window;
  const double matrices = 2.0 * tokens * MlpMatrices(m) * m.hidden;
  return ForwardFlopsPerLayer(m, tokens) + window + matrices * (MlpWidthOfLayer(m, layer) - m.ffn_hidden);
}

const char* RecomputePolicyName(RecomputePolicy p) {
  constexpr std::array<const char*, 6> kNames = {"none",    "full",         "selective",
                                                 "offload", "selective_op", "selective_block"};
  return NameOf(kNames, p, "none");
}

namespace {
// LossImpl's order.
constexpr std::array<const char*, 3> kLossNames = {"fused", "eager", "compiled"};
}  // namespace

const char* LossImplName(LossImpl l) { return NameOf(kLossNames, l, "fused"); }

std::optional<LossImpl> ParseLossImpl(std::string_view name) { return ValueNamed<LossImpl>(kLossNames, name); }

double RecomputeFlopsPerLayer(const ModelSpec& m, double tokens, RecomputePolicy policy) {
  switch (policy) {
    case RecomputePolicy::kNone:
      return 0.0;
    case RecomputePolicy::kFull:
    case RecomputePolicy::kOffload:
    case RecomputePolicy::kSelectiveBlock:  // per checkpointed block
      return ForwardFlopsPerLayer(m, tokens);
    case RecomputePolicy::kSelective:
      return 4.0 * tokens * m.seq_len * QueryWidth(m);  // QK^T and attention x V
    case RecomputePolicy::kSelectiveOp: {
      const double h = m.hidden, f = m.ffn_hidden, q = QueryWidth(m);
      const double gemms = 2.0 * tokens * (h * KvWidth(m) + h * q + h * f);
      const double core = m.attention == AttentionImpl::kUnfused ? 4.0 * tokens * m.seq_len * q : 0.0;
      return gemms + core;
    }
  }
  return 0.0;
}

double RecomputeFlopsOfLayer(const ModelSpec& m, int layer, double tokens, RecomputePolicy policy) {
  const double dense = RecomputeFlopsPerLayer(m, tokens, policy);
  // The attention core over the block's span (AttentionSpan) where the policy re-runs it.
  const double window = 4.0 * tokens * QueryWidth(m) * (AttentionSpan(m, layer) - m.seq_len);
  switch (policy) {
    case RecomputePolicy::kFull:
    case RecomputePolicy::kOffload:
    case RecomputePolicy::kSelectiveBlock:
      return IsMoeLayer(m, layer) || window != 0 ? ForwardFlopsOfLayer(m, layer, tokens) : dense;
    case RecomputePolicy::kSelective:
      return dense + window;
    case RecomputePolicy::kSelectiveOp: {
      const double core = m.attention == AttentionImpl::kUnfused ? window : 0.0;
      if (!IsMoeLayer(m, layer)) return dense + core;
      // The dense MLP's re-run matrix (2 tokens h f) replaced by the same matrix of the experts a token uses.
      return dense + core + 2.0 * tokens * m.hidden * (MlpWidthOfLayer(m, layer) - m.ffn_hidden);
    }
    case RecomputePolicy::kNone:
      return dense;
  }
  return dense;
}

double LogitForwardFlops(const ModelSpec& m, double tokens) {
  return 2.0 * tokens * m.hidden * static_cast<double>(m.vocab);
}

double TrainingFlops(const ModelSpec& m, double tokens, bool activation_checkpointing) {
  const double block_passes = activation_checkpointing ? 4.0 : 3.0;
  if (!IsMoe(m) && m.sliding_window <= 0) {
    return block_passes * m.layers * ForwardFlopsPerLayer(m, tokens) + 3.0 * LogitForwardFlops(m, tokens);
  }
  double blocks = 0;
  for (int l = 0; l < m.layers; ++l) blocks += ForwardFlopsOfLayer(m, l, tokens);
  return block_passes * blocks + 3.0 * LogitForwardFlops(m, tokens);
}

double MegatronPaperFlops(const ModelSpec& m, double global_batch_sequences) {
  const double s = m.seq_len, l = m.layers, h = m.hidden, v = m.vocab;
  return 96.0 * global_batch_sequences * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
}

}  // namespace zerosim::model
