// ParallelLayout: how a variant's GPUs split the model beside data parallelism: Megatron-LM's tensor (t) and
// pipeline (p) parallelism, with the data-parallel size d = P / (t p) derived (docs/design/tensor_pipeline.md
// sec. 5 step 1). Read from a scenario's `[parallel]` table and each `[[variant]]`
// (model/io/parallel_keys.h) and the sweep axes of the same names (model/io/sweep.cc); judged by
// model::CheckLayout (model/spec/feasibility.h). A plain aggregate with in-class defaults: the default layout
// (t = p = 1) is pure data parallelism. What the engines model of the others is model::CheckModelled's
// (tensor parallelism under ZeRO and FSDP, pipelines under ZeRO-1: model/report/pipeline_evaluate.h); the
// rest is refused at evaluation with its reason, never evaluated as data parallel.
#pragma once

#include <optional>
#include <string_view>

namespace zerosim::model {

// The pipeline schedule (Narayanan et al. 2021 sec. 2.2; Megatron-LM megatron/core/pipeline_parallel/
// schedules.py): 1F1B with flush (PipeDream-Flush, Megatron's default), interleaved 1F1B (virtual stages > 1,
// `forward_backward_pipelining_with_interleaving`), GPipe (all forwards, then all backwards; Huang et al.
// 2019).
enum class PipelineSchedule { k1F1B, kInterleaved1F1B, kGPipe };

// How a context-parallel group exchanges what attention needs (TransformerEngine's cp_comm_type,
// Megatron-Core's --cp-comm-type): kP2p, the ring of keys and values beside the attention kernel (TE's
// default, AttnFuncWithCPAndKVP2P); kAllToAll, DeepSpeed-Ulysses (Jacobs et al. 2023, sec. 3; TE's "a2a",
// AttnFuncWithCPAndQKVOA2A): all-to-alls turn each rank's s/c tokens of every head into all s tokens of h/c
// heads before the attention and back after it, the attention then local; kAllGather, PyTorch's experimental
// context_parallel with its all-gather rotater (torch/distributed/tensor/experimental/_attention.py
// _AllGatherRotater; torchtitan's default context_parallel_rotate_method "allgather"): one all-gather of
// every rank's keys and values beside the first, local sub-attention, the others after it; in the backward
// the keys and values gathered again and their fp32 gradients passed round the ring
// (_templated_ring_attention_backward's dkv_rotater, always all_to_all).
enum class ContextComm { kP2p, kAllToAll, kAllGather };

// "p2p", "a2a", "all_gather".
const char* ContextCommName(ContextComm c);
std::optional<ContextComm> ParseContextComm(std::string_view name);

// How an MoE block's tokens reach their experts' ranks and come back (Megatron-Core's
// moe_token_dispatcher_type, megatron/core/transformer/moe/token_dispatcher.py):
//  - kAllToAll ("alltoall", MoEAlltoAllTokenDispatcher): each rank sends its routed rows (T k rho h values)
//  to
//    their experts' ranks and back by all-to-alls over the expert-parallel group;
//  - kAllGather ("allgather", MoEAllGatherTokenDispatcher): every rank gathers all the group's tokens (hidden
//    states [T, h] 16-bit, the routing map [T, E] as bytes and the probabilities [T, E] fp32, over the tensor
//    x expert group: gather_from_sequence_parallel_region_to_moe), permutes the rows of its local experts,
//    and the outputs go back by a reduce-scatter of [e T, h]
//    (reduce_scatter_to_sequence_parallel_region_from_moe); in the backward the two swap (the gradients of
//    the hidden states, and of the probabilities, fp32);
//  - kFlex ("flex": DeepEP / HybridEP's fused dispatch and combine kernels): a name the loader reads, refused
//  as not
//    modelled.
enum class MoeDispatcher { kAllToAll, kAllGather, kFlex };
const char* MoeDispatcherName(MoeDispatcher d);
std::optional<MoeDispatcher> ParseMoeDispatcher(std::string_view name);

// "1f1b", "interleaved_1f1b", "gpipe".
const char* PipelineScheduleName(PipelineSchedule s);
std::optional<PipelineSchedule> ParsePipelineSchedule(std::string_view name);

struct ParallelLayout {
  // `tensor`: ranks one layer's GEMMs are split over (Megatron --tensor-model-parallel-size), t.
  int tensor = 1;
  // `sequence_parallel`: norms and dropout on s/t tokens, all-reduces as reduce-scatter + all-gather
  // (Korthikanti et al. 2022 sec. 4.2.2; Megatron --sequence-parallel). Only meaningful with t > 1.
  bool sequence_parallel = false;
  // `tp_comm_overlap`: the tensor-parallel all-gathers and reduce-scatters of the transformer layers' linear
  // GEMMs overlapped with those GEMMs, as TransformerEngine's userbuffers run them under Megatron-Core's
  // --tp-comm-overlap (transformer_engine/pytorch/module/base.py initialize_ub: ring-exchange all-gathers before
  // the column-parallel GEMMs, pipelined reduce-scatters after the row-parallel ones, bulk overlap in the
  // backward) and torchtitan's async TP (micro-pipelined all-gather-matmul / matmul-reduce-scatter). Needs
  // sequence_parallel (Megatron: "--tp-comm-overlap requires --sequence-parallel"). model/schedule/
  // schedule_parts.cc EmitModuleCompute.
  bool tp_comm_overlap = false;
  // `pipeline`: stages the layers are split into (Megatron --pipeline-model-parallel-size), p.
  int pipeline = 1;
  // `virtual_stages`: model chunks per pipeline rank (Megatron --num-virtual-stages-per-pipeline-rank;
  // older releases take --num-layers-per-virtual-pipeline-stage = L / (p v)), v;
  // v > 1 is the interleaved schedule.
  int virtual_stages = 1;
  // `schedule`: 1F1B by default; interleaved 1F1B when virtual_stages > 1 and no schedule is given.
  PipelineSchedule schedule = PipelineSchedule::k1F1B;
  // `overlap_p2p_comm`: the interleaved schedule's point-to-point sends and receives issued asynchronously, a
  // stage going on with its next pass while its send travels (Megatron-Core's overlap_p2p_comm,
  // pipeline_parallel/schedules.py forward_backward_pipelining_with_interleaving; Megatron-LM forces it off
  // without interleaving: arguments.py "non-interleaved schedule does not support overlapping p2p
  // communication"). Off: blocking sends, the 2021-23 Megatron-LM default (no --overlap-p2p-communication).
  bool overlap_p2p_comm = false;
  // `account_for_embedding_in_pipeline_split`, `account_for_loss_in_pipeline_split`: Megatron-Core's
  // TransformerConfig flags of the same names: the embedding (the loss) counted as one layer of the split, so
  // the first (last) virtual stage builds one transformer layer fewer and p v may divide L + 1 or L + 2
  // instead of L (model/spec/pipeline_split.h). Off: L / (p v) layers in every chunk.
  bool account_for_embedding_in_pipeline_split = false;
  bool account_for_loss_in_pipeline_split = false;
  // `num_layers_in_first_pipeline_stage`, `num_layers_in_last_pipeline_stage`: Megatron-Core's
  // TransformerConfig fields of the same names (--decoder-first-pipeline-num-layers /
  // --decoder-last-pipeline-num-layers): the first (last) stage's layers, the other stages sharing the rest
  // evenly, each stage's over its v chunks (model/spec/pipeline_split.h). 0: not set.
  int num_layers_in_first_pipeline_stage = 0;
  int num_layers_in_last_pipeline_stage = 0;
  // `tensor_across_nodes`: ZeroSim: allow a tensor group larger than a node (every block's collectives on
  // the NICs; Narayanan et al. 2021 sec. 3.2 takeaway 1 shows it slow). Off: t must divide gpus_per_node.
  bool tensor_across_nodes = false;
  // `expert`: expert parallelism (Megatron-Core --expert-model-parallel-size; DeepSpeed-MoE ep_size), e: an
  // MoE block's E routed experts are split over e ranks of the data-parallel group, E/e each, and the tokens
  // go to their experts' ranks and back by all-to-alls (docs/design/moe_cp_sources.md (c), (d)). The expert
  // grid is Megatron's with expert tensor parallelism equal to t (parallel_state.py): an expert-parallel
  // group is e consecutive DP ranks of one TP rank, the expert-data-parallel group (which reduces the
  // experts' gradients) the d/e ranks at one position of theirs. 1: every rank holds every expert.
  int expert = 1;
  // `expert_tensor`: Megatron-Core's --expert-tensor-parallel-size (ETP), the ranks one expert's GEMMs are
  // split over; 0: t, Megatron's default (TransformerConfig expert_tensor_parallel_size None -> the TP size).
  // With ETP = 1 beside t > 1 ("MoE parallel folding", Liu et al. 2025, arXiv:2504.14960 sec. 3;
  // Megatron-Core parallel_state.py's expert rank generator, order "tp-ep-dp-pp" with tp = ETP) the expert
  // grid folds the tensor ranks in: an expert-parallel group is e consecutive ranks of a stage (crossing the
  // tensor groups), the expert-data-parallel group the t d / e ranks at one position of theirs, and each rank
  // runs its E/e experts whole on its own s/t tokens (sequence parallelism: the MoE block runs between the
  // sequence-split norms, no tensor-parallel collective inside it: moe_layer.py, token_dispatcher.py with tp
  // size 1).
  int expert_tensor = 0;
  // `expert_load_imbalance`: rows the busiest rank of an expert-parallel group receives over the mean (rho >=
  // 1), which sets the experts' GEMM time and receive bytes of every rank (the slowest paces the all-to-all
  // and the pipeline). 1: balanced, as NVIDIA's published MoE throughputs force it
  // (moe_router_force_load_balancing; docs/design/moe_cp_sources.md (e)).
  double expert_load_imbalance = 1.0;
  // `context`: context parallelism (Megatron-Core --context-parallel-size), c: each sequence split over c
  // ranks of the data-parallel group, s/c tokens each (megatron/training/utils.py get_batch_on_this_cp_rank:
  // 2c chunks, rank r keeps chunks r and 2c-1-r, so every rank holds an equal share of the causal triangle),
  // and the keys and values passed around the ring inside each attention block (TransformerEngine's
  // cp_comm_type "p2p", its default: attention/dot_product_attention/context_parallel.py
  // AttnFuncWithCPAndKVP2P, flash_attn_p2p_communicate "KV and dKV"). Megatron's rank order is tp-cp-dp-pp
  // (parallel_state.py order "tp-cp-ep-dp-pp"): a context-parallel group is c consecutive DP ranks of one TP
  // rank, and the gradients are reduced (and the distributed optimizer shards) over the whole d = P / (t p)
  // ranks, context ranks included (get_data_parallel_group(with_context_parallel=True)). 1: none.
  int context = 1;
  // `context_comm`: how the context-parallel group exchanges what attention needs (ContextComm above).
  ContextComm context_comm = ContextComm::kP2p;
  // `moe_token_dispatcher_type`: how an MoE block's tokens reach their experts (MoeDispatcher above;
  // Megatron-Core's default alltoall, what its MoE README recommends with expert parallelism).
  MoeDispatcher moe_token_dispatcher = MoeDispatcher::kAllToAll;

  // Sets `virtual_stages` = v and the schedule Megatron runs with it: interleaved 1F1B when v > 1
  // (schedules.py get_forward_backward_func), back to 1F1B when v = 1 after an interleaved one; GPipe stays.
  void SetVirtualStages(int v);

  // Ranks holding one copy of the model: t p.
  int model_parallel() const { return tensor * pipeline; }
  // The data-parallel size d = P / (t p) for P GPUs (the caller checks that t p divides P).
  int data_parallel(int gpus) const { return gpus / model_parallel(); }
  // The ranks that train distinct sequences, d / c (Megatron's data-parallel size without context
  // parallelism): the global batch is micro-batch x accumulation x d / c sequences.
  int batch_parallel(int gpus) const { return data_parallel(gpus) / context; }
  // The tokens of one sequence of `seq_len` a rank holds: s / c (CheckLayout: 2c divides s).
  double rank_tokens(int seq_len) const { return static_cast<double>(seq_len) / context; }
  // ETP: `expert_tensor`, or t where it is 0.
  int expert_tensor_size() const { return expert_tensor > 0 ? expert_tensor : tensor; }
  // Whether the expert grid folds the tensor ranks in (ETP = 1 beside t > 1, expert parallelism on).
  bool expert_folded() const { return expert > 1 && tensor > 1 && expert_tensor_size() == 1; }
  // The ranks the routed experts' states are divided over where the other states are divided over `shards` of
  // the d data-parallel ranks: shards / e (ETP = t), t shards / e when folded (Megatron's EDP = t d / (ETP
  // e)).
  int expert_shards(int shards) const { return expert_folded() ? shards * tensor / expert : shards / expert; }
  // The expert-data-parallel size: expert_shards of the whole d.
  int expert_data_parallel(int gpus) const { return expert_shards(data_parallel(gpus)); }
  // Whether it is pure data parallelism (t = p = 1).
  bool data_parallel_only() const { return tensor == 1 && pipeline == 1; }
  // Whether each pipeline stage of `gpus` ranks holds whole nodes of `gpus_per_node`: p == 1, or a stage's
  // t d = P / p ranks a multiple of N (the ranks are ordered tp-dp-pp, model/placement/placement.h).
  bool stages_fill_nodes(int gpus, int gpus_per_node) const {
    return pipeline == 1 || (gpus / pipeline) % gpus_per_node == 0;
  }

  bool operator==(const ParallelLayout&) const = default;
};

}  // namespace zerosim::model
