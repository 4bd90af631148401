// ModelSpec: a decoder-only transformer with its parameter count and FLOPs. The defaults are GPT as
// Megatron-LM's GPTModel builds it (pre-LayerNorm blocks, learned position embeddings, biases on every
// linear layer, a GeLU MLP, multi-head attention, output layer tied to the word embedding); the shape keys
// express the Llama/Mistral/Qwen2 (grouped-query attention, SwiGLU, RMSNorm, rotary positions, untied
// embeddings, no biases or QKV biases only), GPT-NeoX, MPT (ALiBi, no biases) and OPT families.
//
// FLOPs follow Megatron's accounting (Narayanan et al., "Efficient Large-Scale Language Model Training
// on GPU Clusters Using Megatron-LM", SC'21, section 5.1 and appendix): a multiply-add counts 2 FLOPs,
// only matrix multiplications are counted, the backward pass costs twice the forward pass, and activation
// checkpointing adds one more forward pass of every transformer block (not of the logit layer).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace zerosim::model {

enum class DType { kFp16, kBf16 };

// How the attention core runs (a training setting, `[training] attention`): FlashAttention's fused kernel
// (Dao 2022/2023: no s x s matrix in HBM, causal tiles skipped), or Megatron's unfused path (two batched
// GEMMs around a fused scale-mask-softmax and a dropout, each pass over the b x a x s x s scores in HBM).
// kFlashV1: the first FlashAttention algorithm (Dao et al. 2022) or its Triton port (flash_attn_triton.py,
// MosaicGPT's attn_impl "triton" of 2022-23): the same fused, IO-aware kernel and FLOPs as kFlash, at
// FlashAttention v1's lower efficiency (FlashAttention-2, Dao 2023, sec. 1: v1 reaches 25-40% of the A100's
// peak; FlashAttention-2 is 1.3-2.5x faster than the Triton port, sec. 4.1).
// kFlash2: FlashAttention-2 (the flash-attn package, Dao 2023) where the software generation's own fused kernel
// (the calibration's attention_kernel) is another: TransformerEngine's flash-attn backend in place of cuDNN's
// fused attention, as NVTE_FUSED_ATTN=0 selects it (NeMo-Framework-Launcher 24.01-24.07 conf/config.yaml set it:
// "Disable cudnn FA until we've tested it more"). The same FLOPs at the calibration's attention_fa2_*.
enum class AttentionImpl { kFlash, kUnfused, kFlashV1, kFlash2 };

// The MLP: a plain two-matrix MLP with an elementwise activation (GeLU for GPT/NeoX/MPT, ReLU for OPT:
// the same shapes and bytes) or a gated MLP with three matrices (Shazeer 2020, "GLU Variants Improve
// Transformer": act(x W_gate) * (x W_up), then W_down; SwiGLU for Llama/Mistral/Qwen2, GeGLU).
enum class MlpKind { kGelu, kSwiglu, kGeglu };
// LayerNorm (weight, and bias when the model has biases) or RMSNorm (weight only; Zhang & Sennrich 2019).
enum class NormKind { kLayerNorm, kRmsNorm };
// Learned absolute position embeddings (a max_pos x h table), rotary (Su et al. 2021: no parameters, an
// elementwise rotation of q and k) or ALiBi (Press et al. 2022: no parameters, a bias inside attention).
enum class PositionKind { kLearned, kRotary, kAlibi };
// Which linear layers carry a bias: all of them (GPT, NeoX, OPT), none (Llama, Mistral, MPT) or only the
// query/key/value projection (Qwen2). LayerNorm has a bias unless the model has none at all (MPT's
// no_bias); RMSNorm never has one.
enum class BiasKind { kAll, kNone, kQkvOnly };

// Activation recompute (a training setting): none; full (Megatron's full-layer checkpointing: keep each
// block's input, recompute the block in the backward); selective (Korthikanti et al. 2022, "Reducing
// Activation Recomputation in Large Transformer Models", sec. 4.2: keep everything but the attention core's
// s x s tensors and recompute only the core); offload (full, with the kept block inputs in host memory, as
// DeepSpeed's activation_checkpointing.cpu_checkpointing does); selective_op (PyTorch's op-level selective
// activation checkpointing as torchtitan applies it, `ac_mode = "selective"`, `selective_ac_option = "op"`:
// torch.utils.checkpoint's create_selective_checkpoint_contexts with torchtitan's policy, which saves the
// outputs of the matmuls except every second one of a block and the SDPA / flash-attention outputs, and
// recomputes everything else); selective_block (torchtitan's `selective_ac_option = "<n>"`: every n-th block
// fully checkpointed, the others keep everything; ZeroConfig::recompute_block_interval).
enum class RecomputePolicy { kNone, kFull, kSelective, kOffload, kSelectiveOp, kSelectiveBlock };
const char* RecomputePolicyName(RecomputePolicy p);

// How the training computes the cross-entropy loss over the logits (a training setting, `[training] loss`),
// which sets the loss's working memory (model/report/memory.h LossBytesPerLogit):
//   kFused     a fused vocabulary-parallel cross-entropy that softmaxes one fp32 copy of the 16-bit logits in
//              place and reuses it for the gradient (Megatron-LM's _VocabParallelCrossEntropy); the default.
//   kEager     PyTorch's eager `F.cross_entropy(logits.float(), labels)` (log_softmax then nll_loss, each with
//              its own full-size fp32 output and gradient): torchtitan's loss when it is not compiled; with
//              tensor parallelism it runs under DTensor's loss_parallel (torchtitan's default).
//   kCompiled  the same loss under torch.compile: Inductor fuses the cast, the softmax and the gradient into
//              reductions over the 16-bit logits (torchtitan compiles it with training.compile from 2025-04).
enum class LossImpl { kFused, kEager, kCompiled };
const char* LossImplName(LossImpl l);
// The LossImpl spelled `name` ("fused", "eager", "compiled"); nullopt for another spelling.
std::optional<LossImpl> ParseLossImpl(std::string_view name);

// Bytes per element of a 16-bit training dtype (2 for both).
double BytesPerElement(DType dtype);
const char* DTypeName(DType dtype);
const char* AttentionImplName(AttentionImpl a);
const char* MlpKindName(MlpKind k);
const char* NormKindName(NormKind k);
const char* PositionKindName(PositionKind k);
const char* BiasKindName(BiasKind k);

struct ModelSpec {
  std::string name;
  int layers = 0;                   // transformer blocks (l)
  int hidden = 0;                   // model width (h)
  int heads = 0;                    // attention (query) heads (a); h % a == 0
  int kv_heads = 0;                 // key/value heads (GQA/MQA; a % kv == 0); 0 means kv = a (multi-head)
  // Width of one attention head (d); 0: h / a. Set where the heads are wider or narrower than the model
  // (Qwen3: 32 heads of 128 at h = 2048; gpt-oss: 64 of 64 at h = 2880): the query width a d then differs
  // from h.
  int head_dim = 0;
  int ffn_hidden = 0;               // MLP inner width (f); 4h for GPT-2/GPT-3; per matrix for gated MLPs
  int vocab = 0;                    // vocabulary size (V); 50257 for the GPT-2 tokenizer
  int max_position_embeddings = 0;  // rows of the learned position embedding (context limit otherwise)
  int seq_len = 0;                  // training sequence length (s) <= max_position_embeddings
  bool tied_embeddings = true;      // the logit layer reuses the word embedding (Megatron's default)
  DType dtype = DType::kFp16;       // parameter and activation dtype
  AttentionImpl attention = AttentionImpl::kFlash;  // set by the scenario's [training] attention
  double dropout = 0.1;  // hidden and attention dropout present (> 0: Megatron GPT's 0.1 default)
  MlpKind mlp = MlpKind::kGelu;
  NormKind norm = NormKind::kLayerNorm;
  PositionKind positions = PositionKind::kLearned;
  BiasKind biases = BiasKind::kAll;
  // A pipeline stage's slice of the model (model/report/pipeline_evaluate.h StageModel; Megatron-LM's
  // GPTModel(pre_process, post_process)): `layers` are the stage's, the embedding lives only on the first
  // stage and the final norm and logit layer only on the last. A tied logit layer on a last stage without
  // the embedding keeps its own copy of the word embedding (Megatron's shared embedding,
  // LanguageModule.setup_embeddings_and_output_layer). Loaders never set them: a whole model holds both.
  bool has_embedding = true;
  bool has_head = true;

  // Mixture of experts (Shazeer et al. 2017, "Outrageously Large Neural Networks"; Fedus et al. 2022, Switch
  // Transformer; DeepSeek-V3 technical report sec. 2.1.2): the MLP of an MoE block is a router (a linear
  // layer h -> E scoring the experts), E routed experts each an MLP of width moe_ffn_hidden (the model's
  // MlpKind), of which each token uses k (experts_per_token), and shared experts every token passes through
  // (total width shared_expert_ffn). The first `first_dense_layers` blocks keep a dense MLP of width
  // ffn_hidden (DeepSeek-V3's first_k_dense_replace; Megatron-Core's moe_layer_freq list [0]*k + [1]*(l-k)).
  // experts = 0: a dense model. docs/design/moe_cp_sources.md (a), (b) give the sources and the frameworks'
  // key names.
  int experts = 0;            // routed experts per MoE block (E)
  int experts_per_token = 0;  // top-k (k <= E)
  int moe_ffn_hidden = 0;     // one routed expert's MLP width (f_e), per matrix for gated MLPs
  int shared_expert_ffn = 0;  // width of the shared experts together (f_s); 0: none
  int first_dense_layers = 0;
  // Sliding-window attention (Beltagy et al. 2020, Longformer; gpt-oss's alternating "sliding_attention" /
  // "full_attention" layer_types): a windowed block's queries attend to the `sliding_window` positions before
  // them instead of the whole sequence; every `full_attention_interval`-th block (counting from 1) attends
  // fully (gpt-oss: window 128, interval 2: Megatron-Bridge's window_attn_skip_freq = 2). 0: no window.
  int sliding_window = 0;
  int full_attention_interval = 0;  // 0: every block windowed (with a window)
  // A pipeline stage's slice: the model's index of its first block (StageModel sets it), so that the blocks
  // of a slice are dense or MoE (and windowed or not) as the whole model's are. Loaders never set it.
  int layer_offset = 0;

  bool operator==(const ModelSpec&) const = default;
};

// Whether the model has MoE blocks (experts > 0), and whether block `layer` of this spec (its slice's index:
// the model's is layer_offset + layer) is one.
bool IsMoe(const ModelSpec& m);
bool IsMoeLayer(const ModelSpec& m, int layer);
// MoE blocks of this spec (its slice's).
int MoeLayers(const ModelSpec& m);
// The keys block `layer` of this spec attends to per query: min(sliding_window, s) for a windowed block,
// s otherwise.
double AttentionSpan(const ModelSpec& m, int layer);
// The MLP width block `layer` runs per token: k f_e + f_s for an MoE block (the routed experts a token uses
// and the shared ones), f for a dense one.
double MlpWidthOfLayer(const ModelSpec& m, int layer);

// Key/value heads (kv_heads, or heads when 0), one head's width d (head_dim, or h/a when 0), the query width
// a d (h unless head_dim says otherwise) and the key/value width kv d.
int KvHeads(const ModelSpec& m);
double HeadDim(const ModelSpec& m);
double QueryWidth(const ModelSpec& m);
double KvWidth(const ModelSpec& m);
// Weight matrices of the MLP: 2 (plain) or 3 (gated).
int MlpMatrices(const ModelSpec& m);
// Elements of one norm (h, plus h for a LayerNorm bias when the model has biases).
double NormParams(const ModelSpec& m);

// Parameters of one dense transformer block (q_w = QueryWidth, h unless head_dim is set): Q h*q_w, K and V
// 2*h*kv_w (kv_w = KvWidth), attention output q_w*h,
// MLP 2hf or 3hf, two norms; biases as BiasKind says (QKV h + 2kv_w, output h, MLP f + h or 2f + h).
// For GPT (kv = a, f = 4h, plain MLP, LayerNorm, all biases) this is Megatron's 12h^2 + 13h.
double ParamsPerLayer(const ModelSpec& m);

// Parameters of the MLP of one MoE block: the router's E h (Megatron-Core's TopKRouter weight, no bias), E
// routed experts and the shared experts, each an MLP as MlpKind says (2 or 3 matrices of h x width; with
// biases (BiasKind::kAll) f + h, or 2f + h for gated MLPs, per expert). `routed` experts are counted: E for
// the parameters a rank stores, k for those a token uses (active).
double MoeMlpParams(const ModelSpec& m, double routed);

// Parameters of block `layer` of this spec: ParamsPerLayer with, for an MoE block, MoeMlpParams(m, E) in
// place of the dense MLP.
double ParamsOfLayer(const ModelSpec& m, int layer);

// Word embedding V*h plus, for learned positions, the position embedding max_pos*h.
double EmbeddingParams(const ModelSpec& m);

// All parameters: l blocks + embeddings + the final norm + an untied logit layer (V*h) if any. A stage's
// slice (has_embedding, has_head) counts what it holds: the embeddings only with has_embedding; the final
// norm and the logit layer only with has_head, the logit layer's V*h whenever it is untied or the stage has
// no embedding to tie it to.
double TotalParams(const ModelSpec& m);

// The parameters one token uses: TotalParams with k routed experts per MoE block in place of E (the "active"
// count of the MoE papers: DeepSeek-V3 671B total, 37B active). A dense model's is TotalParams.
double ActiveParams(const ModelSpec& m);

// Forward FLOPs of one transformer block for `tokens` = micro-batch sequences * s tokens, Megatron's
// accounting generalized per GEMM: 2*tokens*(2h*q_w + 2h*kv_w) for Q, K, V and the output projection,
// 2*tokens*h*f per MLP matrix (2 plain, 3 gated: the SwiGLU count of the Llama and Chinchilla-style
// 6N accountings), plus 4*tokens*s*q_w for QK^T and attention*V (dense, not causal-halved; GQA shares K/V
// but every query head still multiplies). For GPT with f = 4h: 24*B*s*h^2 + 4*B*s^2*h, Megatron's count.
double ForwardFlopsPerLayer(const ModelSpec& m, double tokens);

// Forward FLOPs of block `layer` of this spec: ForwardFlopsPerLayer for a dense, unwindowed block; a windowed
// block's attention core counts 4*tokens*span*q_w (AttentionSpan: each query multiplies the keys it attends
// to); for an MoE block the
// MLP term is 2*tokens*h*(k*f_e + f_s) per MLP matrix, Megatron-LM's transformer_flops (training.py: the
// routed experts counted top-k times, the shared experts once, the router's GEMM not counted;
// docs/design/moe_cp_sources.md (a)).
double ForwardFlopsOfLayer(const ModelSpec& m, int layer, double tokens);

// Forward FLOPs recomputed per block in the backward under `policy` for `tokens`: the whole block for
// full and offload (and for each checkpointed block of selective_block), the attention core's 4*tokens*s*h
// for selective (Korthikanti sec. 4.2; the schedule re-runs it for unfused attention only: FlashAttention
// recomputes inside its own backward kernel, counted in its backward factor), none for none. selective_op:
// the matmuls torchtitan's policy does not save (the even ones of a block in torchtitan's call order wq, wk,
// wv, wo, w1, w3, w2 - GELU MLPs w1, w2 -: wk 2*tokens*h*kv, wo 2*tokens*h^2, and w3 or the GELU MLP's w2
// 2*tokens*h*f) plus the unfused core (its bmm and softmax are not in the save list; FlashAttention's output
// is). The schedule builder emits the same work (schedule_parts.cc).
double RecomputeFlopsPerLayer(const ModelSpec& m, double tokens, RecomputePolicy policy);
// The same for block `layer` (an MoE block's MLP as ForwardFlopsOfLayer counts it; selective_op re-runs the
// MoE MLP's down projections (w2), which it does not save, as it does a dense MLP's w3).
double RecomputeFlopsOfLayer(const ModelSpec& m, int layer, double tokens, RecomputePolicy policy);

// Forward FLOPs of the logit layer: 2*tokens*h*V.
double LogitForwardFlops(const ModelSpec& m, double tokens);

// FLOPs of one training pass (forward + backward) over `tokens`: 3x forward without activation
// checkpointing; with it, the blocks are computed 4x (one recompute) and the logit layer 3x. Each block
// counted as ForwardFlopsOfLayer counts it.
double TrainingFlops(const ModelSpec& m, double tokens, bool activation_checkpointing);

// The throughput formula the ZeRO++ paper and Megatron report (Narayanan et al. eq. 3, with activation
// checkpointing): 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)) FLOPs per iteration for a global batch of B
// sequences. It assumes f = 4h; for such models it equals TrainingFlops(m, B*s, true) exactly.
double MegatronPaperFlops(const ModelSpec& m, double global_batch_sequences);

}  // namespace zerosim::model
