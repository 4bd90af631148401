#include "model/schedule/module_graph.h"

#include <fmt/format.h>

namespace zerosim::model {
namespace {

// Activation bytes per element (fp16/bf16 activations).
constexpr double kAct = 2.0;

class GraphBuilder {
 public:
  explicit GraphBuilder(ModuleGraph* g) : g_(g) {}

  int AddParam(std::string name, int64_t rows, int64_t cols) {
    g_->params.push_back(Param{std::move(name), rows, cols});
    return static_cast<int>(g_->params.size()) - 1;
  }

  void MarkExpert(int param) { g_->params[static_cast<size_t>(param)].expert = true; }

  int AddModule(std::string name, int layer, std::vector<int> params, double flops, ModuleWork work) {
    g_->modules.push_back(Module{std::move(name), layer, std::move(params), flops, std::move(work)});
    return static_cast<int>(g_->modules.size()) - 1;
  }

  // A linear layer y = x W^T (+ b) with W of shape out x in: one GEMM [tokens x out] = [tokens x in][in x
  // out] with the bias, if any, in its epilogue (torch addmm), forward FLOPs 2 * tokens * in * out.
  // `epilogue_bytes` and `epilogue_kernels`: the memory-bound kernels that follow it in the same module.
  int AddLinear(const std::string& name, int layer, int64_t in, int64_t out, bool bias, double tokens,
                double epilogue_bytes, int epilogue_kernels) {
    std::vector<int> params{AddParam(name + ".weight", out, in)};
    if (bias) params.push_back(AddParam(name + ".bias", out, 0));
    const Gemm gemm{tokens, static_cast<double>(out), static_cast<double>(in), 1};
    ModuleWork work{{gemm}, {}, epilogue_bytes, 1 + epilogue_kernels};
    return AddModule(name, layer, std::move(params), gemm.flops(), std::move(work));
  }

  // LayerNorm (apex FusedLayerNorm) or RMSNorm (apex FusedRMSNorm), one kernel each: reads x and writes y,
  // tokens x h values each (the fp32 statistics stay in registers). Weight, and a bias if `bias`.
  int AddNorm(const std::string& name, int layer, int64_t h, bool bias, double tokens) {
    std::vector<int> params{AddParam(name + ".weight", h, 0)};
    if (bias) params.push_back(AddParam(name + ".bias", h, 0));
    ModuleWork work;
    work.elementwise_bytes = 2.0 * kAct * tokens * static_cast<double>(h);
    work.kernels = 1;
    return AddModule(name, layer, std::move(params), 0.0,
                     std::move(work));  // not counted by Megatron's formula
  }

 private:
  ModuleGraph* g_;
};

// A row-parallel linear layer (Megatron's RowParallelLinear): W of out x in split by its `in` columns over
// t ranks, one GEMM [tokens x out] = [tokens x in/t][in/t x out] per rank; the bias, if any, is whole on
// every rank and added after the reduction (with the bias-dropout-add that follows, `epilogue_bytes`).
// t = 1: AddLinear's layer.
int AddRowLinear(GraphBuilder* b, const std::string& name, int layer, int64_t in, int64_t out, int64_t t,
                 bool bias, double tokens, double epilogue_bytes) {
  return b->AddLinear(name, layer, in / t, out, bias, tokens, epilogue_bytes, 1);
}

// The MLP of an MoE block on one rank of an expert-parallel group of e = layout.expert ranks, as
// Megatron-Core's MoELayer runs it with the all-to-all token dispatcher
// (megatron/core/transformer/moe/moe_layer.py, router.py, token_dispatcher.py MoEAlltoAllTokenDispatcher;
// docs/design/moe_cp_sources.md (c)); t = 1, or t > 1 with the expert grid folded (ParallelLayout::
// expert_folded: each rank routes its own s/t sequence-parallel share of `sequence_tokens` and runs its E/e
// experts whole; no tensor-parallel collective inside the block). Modules in forward order:
//  - moe.router: the h -> E linear layer (TopKRouter, no bias) on the rank's tokens, then the score function
//    and top-k over tokens x E fp32 scores (read and write them, 8 bytes each) and the routing map;
//    Megatron's FLOP count leaves it out (forward_flops 0), its time is counted;
//  - moe.shared_experts.{dense_h_to_4h,dense_4h_to_h}: the shared experts as one MLP of width f_s on every
//  token
//    (SharedExpertMLP, run before the routed experts without moe_shared_expert_overlap);
//  - moe.experts.dense_h_to_4h: the permutation of the routed rows (read and write T k h values), then the
//    local experts' fc1 as one grouped GEMM (TEGroupedMLP: E/e GEMMs of the rows each expert received) and
//    the activation over them; moe.experts.dense_4h_to_h: fc2 as a grouped GEMM, then the unpermutation that
//    weights and sums each token's k rows (read T k h, write T h) and the residual add. The schedule places
//    the dispatch all-to-all before fc1 and the combine after fc2 (schedule_parts.cc), the unpermutation's
//    pass being counted with fc2 before the combine (its time, not its place).
// Balanced routing sends each rank T k rows (T = `tokens`: e ranks send e T k rows to the e ranks); the
// busiest rank receives rho = expert_load_imbalance times that, which the GEMMs and activations here are
// sized by. The reported FLOPs are Megatron's (2 T k per multiply-add of an expert's matrices, unaffected by
// rho).
void AddMoeMlp(GraphBuilder* b, const ModelSpec& m, const std::string& p, int layer, double sequence_tokens,
               const ParallelLayout& layout, double sequence_bias_dropout_add_bytes) {
  // The routed experts (and the router) run on the rank's s/t sequence-parallel tokens (t = 1, or t > 1
  // folded: CheckMoeModelled), the shared experts on the whole sequence split like the dense MLP.
  const double sp = layout.sequence_parallel ? layout.tensor : 1.0;
  const double tokens = sequence_tokens / sp;
  const double bias_dropout_add_bytes = sequence_bias_dropout_add_bytes / sp;
  const int64_t h = m.hidden, fe = m.moe_ffn_hidden, fs = m.shared_expert_ffn, experts = m.experts;
  const bool gated = m.mlp != MlpKind::kGelu;
  const int64_t up = gated ? 2 : 1;  // fc1's output width per unit of the expert's width (gate and up fused)
  const double th = tokens * static_cast<double>(h);

  ModuleWork router;
  router.gemms.push_back(Gemm{tokens, static_cast<double>(experts), static_cast<double>(h), 1});
  router.elementwise_bytes = 2.0 * 4.0 * tokens * static_cast<double>(experts);
  router.kernels = 4;  // the GEMM, the score function, top-k, the routing map
  b->AddModule(p + "moe.router", layer, {b->AddParam(p + "moe.router.weight", experts, h)}, 0.0,
               std::move(router));

  if (fs > 0) {
    // Megatron-Core's SharedExpertMLP (moe/shared_experts.py) is an MLP with the dense one's tensor-parallel
    // split: a column-parallel fc1 of up fs / t outputs and a row-parallel fc2 of fs / t inputs on the whole
    // sequence (with sequence parallelism fc1 gathers it and fc2 reduce-scatters: the schedule's TP
    // collectives of these modules, schedule_parts.cc); t = 1: whole on every rank, on the rank's tokens.
    const int64_t t = layout.tensor;
    b->AddLinear(p + "moe.shared_experts.dense_h_to_4h", layer, h, up * fs / t, false, sequence_tokens,
                 (gated ? 3.0 : 2.0) * kAct * sequence_tokens * static_cast<double>(fs / t), 1);
    b->AddLinear(p + "moe.shared_experts.dense_4h_to_h", layer, fs / t, h, false, sequence_tokens, 0.0, 0);
  }

  const int64_t local = experts / layout.expert;  // CheckLayout: e divides E
  const double k = m.experts_per_token;
  const double rows = tokens * k * layout.expert_load_imbalance;  // the busiest rank's routed rows
  const double rows_per_expert = rows / static_cast<double>(local);
  const bool bias = m.biases == BiasKind::kAll;
  std::vector<int> fc1{b->AddParam(p + "moe.experts.dense_h_to_4h.weight", local * up * fe, h)};
  if (bias) fc1.push_back(b->AddParam(p + "moe.experts.dense_h_to_4h.bias", local * up * fe, 0));
  for (int i : fc1) b->MarkExpert(i);
  ModuleWork w1;
  w1.gemms.push_back(Gemm{rows_per_expert, static_cast<double>(up * fe), static_cast<double>(h),
                          static_cast<double>(local)});
  // permute (read and write the routed rows), the activation (read up*fe, write fe values per row)
  w1.elementwise_bytes = 2.0 * kAct * rows * static_cast<double>(h) +
                         (gated ? 3.0 : 2.0) * kAct * rows * static_cast<double>(fe);
  w1.kernels = 3;  // permute, grouped GEMM, activation
  b->AddModule(p + "moe.experts.dense_h_to_4h", layer, std::move(fc1),
               2.0 * tokens * k * static_cast<double>(up * fe * h), std::move(w1));

  std::vector<int> fc2{b->AddParam(p + "moe.experts.dense_4h_to_h.weight", local * h, fe)};
  if (bias) fc2.push_back(b->AddParam(p + "moe.experts.dense_4h_to_h.bias", local * h, 0));
  for (int i : fc2) b->MarkExpert(i);
  ModuleWork w2;
  w2.gemms.push_back(
      Gemm{rows_per_expert, static_cast<double>(h), static_cast<double>(fe), static_cast<double>(local)});
  // unpermute (read the k rows of each token and their weights, write the token), the residual add
  w2.elementwise_bytes = kAct * (rows * static_cast<double>(h) + th) + bias_dropout_add_bytes;
  w2.kernels = 3;  // grouped GEMM, unpermute, residual add
  b->AddModule(p + "moe.experts.dense_4h_to_h", layer, std::move(fc2),
               2.0 * tokens * k * static_cast<double>(fe * h), std::move(w2));
}

}  // namespace

ModuleGraph BuildModuleGraph(const ModelSpec& m, double tokens, const ParallelLayout& layout) {
  ModuleGraph g;
  GraphBuilder b(&g);
  const int64_t h = m.hidden, f = m.ffn_hidden, v = m.vocab;
  const int64_t kv = static_cast<int64_t>(KvWidth(m));
  const double th = tokens * static_cast<double>(h);
  // Tensor parallelism (Shoeybi et al. 2019 sec. 3; docs/design/tensor_pipeline.md sec. 1.1, 1.4): t ranks
  // split every column-parallel layer's outputs (QKV by heads, fc1, the vocabulary of the embedding and the
  // logit layer) and every row-parallel layer's inputs (attention.dense, fc2); the attention core runs a/t
  // heads. `tp` divides the work inside the TP regions; `sp` the memory-bound work outside them, which
  // every rank repeats on the whole sequence without sequence parallelism and runs on s/t tokens with it
  // (Korthikanti et al. 2022 sec. 4.2.2). Row-parallel biases and norm weights stay whole (replicated).
  // The vocabulary is padded to a multiple of t (Megatron pads it to 128 t: vocab_utils.py; the model's
  // vocabulary is taken as already padded to 128).
  const int64_t t = layout.tensor;
  const double tp = t;
  const double sp = layout.sequence_parallel ? tp : 1.0;
  const int64_t v_rank = (v + t - 1) / t;
  // Context parallelism (parallel_layout.h `context`): a rank's `tokens` are s/c of each of its sequences.
  const double context = layout.context;
  const double sequences = tokens * context / m.seq_len;
  const bool dropout = m.dropout > 0;
  const bool qkv_bias = m.biases != BiasKind::kNone;
  const bool linear_bias = m.biases == BiasKind::kAll;
  const bool norm_bias = m.norm == NormKind::kLayerNorm && m.biases != BiasKind::kNone;
  const bool gated = m.mlp != MlpKind::kGelu;
  // Megatron's fused bias-dropout-add after the attention and MLP outputs (one kernel): reads the GEMM's
  // output and the residual, writes the sum, and with dropout writes a 1-byte mask: 3 or 3.5 values per
  // element. Without a bias it is the same pass (the residual add cannot be fused into cuBLAS's epilogue).
  const double bias_dropout_add_bytes = th * (3.0 * kAct + (dropout ? 1.0 : 0.0));

  // Embedding lookup: gather rows (read + write t x h). With learned positions, the position add and the
  // embedding dropout run as one fused pass in the position module (read two, write one, plus the mask);
  // without, the embedding dropout (if any) is one more pass on the word embedding's output.
  // With TP each rank looks up its V/t rows for every token (VocabParallelEmbedding: the others are
  // zeroed, then all-reduced or, with SP, reduce-scattered); the dropout after it runs on s/t with SP.
  // Learned position embeddings are replicated (Megatron's LanguageModelEmbedding).
  // A pipeline stage without the embedding (ModelSpec::has_embedding) starts at its first block.
  int word = -1;
  if (m.has_embedding) {
    word = b.AddParam("embedding.word_embeddings.weight", v_rank, h);
    const bool learned = m.positions == PositionKind::kLearned;
    const double embed_dropout_bytes = (!learned && dropout) ? th * (2.0 * kAct + 1.0) / sp : 0.0;
    b.AddModule("embedding.word_embeddings", -1, {word}, 0.0,
                ModuleWork{{}, {}, 2.0 * kAct * th + embed_dropout_bytes, embed_dropout_bytes > 0 ? 2 : 1});
    if (learned) {
      const int pos = b.AddParam("embedding.position_embeddings.weight", m.max_position_embeddings, h);
      b.AddModule("embedding.position_embeddings", -1, {pos}, 0.0,
                  ModuleWork{{}, {}, bias_dropout_add_bytes / sp, 1});
    }
  }

  g.num_blocks = m.layers;
  // a/t query heads per rank (CheckLayout: t divides the heads and the key/value heads).
  // The query width q = a d (h unless the model's head_dim says otherwise: model_spec.h QueryWidth).
  const int64_t q = static_cast<int64_t>(QueryWidth(m));
  const double heads = m.heads / tp, head_dim = HeadDim(m), s = m.seq_len;
  // Rotary embeddings (Megatron / Transformer Engine's fused apply_rotary_pos_emb, one kernel): read and
  // write q (t x h) and k (t x kv) after the QKV GEMM. ALiBi and learned positions add nothing here.
  const double rotary_bytes =
      m.positions == PositionKind::kRotary ? 2.0 * kAct * tokens * static_cast<double>(q + kv) / tp : 0.0;
  for (int l = 0; l < m.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    g.block_begin.push_back(static_cast<int>(g.modules.size()));
    b.AddNorm(p + "input_layernorm", l, h, norm_bias, tokens / sp);
    // Q, K and V fused as Megatron builds them (output h + 2 kv; kv = h for multi-head attention); column
    // parallel: (h + 2 kv) / t outputs per rank, its bias split with them.
    b.AddLinear(p + "attention.query_key_value", l, h, (q + 2 * kv) / t, qkv_bias, tokens, rotary_bytes,
                rotary_bytes > 0 ? 1 : 0);
    // QK^T and softmax(QK^T) V: 2 * tokens * s * h FLOPs each (Megatron's 4*B*s^2*h), counted dense. With
    // grouped-query attention each query head still multiplies its (shared) keys and values: same FLOPs.
    ModuleWork core;
    if (m.attention != AttentionImpl::kUnfused) {
      // FlashAttention reads the kv heads directly (GQA support in flash-attn 2) and applies ALiBi slopes
      // inside the kernel: no extra HBM passes. Version 1 (and its Triton port) does the same work, slower.
      // A windowed block (model_spec.h sliding_window): each query attends to the span before it, a band of s
      // x span (FlashAttention's window_size skips the tiles outside it), no causal triangle to halve.
      // With context parallelism a rank's s/c queries (its two chunks of the load-balanced split) meet all s
      // keys as they come round the ring (schedule_parts.cc), causally masked: 1/c of the whole triangle.
      // With Ulysses' all-to-alls (ContextComm::kAllToAll) a rank attends all s queries of a/(t c) heads
      // instead: the same 1/c of the work.
      const bool ulysses = layout.context_comm == ContextComm::kAllToAll;
      const double span = AttentionSpan(m, l);
      const AttentionKernel kernel = m.attention == AttentionImpl::kFlashV1  ? AttentionKernel::kFlashV1
                                     : m.attention == AttentionImpl::kFlash2 ? AttentionKernel::kFlash2
                                                                             : AttentionKernel::kGeneration;
      core.attention = ulysses
                           ? AttentionWork{sequences * heads / context, s, span, head_dim, span == s, kernel}
                           : AttentionWork{sequences * heads, s / context, span, head_dim, span == s, kernel};
      core.kernels = 1;
    } else {
      // Megatron's CoreAttention: baddbmm Q K^T, fused scale-mask-softmax (read and write the scores),
      // attention dropout (read, write, 1-byte mask), bmm with V. Every pass covers b x a x s x s scores;
      // causal masking saves no work here. ALiBi (MPT's torch path) adds its bias in one more pass over the
      // scores; grouped K/V are first expanded to every query head (HF's repeat_kv: read kv, write h, for K
      // and for V).
      const double scores = sequences * heads * s * s;
      core.gemms.push_back(Gemm{s, s, head_dim, sequences * heads});
      core.gemms.push_back(Gemm{s, head_dim, s, sequences * heads});
      core.elementwise_bytes = scores * (2.0 * kAct + (dropout ? 2.0 * kAct + 1.0 : 0.0));
      core.kernels = dropout ? 4 : 3;
      if (m.positions == PositionKind::kAlibi) {
        core.elementwise_bytes += scores * 2.0 * kAct;
        core.kernels += 1;
      }
      if (kv < q) {
        core.elementwise_bytes += 2.0 * kAct * tokens * static_cast<double>(kv + q) / tp;
        core.kernels += 2;
      }
    }
    b.AddModule(p + "attention.core", l, {}, 4.0 * tokens * AttentionSpan(m, l) * static_cast<double>(q) / tp,
                std::move(core));
    // Row parallel: h/t inputs per rank; the bias is added once, after the all-reduce (replicated), with
    // the bias-dropout-add on s/t tokens with SP.
    AddRowLinear(&b, p + "attention.dense", l, q, h, t, linear_bias, tokens, bias_dropout_add_bytes / sp);
    b.AddNorm(p + "post_attention_layernorm", l, h, norm_bias, tokens / sp);
    if (IsMoeLayer(m, l)) {
      AddMoeMlp(&b, m, p, l, tokens, layout, bias_dropout_add_bytes);
    } else if (gated) {
      // Gate and up projections fused as Megatron's dense_h_to_4h with 2f outputs, then one fused
      // bias-SwiGLU/GeGLU kernel: read 2f, write f values per token.
      // Column parallel: 2f/t outputs per rank.
      b.AddLinear(p + "mlp.dense_h_to_4h", l, h, 2 * f / t, linear_bias, tokens,
                  3.0 * kAct * tokens * static_cast<double>(f) / tp, 1);
    } else {
      // bias + GeLU fused (Megatron's bias_gelu_impl): read and write tokens x f (f/t per rank).
      b.AddLinear(p + "mlp.dense_h_to_4h", l, h, f / t, linear_bias, tokens,
                  2.0 * kAct * tokens * static_cast<double>(f) / tp, 1);
    }
    if (!IsMoeLayer(m, l)) {
      AddRowLinear(&b, p + "mlp.dense_4h_to_h", l, f, h, t, linear_bias, tokens, bias_dropout_add_bytes / sp);
    }
    g.block_end.push_back(static_cast<int>(g.modules.size()));
  }

  // A pipeline stage without the head (ModelSpec::has_head) ends at its last block.
  if (!m.has_head) return g;
  b.AddNorm("final_layernorm", -1, h, norm_bias, tokens / sp);
  // The logit GEMM [tokens x V] = [tokens x h][h x V], then the cross-entropy in fp32 (Megatron's
  // vocab_parallel_cross_entropy: cast, max, subtract and exponentiate, sum, gather the target): about five
  // passes over tokens x V values, 2 + 4 + 4 + 4 + 4 bytes each. With TP the logit layer is column
  // parallel over the vocabulary and its output stays split: V/t logits per rank (cross_entropy.py).
  ModuleWork head;
  head.gemms.push_back(Gemm{tokens, static_cast<double>(v_rank), static_cast<double>(h), 1});
  head.elementwise_bytes = 18.0 * tokens * static_cast<double>(v_rank);
  head.kernels = 6;
  const double logit_flops = LogitForwardFlops(m, tokens) / tp;
  if (m.tied_embeddings && word >= 0) {
    g.head_module = b.AddModule("output_layer(tied)", -1, {word}, logit_flops, std::move(head));
  } else if (m.tied_embeddings) {
    // The last stage's copy of the word embedding (Megatron's shared embedding: megatron/core/models/common/
    // language_module/language_module.py setup_embeddings_and_output_layer; its gradient all-reduce with the
    // first stage's is not timed).
    const int copy = b.AddParam("output_layer.weight(shared embedding copy)", v_rank, h);
    g.head_module = b.AddModule("output_layer(tied)", -1, {copy}, logit_flops, std::move(head));
  } else {
    const int out = b.AddParam("output_layer.weight", v_rank, h);
    g.head_module = b.AddModule("output_layer", -1, {out}, logit_flops, std::move(head));
  }
  return g;
}

std::vector<bool> Fp8Params(const ModuleGraph& g) {
  std::vector<bool> fp8(g.params.size(), false);
  for (const Module& mod : g.modules) {
    if (mod.layer < 0 || mod.name.ends_with("moe.router")) continue;
    for (int p : mod.params) {
      if (g.params[static_cast<size_t>(p)].is_matrix()) fp8[static_cast<size_t>(p)] = true;
    }
  }
  return fp8;
}

void ApplyFp8Gemms(const Precision& p, ModuleGraph* g) {
  if (!p.fp8_gemms) return;
  const std::vector<bool> fp8 = Fp8Params(*g);
  for (Module& mod : g->modules) {
    bool linear = false;
    for (int q : mod.params) linear = linear || fp8[static_cast<size_t>(q)];
    if (!linear) continue;  // norms, embeddings, the logit layer and the attention core stay 16-bit
    for (Gemm& gemm : mod.work.gemms) {
      gemm.fp8 = true;
      gemm.fp8_weight_gathered = p.fp8_weight_all_gather;
    }
  }
}

double Fp8ForwardCastBytes(const Gemm& g) {
  if (!g.fp8) return 0;
  const double weight = g.fp8_weight_gathered ? 0.0 : g.n * g.k;
  return kFp8CastBytes * (g.m * g.k + weight) * g.batch;
}

double Fp8BackwardCastBytes(const Gemm& g) {
  if (!g.fp8) return 0;
  const double weight = g.fp8_weight_gathered ? 0.0 : g.n * g.k;
  const double input_gradient = g.m * g.n + weight;
  const double weight_gradient = g.m * g.n + g.m * g.k;
  return kFp8CastBytes * (input_gradient + weight_gradient) * g.batch;
}

}  // namespace zerosim::model
