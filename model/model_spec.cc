#include "model/model_spec.h"

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

const char* AttentionImplName(AttentionImpl a) { return a == AttentionImpl::kFlash ? "flash" : "unfused"; }

double ParamsPerLayer(const ModelSpec& m) {
  const double h = m.hidden;
  const double f = m.ffn_hidden;
  const double qkv = 3 * h * h + 3 * h;
  const double attn_out = h * h + h;
  const double mlp = h * f + f + f * h + h;
  const double layernorms = 2 * (2 * h);
  return qkv + attn_out + mlp + layernorms;
}

double EmbeddingParams(const ModelSpec& m) {
  return static_cast<double>(m.vocab) * m.hidden + static_cast<double>(m.max_position_embeddings) * m.hidden;
}

double TotalParams(const ModelSpec& m) {
  const double final_layernorm = 2.0 * m.hidden;
  const double untied_head = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * m.hidden;
  return m.layers * ParamsPerLayer(m) + EmbeddingParams(m) + final_layernorm + untied_head;
}

double ForwardFlopsPerLayer(const ModelSpec& m, double tokens) {
  const double h = m.hidden;
  const double f = m.ffn_hidden;
  const double weight_gemms = 2.0 * tokens * (4 * h * h + 2 * h * f);
  const double attention = 4.0 * tokens * m.seq_len * h;
  return weight_gemms + attention;
}

double LogitForwardFlops(const ModelSpec& m, double tokens) {
  return 2.0 * tokens * m.hidden * static_cast<double>(m.vocab);
}

double TrainingFlops(const ModelSpec& m, double tokens, bool activation_checkpointing) {
  const double block_passes = activation_checkpointing ? 4.0 : 3.0;
  return block_passes * m.layers * ForwardFlopsPerLayer(m, tokens) + 3.0 * LogitForwardFlops(m, tokens);
}

double MegatronPaperFlops(const ModelSpec& m, double global_batch_sequences) {
  const double s = m.seq_len, l = m.layers, h = m.hidden, v = m.vocab;
  return 96.0 * global_batch_sequences * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
}

}  // namespace zerosim::model
