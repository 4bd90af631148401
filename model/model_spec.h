// ModelSpec: a GPT-style decoder-only transformer as Megatron-LM's GPTModel builds it (pre-LayerNorm
// blocks, learned position embeddings, output layer tied to the word embedding unless stated), with its
// parameter count and FLOPs.
//
// FLOPs follow Megatron's accounting (Narayanan et al., "Efficient Large-Scale Language Model Training
// on GPU Clusters Using Megatron-LM", SC'21, section 5.1 and appendix): a multiply-add counts 2 FLOPs,
// only matrix multiplications are counted, the backward pass costs twice the forward pass, and activation
// checkpointing adds one more forward pass of every transformer block (not of the logit layer).
#pragma once

#include <string>

namespace zerosim::model {

enum class DType { kFp16, kBf16 };

// How the attention core runs (a training setting, `[training] attention`): FlashAttention's fused kernel
// (Dao 2022/2023: no s x s matrix in HBM, causal tiles skipped), or Megatron's unfused path (two batched
// GEMMs around a fused scale-mask-softmax and a dropout, each pass over the b x a x s x s scores in HBM).
enum class AttentionImpl { kFlash, kUnfused };

// Bytes per element of a 16-bit training dtype (2 for both).
double BytesPerElement(DType dtype);
const char* DTypeName(DType dtype);
const char* AttentionImplName(AttentionImpl a);

struct ModelSpec {
  std::string name;
  int layers = 0;                   // transformer blocks (l)
  int hidden = 0;                   // model width (h)
  int heads = 0;                    // attention heads (a); h % a == 0
  int ffn_hidden = 0;               // MLP inner width (f); 4h for GPT-2/GPT-3
  int vocab = 0;                    // vocabulary size (V); 50257 for the GPT-2 tokenizer
  int max_position_embeddings = 0;  // rows of the learned position embedding
  int seq_len = 0;                  // training sequence length (s) <= max_position_embeddings
  bool tied_embeddings = true;      // the logit layer reuses the word embedding (Megatron's default)
  DType dtype = DType::kFp16;       // parameter and activation dtype
  AttentionImpl attention = AttentionImpl::kFlash;  // set by the scenario's [training] attention
  double dropout = 0.1;             // hidden and attention dropout present (> 0: Megatron GPT's 0.1 default)

  bool operator==(const ModelSpec&) const = default;
};

// Parameters of one transformer block: QKV 3h^2+3h, attention output h^2+h, MLP 2hf+f+h, two
// LayerNorms 4h. For f = 4h this is Megatron's 12h^2 + 13h.
double ParamsPerLayer(const ModelSpec& m);

// Word embedding V*h plus position embedding max_pos*h.
double EmbeddingParams(const ModelSpec& m);

// All parameters: l blocks + embeddings + the final LayerNorm (2h) + an untied logit layer (V*h) if any.
double TotalParams(const ModelSpec& m);

// Forward FLOPs of one transformer block for `tokens` = micro-batch sequences * s tokens:
// 2*tokens*(4h^2 + 2hf) for the four weight GEMMs, plus 4*tokens*s*h for QK^T and attention*V.
// For f = 4h: 24*B*s*h^2 + 4*B*s^2*h, Megatron's per-layer count.
double ForwardFlopsPerLayer(const ModelSpec& m, double tokens);

// Forward FLOPs of the logit layer: 2*tokens*h*V.
double LogitForwardFlops(const ModelSpec& m, double tokens);

// FLOPs of one training pass (forward + backward) over `tokens`: 3x forward without activation
// checkpointing; with it, the blocks are computed 4x (one recompute) and the logit layer 3x.
double TrainingFlops(const ModelSpec& m, double tokens, bool activation_checkpointing);

// The throughput formula the ZeRO++ paper and Megatron report (Narayanan et al. eq. 3, with activation
// checkpointing): 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)) FLOPs per iteration for a global batch of B
// sequences. It assumes f = 4h; for such models it equals TrainingFlops(m, B*s, true) exactly.
double MegatronPaperFlops(const ModelSpec& m, double global_batch_sequences);

}  // namespace zerosim::model
