// ModuleGraph: the leaf modules of Megatron's GPTModel in forward order, each with the parameters
// DeepSpeed's stage-3 hooks gather for it and the FLOPs it computes. This is the granularity at which
// DeepSpeed fetches and releases parameters (one fetch per leaf-module hook), so it is the granularity of
// the schedule.
//
// Per transformer block (Megatron ParallelTransformerLayer):
//   input_layernorm(w h, b h) -> attention.query_key_value(w (h + 2kv) x h, b h + 2kv) -> attention.core
//   (no params; QK^T and attention x V) -> attention.dense(w h x h, b h) -> post_attention_layernorm(w h,
//   b h) -> mlp.dense_h_to_4h(w f x h, b f; gated MLPs: gate and up fused, w 2f x h, b 2f) ->
//   mlp.dense_4h_to_h(w h x f, b h)
// kv = kv_heads * h / heads (h for multi-head attention). Biases and norm biases exist as the model's
// BiasKind and NormKind say (Llama: none; Qwen2: the QKV bias only); the module sequence is the same for
// every architecture, so the schedule builders see 7 modules per dense block. An MoE block (model_spec.h
// IsMoeLayer) replaces the two MLP modules with moe.router, the shared experts' two (when it has them) and
// the routed experts' moe.experts.dense_h_to_4h and moe.experts.dense_4h_to_h (module_graph.cc AddMoeMlp).
// Around the blocks: embedding.word_embeddings (V x h), embedding.position_embeddings (max_pos x h, learned
// positions only), final_layernorm, and the logit layer (the word embedding again when tied).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/precision.h"

namespace zerosim::model {

struct Param {
  std::string name;
  int64_t rows = 0;  // elements = rows * max(cols, 1)
  int64_t cols = 0;  // 0 for 1-D tensors (biases, LayerNorm); qgZ reduces those by reduce-scatter
  // requires_grad = False (LoRA's frozen base weights, model/builders/rlhf_schedule.h): no gradient, and
  // DeepSpeed keeps its hpZ secondary partition for good (partitioned_param_coordinator.py
  // __all_gather_params_: "they are not trainable so their secondary tensor never expire"), so every gather
  // of it, forward included, is intra-node.
  bool frozen = false;
  // A routed expert's weight or bias (module_graph.cc AddMoeMlp): with expert parallelism its gradient and
  // states live in the expert-data-parallel group (Schedule::expert_elements, gradient_reducer.h).
  bool expert = false;
  double numel() const { return static_cast<double>(rows) * static_cast<double>(cols > 0 ? cols : 1); }
  bool is_matrix() const { return cols > 0; }
};

// One forward GEMM of a module, as the kernel sees it: out[m x n] = in[m x k] * W^T for a linear layer
// (m = tokens of the micro-batch, n = output features, k = input features), `batch` independent copies.
// Its backward is two GEMMs of the same FLOPs (op_cost.h): the input gradient [m x k] = [m x n][n x k]
// and the weight gradient [n x k] = [n x m][m x k] (the reduction runs over the tokens).
struct Gemm {
  double m = 0;
  double n = 0;
  double k = 0;
  double batch = 1;
  // FP8 GEMMs (model/spec/precision.h ApplyFp8Gemms): operands in FP8 at the GPU's FP8 peak, plus their
  // casts; fp8_weight_gathered: the weight arrived in FP8 from the all-gather (no weight cast).
  bool fp8 = false;
  bool fp8_weight_gathered = false;
  double flops() const { return 2.0 * m * n * k * batch; }
  bool operator==(const Gemm&) const = default;
};

// The attention core, softmax(Q K^T / sqrt(d)) V, as FlashAttention computes it (Dao 2022/2023): one fused
// kernel that never writes the s x s score matrix to HBM. `seq_q` queries attend to `seq_kv` keys per
// (sequence, query head); `causal` halves the work FlashAttention does (it skips masked tiles).
enum class AttentionKernel : uint8_t { kGeneration, kFlashV1, kFlash2 };
struct AttentionWork {
  double batch_heads = 0;  // micro-batch sequences x query heads; 0: the module has no attention
  double seq_q = 0;
  double seq_kv = 0;
  double head_dim = 0;
  bool causal = true;
  // Which efficiencies of the calibration time it: the generation's fused kernel (attention_forward /
  // backward), FlashAttention v1 or its Triton port (AttentionImpl::kFlashV1: attention_v1_*), or
  // FlashAttention-2 where the generation's kernel is another (AttentionImpl::kFlash2: attention_fa2_*). The
  // same FLOPs.
  AttentionKernel kernel = AttentionKernel::kGeneration;
  bool operator==(const AttentionWork&) const = default;
};

// What the GPU executes in a module's forward pass of one micro-batch, for timing (op_cost.h). Modules
// with equal work (the same submodule of every block) share one compute class in the schedule.
struct ModuleWork {
  std::vector<Gemm> gemms;       // the module's GEMMs
  AttentionWork attention;       // its attention core, if any
  double elementwise_bytes = 0;  // HBM bytes of its memory-bound kernels (norms, activations, residual adds,
                                 // dropout, bias adds not fused into a GEMM, embedding lookups, the loss)
  int kernels = 0;               // kernel launches of the forward pass (launch cost)
  // Selective recompute (Korthikanti et al. 2022, sec. 4; Megatron's --recompute-granularity selective):
  // the backward pass first re-runs this module's forward (the unfused attention core, whose s^2 scores
  // were not kept). Set by the schedule builder from the recompute policy.
  bool recompute_in_backward = false;
  // Op-level selective checkpointing (memory.h, RecomputePolicy::kSelectiveOp): the share of the forward GEMM
  // time whose outputs were not saved and are re-run first in the backward (wk of the fused QKV, wo, w3 of a
  // fused gate/up), and whether the module's memory-bound kernels are re-run (none is in torchtitan's save
  // list). Set by the schedule builder.
  double recompute_gemm_fraction = 0;
  bool recompute_elementwise = false;
  bool operator==(const ModuleWork&) const = default;
};

struct Module {
  std::string name;
  int layer = -1;           // transformer block index, -1 outside the blocks
  std::vector<int> params;  // indices into ModuleGraph::params, in ds_id (creation) order
  // FLOPs Megatron's accounting counts for this module's forward pass (ModelSpec's formulas): matrix
  // multiplications only, attention as dense (not causal-halved). Reported throughput uses it; time does not.
  double forward_flops = 0;
  ModuleWork work;
};

struct ModuleGraph {
  std::vector<Param> params;    // in creation order (DeepSpeed's ds_id order)
  std::vector<Module> modules;  // forward execution order
  int num_blocks = 0;
  // Indices into `modules` of each block's first module and one past its last.
  std::vector<int> block_begin;
  std::vector<int> block_end;
  int head_module = -1;  // the logit layer
};

// Which part of a backward pass a compute op runs: the whole pass, or, where a tensor-parallel layer
// overlaps its input gradient's collective with its weight-gradient GEMM (Megatron-LM tensor_parallel/
// layers.py, LinearWithGradAccumulationAndAsyncCommunication.backward: the collective is launched after the
// input-gradient GEMM and waited after the weight-gradient GEMM), the input-gradient part (its GEMMs, the
// attention, the memory-bound kernels, the launches, any recompute) or the weight-gradient GEMMs alone.
// The two parts add up to the whole.
enum class BackwardPart : uint8_t { kWhole, kInputGradient, kWeightGradient };

// Builds the graph for `m` with `tokens` = micro-batch sequences * seq_len tokens per micro-step, as one
// rank of `layout`'s tensor-parallel group runs it (Megatron-LM's column- and row-parallel split,
// docs/design/tensor_pipeline.md sec. 1.1 and 1.4): with t = layout.tensor, the QKV, fc1, word-embedding
// and logit parameters and GEMMs hold 1/t of their output features (the vocabulary rounded up to a multiple
// of t), attention.dense's and fc2's 1/t of their input features, the attention core a/t heads; norms,
// row-parallel biases and learned position embeddings stay whole. The memory-bound work outside the TP
// regions (norms, bias-dropout-adds, embedding dropout) is divided by t only with sequence_parallel.
// forward_flops is each module's share per rank (Megatron's count / t). Preconditions: CheckLayout's (t
// divides the heads, key/value heads and ffn_hidden). An MoE block's routed experts are the E/e of one rank
// of layout.expert's expert-parallel group, sized for the busiest rank's rows (layout.expert_load_imbalance).
// A pipeline stage's graph is that of its slice
// (ModelSpec::has_embedding, has_head, its layers): the embedding modules only on the first stage, the final
// norm and the logit layer only on the last (head_module -1 elsewhere). t = 1 is the whole model.
ModuleGraph BuildModuleGraph(const ModelSpec& m, double tokens, const ParallelLayout& layout = {});

// --- FP8 GEMMs: precision.h's settings applied to the graph's modules ---

// Per parameter of `g`: true for the weight of a linear layer inside a transformer block (the weights
// Float8Linear converts: matrices of modules with layer >= 0). Embeddings, the logit layer, norms, biases and
// an MoE router (Megatron-Core keeps its GEMM in 16 or 32 bits: router.py, moe_router_dtype) are false.
std::vector<bool> Fp8Params(const ModuleGraph& g);

// With p.fp8_gemms, marks the GEMMs of the block linear layers of `g` FP8 (Gemm::fp8), and with
// p.fp8_weight_all_gather their weight as arriving in FP8 (Gemm::fp8_weight_gathered: no weight cast).
void ApplyFp8Gemms(const Precision& p, ModuleGraph* g);

// HBM bytes of the FP8 casts of one linear layer's passes (each GEMM casts both its 16-bit operands,
// kFp8CastBytes per element; the weight is not cast when it was gathered in FP8). For out[m x n] = in[m x k]
// W^T:
//   forward: in (m k) and W (n k);
//   backward: the input gradient casts dY (m n) and W (n k); the weight gradient casts dY (m n) and in (m k).
double Fp8ForwardCastBytes(const Gemm& g);
double Fp8BackwardCastBytes(const Gemm& g);

}  // namespace zerosim::model
