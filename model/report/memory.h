// Memory per GPU of sharded data-parallel training, in bytes (mixed precision with Adam).
//   parameters        2 * Psi / Np (fp16 partition) + 2 * persistent elements (kept whole on every GPU)
//   gradients         2 * Psi / Ng (fp16 gradient partition; 4 with grad_accum_dtype fp32: precision.h)
//   optimizer states  12 * Psi / No (fp32 master weights, Adam momentum and variance; 6 with DeepSpeed's
//                     bf16_master_weights_and_grads and bf16_optimizer_states: precision.h)
//                     -> the ZeRO paper's accounting (Rajbhandari et al. 2020, sec. 3), with Np, Ng, No the
//                        ranks the strategy divides each over (Schedule::param_shards, ...): ZeRO-1 1/1/P,
//                        ZeRO-2 1/P/P, ZeRO-3 and FSDP FULL_SHARD / SHARD_GRAD_OP / FSDP2 P/P/P, MiCS and
//                        HSDP s/s/s (the shard group), NO_SHARD 1/1/1
//   hpZ secondary     2 * Psi / h (ZeRO++ sec. 3.2: the secondary partition, fp16)
//   gathered          2 * the most parameter elements gathered at once (the schedule's peak; FSDP: unsharded
//                     units, all of them at the end of the forward with SHARD_GRAD_OP; with the FP8
//                     all-gather an upper bound: the peak is usually the 16-bit embedding or logit layer);
//                     FSDP2 on a pipeline stage: the stage's whole parameters, and its unsharded gradients
//                     among the buffers (torchtitan does not reshard after forward under PP, and the
//                     pipeline syncs gradients on the last micro-batch only: memory.cc)
//   buffers           the gradient bucket (2 * reduce_bucket_size with contiguous gradients, plus its copy in
//                     communication_data_type when that is wider; FSDP: the largest unit's unsharded gradient
//                     awaiting its reduce-scatter) and qgZ's int4 send/receive buffers for the largest matrix
//   activations       ActivationBytes below (Korthikanti et al. 2022), plus the loss's working memory over
//                     the logits (LossBytesPerLogit x b*s*V/t: 6*b*s*V for the fused loss)
//   runtime           the CUDA context, NCCL's buffers, cuBLAS's workspaces, the caching allocator's block
//                     rounding and fragmentation, and the [runtime] memory_reserve
//                     (model/report/runtime_memory.h, each with its source)
// Three views of one GPU's memory, as PyTorch and nvidia-smi show them:
//   active    the tensors above and cuBLAS's workspaces (PyTorch allocates them through its caching
//             allocator: CublasHandlePool.cpp): torch.cuda.memory_stats()["active_bytes.all.peak"]
//   reserved  active plus the allocator's rounding and fragmentation: the segments the caching allocator
//             holds, torch.cuda.max_memory_reserved() ("reserved_bytes.all.peak", what torchtitan logs as
//             "memory")
//   total     reserved plus what lies outside the allocator (the CUDA context, NCCL's buffers: NCCL
//             allocates them itself) and the reserve; a variant fits when it is at most the GPU's memory
//             (evaluate.cc, batch_search.cc), so feasibility is decided on the reserved estimate.
#pragma once

#include <string>
#include <vector>

#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

struct MemoryBreakdown {
  double parameters_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_states_bytes = 0;
  double hpz_secondary_bytes = 0;
  double gathered_parameters_bytes = 0;
  double buffers_bytes = 0;
  double activations_bytes = 0;
  // model/report/runtime_memory.h
  double cuda_context_bytes = 0;
  double nccl_buffers_bytes = 0;
  double cublas_workspace_bytes = 0;
  double allocator_rounding_bytes = 0;
  double fragmentation_bytes = 0;
  double reserve_bytes = 0;
  double total_bytes = 0;
  // Subtotals of the parts above (not parts themselves): the tensors and cuBLAS's workspaces, and those plus
  // the allocator's rounding and fragmentation (the views above).
  double active_bytes = 0;
  double reserved_bytes = 0;
  double hbm_bytes = 0;  // the GPU's memory, for comparison
};

// Activation bytes one block stores for the backward of a micro-batch of `micro_batch` sequences, 16-bit
// activations, generalizing Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
// Transformer Models", sec. 4.1, eq. 1: s*b*h*(34 + 5*a*s/h) for GPT with dropout) term by term:
//   attention  QKV input 2sbh, Q 2sbh, K and V 2sb*kv each (kv = h for multi-head: Korthikanti's 6sbh),
//              the core's output 2sbh, the output dropout mask sbh: 11sbh for GPT;
//              unfused core: softmax output 2as^2b, its dropout mask as^2b and output 2as^2b (5as^2b);
//              FlashAttention keeps no s x s tensor, only its fp32 log-sum-exp per query row (4abs;
//              flash-attn's softmax_lse);
//   MLP        input 2sbh, then per token GeLU input and output 2f + 2f bytes (plain) or the gate/up output
//              and the SwiGLU output 4f + 2f (gated), the dropout mask sbh: 19sbh for GPT with f = 4h;
//   norms      two inputs, 4sbh.
// Without dropout the two sbh masks (and the attention dropout mask) are not stored.
// Selective recompute keeps everything but the unfused core's s x s tensors (Korthikanti's 34sbh).
// selective_op keeps what torchtitan's policy saves (RecomputePolicy, model_spec.h) beside the checkpoint's
// block input 2sbh: the outputs of wq (2sbh), wv (2sb*kv), the SDPA kernel (its output 2sbh and
// FlashAttention's log-sum-exp 4abs; the unfused core's bmm and softmax are recomputed) and the saved MLP
// matmuls (w1 2sbf and w2 2sbh gated; w1 2sbf for GELU MLPs).
// With tensor parallelism (`layout`, t = layout.tensor), one rank's share, Korthikanti sec. 4.2 and Table 2
// term by term: the terms inside the TP regions (Q, K, V, the core's tensors and output, the MLP's
// intermediates) / t, the others (the QKV and MLP inputs, the norm inputs, the output dropout masks) / t
// only with sequence_parallel: GPT gives sbh(10 + 24/t + 5as/(ht)) with TP and sbh(34 + 5as/h)/t with
// TP + SP. selective_op keeps its saved set likewise, the row-parallel w2's unreduced output whole.
// An MoE model's blocks (model_spec.h IsMoeLayer; t = 1) keep, in place of the dense MLP's intermediates (4f
// or 6f bytes per token), the router's fp32 scores and probabilities (8E), the routed rows the experts' fc1
// reads (2h per row) and their intermediates (4f_e or 6f_e), the experts' outputs the unpermutation weights
// (2h per row), k rho rows per token (layout.expert_load_imbalance: the busiest rank), and the shared
// experts' intermediates (4f_s or 6f_s); the value is the mean over the spec's blocks (dense blocks first
// keep the dense MLP's), so that layers x it is the blocks' sum.
// Megatron-Core's module recompute (zero_config.h recompute_layernorm, recompute_moe_act): the norms' outputs
// (the QKV and MLP inputs, 2sbh each, / t with SP) and the routed experts' activation outputs (2 f_e bytes
// per routed row) are not kept. Applies to policies none and selective.
struct ModuleRecompute {
  bool layernorm = false;
  bool moe_act = false;
};
double BlockActivationBytes(const ModelSpec& m, double micro_batch, RecomputePolicy policy,
                            const ParallelLayout& layout = {}, ModuleRecompute modules = {});

// Activation bytes of the whole model on one GPU, without the logits: none and selective keep every
// block's activations; full keeps each block's input (2sbh) plus one block's full working set while it is
// recomputed (Korthikanti sec. 4: 2sbhL + the recomputed layer); offload keeps only that working set (the
// inputs live in host memory). selective_op keeps every block's saved set plus one block's full working set
// while its backward recomputes the rest; selective_block keeps floor(L / n) block inputs and the full
// activations of the other blocks, plus one block's working set (`block_interval` = n). With `layout`'s
// tensor parallelism, BlockActivationBytes's shares, and the block inputs / t with sequence_parallel.
// `saved_copies`: micro-batches (pipeline chunks) whose saved state is held at once (a pipeline stage's
// chunks in flight, PipelineResidency); each keeps the saved part above, the one block's working set of a
// recompute is counted once.
// `modules`: Megatron's module recompute (ModuleRecompute) under none and selective.
double ActivationBytes(const ModelSpec& m, double micro_batch, RecomputePolicy policy, int block_interval = 1,
                       const ParallelLayout& layout = {}, double saved_copies = 1,
                       ModuleRecompute modules = {});

// The loss's working memory at its peak, in bytes per logit (one rank's b*s*V/t), by `loss` (model_spec.h
// LossImpl), with `tensor` the tensor-parallel degree (the logit layer is vocabulary parallel):
//   fused     6: the 16-bit logits and one fp32 copy the softmax and its gradient overwrite in place
//             (Megatron-LM core/tensor_parallel/cross_entropy.py _VocabParallelCrossEntropy: exp_logits
//             computed in place and saved, the backward writes grad_input into it).
//   eager     12 without tensor parallelism: `F.cross_entropy(pred.flatten(0, 1).float(), labels)`
//             (torchtitan train.py loss_fn, 2024-12; components/loss.py cross_entropy_loss, 2025) is
//             aten log_softmax then nll_loss. The forward holds the 16-bit logits (2), their fp32 copy (4)
//             and log_softmax's fp32 output (4, saved: derivatives.yaml `_log_softmax: result`) = 10; the
//             caller frees the logits (`del pred`), the copy dies with the forward. The backward's peak is
//             the saved output (4) beside nll_loss_backward's full fp32 gradient (4: zeros then a scatter)
//             and _log_softmax_backward_data's fp32 result (4) = 12.
//             16 with tensor parallelism: the loss runs under DTensor's loss_parallel (torchtitan's default,
//             `disable_loss_parallel = false`), whose backward (torch/distributed/tensor/parallel/loss.py
//             _nll_loss_and_log_softmax_backward) computes `(zeros_like(x) + exp(x)) * grad_output` beside
//             the saved log_softmax output x: four fp32 tensors (its forward, _log_softmax: the copy x,
//             shifted, exp(shifted) and the 16-bit logits, 14).
//   compiled  4: under torch.compile Inductor fuses the cast, the log-sum-exp reduction and the gradient
//             (softmax minus the one-hot target) into kernels over the 16-bit logits: AOTAutograd's
//             partitioner saves the logits (2, the smallest tensor to save) and per-row statistics, and the
//             backward writes the 16-bit gradient (2). No full-size fp32 tensor is materialized.
double LossBytesPerLogit(LossImpl loss, int tensor);

// Blocks checkpointed whole under `policy`: every block with full and offload, floor(layers / n) with
// selective_block, none otherwise.
int CheckpointedBlocks(const ModelSpec& m, RecomputePolicy policy, int block_interval);

// Tensors the training keeps for the backward at its peak (for the allocator's block rounding,
// runtime_memory.h): per block kept whole, one per stored term of BlockActivationBytes (the QKV input, Q, K,
// V, the core's output, FlashAttention's log-sum-exp or the unfused core's two s x s tensors, the MLP's input
// and two intermediates, the two norm inputs, the dropout masks); with full recompute one input per block
// plus one block's set; with offload one block's set. `saved_copies` as ActivationBytes's.
double SavedActivationTensors(const ModelSpec& m, RecomputePolicy policy, int block_interval = 1,
                              double saved_copies = 1);

// The parameter tensors of `params` whose partition (`element_bytes` x numel / `shards`) takes a large-pool
// block of PyTorch's caching allocator: above its kSmallSize of 1 MiB (kAllocatorRoundingPerTensorBytes,
// runtime_memory.h); smaller ones come from 2 MiB small-pool segments, rounded to 512 B.
double LargeParameterTensors(const std::vector<Param>& params, double element_bytes, double shards);

// What a pipeline stage's rank holds of its activations (model/report/pipeline_evaluate.h):
// `chunks_in_flight` chunks of `chunk_layers` blocks each (L / (p v); the stage's schedule is built for its L
// / p layers). The default (chunk_layers 0) is one micro-batch of the whole schedule's layers, every engine
// without a pipeline.
struct PipelineResidency {
  int chunk_layers = 0;
  double chunks_in_flight = 1;
};

MemoryBreakdown EstimateMemory(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                               const Schedule& s, const PipelineResidency& pipeline = {});

}  // namespace zerosim::model
