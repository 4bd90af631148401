#include "model/builders/schedule_parts.h"

#include <algorithm>
#include <cmath>

#include "model/placement/placement.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/precision.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

namespace {

// TransformerEngine's pipelined reduce-scatter splits the row-parallel GEMM into this many chunks: num_splits
// 4 in the userbuffers configurations Megatron-Bridge and NeMo ship for H100 and B200
// (userbuffers_{bf16,fp8}_{h100,b200}_h8192_*: proj_fprop / fc2_fprop PipelineOverlapCfg num_splits=4).
constexpr double kUserbufferSplits = 4;

}  // namespace

void SetScheduleFrame(Schedule* s, const ZeroConfig& z, const RankShape& c, ModuleGraph graph,
                      int micro_steps, double tokens_per_micro_step) {
  s->nodes = c.nodes;
  s->gpus_per_node = c.gpus_per_node;
  s->world_size = c.total_gpus();
  s->tensor = c.tensor;
  s->sequence_parallel = c.sequence_parallel;
  s->tp_comm_overlap = c.tp_comm_overlap;
  s->expert = c.expert;
  s->expert_tensor = c.expert_tensor;
  s->moe_token_dispatcher = c.moe_token_dispatcher;
  s->expert_load_imbalance = c.expert_load_imbalance;
  s->context = c.context;
  s->context_comm = c.context_comm;
  s->hardware_queues = z.runtime.cuda_device_max_connections;
  s->micro_steps = micro_steps;
  s->tokens_per_micro_step = tokens_per_micro_step;
  s->graph = std::move(graph);
  for (const Param& p : s->graph.params) {
    s->partitioned_elements += p.numel();
    if (p.is_matrix()) s->largest_matrix_elements = std::max(s->largest_matrix_elements, p.numel());
    if (p.expert) s->expert_elements += p.numel();
  }
}

int ComputeClassOf(Schedule* s, const ModuleWork& work, bool backward, BackwardPart part, double share) {
  const ComputeClass cc{work, backward, part, share};
  for (size_t i = 0; i < s->compute_classes.size(); ++i) {
    if (s->compute_classes[i] == cc) return static_cast<int>(i);
  }
  s->compute_classes.push_back(cc);
  return static_cast<int>(s->compute_classes.size()) - 1;
}

ScheduleFrame BeginSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, Schedule* s) {
  // A rank's tokens of one micro-batch: with context parallelism s/c of each sequence (parallel_layout.h).
  const double tokens =
      z.train_micro_batch_size_per_gpu * ParallelLayout{.context = c.context}.rank_tokens(m.seq_len);
  ParallelLayout layout;  // one tensor-parallel rank's graph
  layout.tensor = c.tensor;
  layout.context = c.context;
  layout.context_comm = c.context_comm;
  layout.sequence_parallel = c.sequence_parallel;
  layout.expert = c.expert;
  layout.expert_tensor = c.expert_tensor;
  layout.expert_load_imbalance = c.expert_load_imbalance;
  SetScheduleFrame(s, z, c, BuildModuleGraph(m, tokens, layout), z.gradient_accumulation_steps, tokens);
  ApplyFp8Gemms(z.precision, &s->graph);  // precision.h: FP8 linear layers
  // Selective recompute keeps everything but the unfused attention core's s^2 tensors, which the backward
  // recomputes (Korthikanti et al. 2022, sec. 4). FlashAttention never stores them and recomputes inside
  // its own backward kernel (its 2.5x backward factor, compute_cost.h), so there is nothing to add for it.
  const RecomputePolicy policy = RecomputeOf(z);
  if (policy == RecomputePolicy::kSelective && m.attention == AttentionImpl::kUnfused) {
    for (Module& mod : s->graph.modules) {
      if (mod.name.ends_with("attention.core")) mod.work.recompute_in_backward = true;
    }
  }
  // Megatron-Core's module recompute (zero_config.h): the norms, and the routed experts' activation, re-run
  // in the backward (their memory-bound work again; for the experts' fc1 module that is its permutation too,
  // an overcount of T k h values per pass).
  if (z.recompute_layernorm || z.recompute_moe_act) {
    for (Module& mod : s->graph.modules) {
      if (mod.layer < 0) continue;
      if ((z.recompute_layernorm && mod.name.ends_with("layernorm")) ||
          (z.recompute_moe_act && mod.name.ends_with("moe.experts.dense_h_to_4h"))) {
        mod.work.recompute_elementwise = true;
      }
    }
  }
  if (policy == RecomputePolicy::kSelectiveOp) {
    // torchtitan's op-level policy (model_spec.h RecomputePolicy): in each block's backward, the matmuls it
    // did not save (even ones in wq, wk, wv, wo, w1, w3, w2 order: wk, wo, w3; GELU MLPs: wk, wo, w2) re-run,
    // so does the unfused attention core (bmm and softmax are not saved; an SDPA kernel's output is), and
    // every memory-bound kernel (norms, rotary, activations, residual adds). The same FLOPs as
    // RecomputeFlopsPerLayer.
    const double kv = KvWidth(m), q = QueryWidth(m);
    const bool gelu = m.mlp == MlpKind::kGelu;
    for (Module& mod : s->graph.modules) {
      if (mod.layer < 0) continue;
      mod.work.recompute_elementwise = true;
      if (mod.name.ends_with("attention.query_key_value")) {
        mod.work.recompute_gemm_fraction = kv / (q + 2 * kv);  // wk of the fused projection
      } else if (mod.name.ends_with("attention.dense")) {
        mod.work.recompute_gemm_fraction = 1.0;  // wo
      } else if (mod.name.ends_with("mlp.dense_h_to_4h")) {
        mod.work.recompute_gemm_fraction = gelu ? 0.0 : 0.5;  // w1 saved; w3 of the fused gate/up not
      } else if (mod.name.ends_with("mlp.dense_4h_to_h")) {
        mod.work.recompute_gemm_fraction = gelu ? 1.0 : 0.0;  // GELU's second matmul; SwiGLU's w2 saved
      } else if (mod.name.ends_with("attention.core") && m.attention == AttentionImpl::kUnfused) {
        mod.work.recompute_in_backward = true;
      }
    }
  }
  // The shard group in DP ranks of one TP rank's data-parallel group (placement.h: N' = N / t of them a node),
  // one node's (N') where the strategy's key leaves it at 0.
  if (HasShardGroup(z.strategy)) {
    s->shard_group_size = GroupSize(GroupKind::kShard, RankGrid{.nodes = c.nodes,
                                                                .gpus_per_node = c.gpus_per_node,
                                                                .shard = z.shard_group_size(),
                                                                .tensor = c.tensor});
  }
  // The expert- and context-parallel groups have kinds and sizes of their own (placement.h kExpert,
  // kExpertData, kContext: RankGrid::expert and ::context, from the layout's e and c above).
  // Each state over the ranks the strategy divides it across (strategy.h TraitsOf).
  const StrategyTraits& traits = TraitsOf(z.strategy);
  auto shards = [s](ShardOver over) {
    return over == ShardOver::kNone         ? 1
           : over == ShardOver::kShardGroup ? s->shard_group_size
                                            : s->data_parallel_size();
  };
  s->param_shards = shards(traits.parameters);
  s->gradient_shards = shards(traits.gradients);
  s->optimizer_shards = shards(traits.optimizer_states);

  ScheduleFrame f;
  // Blocks with a recompute pass: every block with activation checkpointing; selective_block every n-th
  // (blocks n, 2n, ... counting from 1: torchtitan's _apply_layer_sac).
  std::vector<bool> recompute_block(static_cast<size_t>(std::max(0, s->graph.num_blocks)),
                                    z.activation_checkpointing);
  if (policy == RecomputePolicy::kSelectiveBlock) {
    for (size_t b = 0; b < recompute_block.size(); ++b) {
      recompute_block[b] = z.recompute_block_interval >= 1 && (b + 1) % z.recompute_block_interval == 0;
    }
  }
  f.trace = BuildTrace(s->graph, recompute_block);
  // Each parameter's gradient is final at its last backward use.
  f.last_backward.assign(s->graph.params.size(), -1);
  for (int step = 0; step < static_cast<int>(f.trace.size()); ++step) {
    if (f.trace[static_cast<size_t>(step)].phase != Phase::kBackward) continue;
    for (int p : s->graph.modules[static_cast<size_t>(f.trace[static_cast<size_t>(step)].module)].params) {
      f.last_backward[static_cast<size_t>(p)] = step;
    }
  }
  s->ops.reserve(f.trace.size() * static_cast<size_t>(z.gradient_accumulation_steps) * 8 + 64);

  // One compute class per distinct module pass (the same submodule of every block shares one).
  auto class_of = [s](const ModuleWork& work, bool backward, BackwardPart part = BackwardPart::kWhole) {
    return ComputeClassOf(s, work, backward, part);
  };
  for (const Module& mod : s->graph.modules) {
    f.forward_class.push_back(class_of(mod.work, false));
    f.backward_class.push_back(class_of(mod.work, true));
  }
  if (s->tensor > 1) {
    const ModuleGraph& g = s->graph;
    for (size_t i = 0; i < g.modules.size(); ++i) {
      const std::string& n = g.modules[i].name;
      TpRole role = TpRole::kNone;
      if (n.ends_with("attention.query_key_value") || n.ends_with("mlp.dense_h_to_4h"))
        role = TpRole::kColumn;
      if (n.ends_with("attention.dense") || n.ends_with("mlp.dense_4h_to_h")) role = TpRole::kRow;
      // An MoE block's shared experts: the dense MLP's split (module_graph.cc AddMoeMlp); its routed experts
      // have no tensor-parallel role (the expert grid folded).
      if (n.ends_with("shared_experts.dense_h_to_4h")) role = TpRole::kColumn;
      if (n.ends_with("shared_experts.dense_4h_to_h")) role = TpRole::kRow;
      if (n == "embedding.word_embeddings") role = TpRole::kEmbedding;
      if (static_cast<int>(i) == g.head_module) role = TpRole::kHead;
      f.tp_role.push_back(role);
      const bool split = role == TpRole::kColumn || role == TpRole::kHead;
      const ModuleWork& work = g.modules[i].work;
      f.tp_input_gradient_class.push_back(split ? class_of(work, true, BackwardPart::kInputGradient) : -1);
      f.tp_weight_gradient_class.push_back(split ? class_of(work, true, BackwardPart::kWeightGradient) : -1);
      std::array<int, 2> fwd{-1, -1}, bwd{-1, -1};
      if (s->tp_comm_overlap && (role == TpRole::kColumn || role == TpRole::kRow)) {
        const double last = 1.0 / s->tensor;  // ring exchange: the chunk after the last arrival
        const double first = 1.0 / kUserbufferSplits;  // pipelined reduce-scatter: the chunk before the first
        if (role == TpRole::kColumn) {
          fwd = {ComputeClassOf(s, work, false, BackwardPart::kWhole, 1 - last),
                 ComputeClassOf(s, work, false, BackwardPart::kWhole, last)};
        } else {
          fwd = {ComputeClassOf(s, work, false, BackwardPart::kWhole, first),
                 ComputeClassOf(s, work, false, BackwardPart::kWhole, 1 - first)};
          bwd = {ComputeClassOf(s, work, true, BackwardPart::kWhole, 1 - last),
                 ComputeClassOf(s, work, true, BackwardPart::kWhole, last)};
        }
      }
      f.tp_forward_chunk_class.push_back(fwd);
      f.tp_backward_chunk_class.push_back(bwd);
    }
    f.tp_activation_bytes = 2.0 * s->tokens_per_micro_step * m.hidden;  // X: 16-bit activations
    f.tp_loss_bytes = 4.0 * s->tokens_per_micro_step;                   // one fp32 per token
  }
  if (s->expert > 1) {
    for (const Module& mod : s->graph.modules) {
      f.ep_role.push_back(mod.name.ends_with("moe.experts.dense_h_to_4h")   ? EpRole::kDispatch
                          : mod.name.ends_with("moe.experts.dense_4h_to_h") ? EpRole::kCombine
                                                                            : EpRole::kNone);
    }
    // The rank's routed rows: T k rho, its T the s/t sequence-parallel tokens when t > 1 (folded).
    const double sp = s->sequence_parallel ? s->tensor : 1.0;
    f.ep_buffer_bytes =
        2.0 * s->tokens_per_micro_step / sp * m.experts_per_token * s->expert_load_imbalance * m.hidden;
    // The allgather dispatcher's buffers (schedule_parts.h), over the e ranks of the expert group.
    const double group_tokens = static_cast<double>(s->expert) * s->tokens_per_micro_step / sp;
    f.ep_hidden_bytes = group_tokens * 2.0 * m.hidden;
    f.ep_gather_bytes = group_tokens * (2.0 * m.hidden + 5.0 * m.experts);
    f.ep_gradient_scatter_bytes = group_tokens * (2.0 * m.hidden + 4.0 * m.experts);
  }
  if (s->context > 1) {
    const bool ulysses = s->context_comm == ContextComm::kAllToAll;
    const double last = 1.0 / s->context;  // the ring's chunk after the last arrival
    for (const Module& mod : s->graph.modules) {
      f.cp_attention.push_back(mod.name.ends_with("attention.core"));
      std::array<int, 4> classes{-1, -1, -1, -1};
      if (f.cp_attention.back() && !ulysses) {
        classes = {ComputeClassOf(s, mod.work, false, BackwardPart::kWhole, 1 - last),
                   ComputeClassOf(s, mod.work, false, BackwardPart::kWhole, last),
                   ComputeClassOf(s, mod.work, true, BackwardPart::kWhole, 1 - last),
                   ComputeClassOf(s, mod.work, true, BackwardPart::kWhole, last)};
      }
      f.cp_chunk_class.push_back(classes);
    }
    // The ring: K and V of the rank's s/c tokens, kv / t wide each, 16-bit; gathered over c ranks.
    f.cp_kv_bytes = s->context * 2.0 * 2.0 * s->tokens_per_micro_step * KvWidth(m) / s->tensor;
    // PyTorch's all-gather rotation passes the key/value gradients round the ring in fp32 (_cp_options.
    // convert_to_f32, its default: grad_key / grad_value accumulate in float32 and travel so): twice the
    // bytes.
    f.cp_dkv_bytes = 2.0 * f.cp_kv_bytes;
    // Ulysses: each rank's send buffer of its s/c tokens, Q, K and V ((q + 2 kv) / t wide) before the
    // attention, its output (q / t) after it; 16-bit.
    f.cp_qkv_bytes = 2.0 * s->tokens_per_micro_step * (QueryWidth(m) + 2 * KvWidth(m)) / s->tensor;
    f.cp_out_bytes = 2.0 * s->tokens_per_micro_step * QueryWidth(m) / s->tensor;
  }
  return f;
}

namespace {

// One TP collective of buffer `bytes` over the tensor group after `dep`, then the compute stream's wait for
// it (EmitModuleCompute).
void TensorCollective(OpEmitter* emit, CollectiveKind kind, double bytes, double element_bytes, int dep) {
  const int c = emit->Collective(Queue::kNcclTp, kind, GroupKind::kTensor, bytes, element_bytes,
                                 Purpose::kTensorParallel, {dep});
  emit->Wait(Queue::kCompute, {c});
}

// An all-to-all of send buffer `bytes` over `group` (kExpert or kContext) on `queue` after `dep`, then the
// compute stream's wait for it; returns the wait.
int WaitedAllToAll(OpEmitter* emit, Queue queue, GroupKind group, double bytes, Purpose purpose, int dep) {
  const int c = emit->Collective(queue, CollectiveKind::kAllToAll, group, bytes, 2.0, purpose, {dep});
  return emit->Wait(Queue::kCompute, {c});
}

}  // namespace

int EmitModuleCompute(const Schedule& s, const ScheduleFrame& f, const TraceStep& ts, OpEmitter* emit,
                      std::initializer_list<int> deps) {
  const Module& mod = s.graph.modules[static_cast<size_t>(ts.module)];
  // Megatron's accounting: backward costs twice the forward; a recompute once.
  const bool backward = ts.phase == Phase::kBackward;
  const double flops = mod.forward_flops * (backward ? 2.0 : 1.0);
  const int cls = (backward ? f.backward_class : f.forward_class)[static_cast<size_t>(ts.module)];
  const EpRole ep = f.ep_role.empty() ? EpRole::kNone : f.ep_role[static_cast<size_t>(ts.module)];
  if (ep != EpRole::kNone) {
    // Expert parallelism (see the header): the all-to-all before the experts' pass where its rows arrive
    // (forward dispatch, backward combine gradient), after it where they leave.
    // With the allgather dispatcher (parallel_layout.h MoeDispatcher) the tokens arrive by an all-gather and
    // leave by a reduce-scatter (in the backward the gradients: the combine's gathered, the dispatch's
    // scattered).
    const bool gather = s.moe_token_dispatcher == MoeDispatcher::kAllGather;
    auto exchange = [&](bool arriving, int dep) {
      if (!gather) {
        return WaitedAllToAll(emit, Queue::kNcclEp, GroupKind::kExpert, f.ep_buffer_bytes,
                              Purpose::kExpertParallel, dep);
      }
      const double bytes = arriving ? (backward ? f.ep_hidden_bytes : f.ep_gather_bytes)
                                    : (backward ? f.ep_gradient_scatter_bytes : f.ep_hidden_bytes);
      const int c = emit->Collective(Queue::kNcclEp,
                                     arriving ? CollectiveKind::kAllGather : CollectiveKind::kReduceScatter,
                                     GroupKind::kExpert, bytes, 2.0, Purpose::kExpertParallel, {dep});
      return emit->Wait(Queue::kCompute, {c});
    };
    const bool before = backward == (ep == EpRole::kCombine);
    if (before) exchange(true, emit->tail(Queue::kCompute));
    const int compute = emit->Compute(flops, cls, deps);
    if (!before) exchange(false, compute);
    return compute;
  }
  if (!f.cp_attention.empty() && f.cp_attention[static_cast<size_t>(ts.module)] &&
      s.context_comm == ContextComm::kAllToAll) {
    // Ulysses' all-to-alls (see the header): Q, K, V before and the output after in the forward, the output's
    // gradient before and Q, K, V's after in the backward; the compute stream waits for each.
    auto all_to_all = [&](double bytes, int dep) {
      return WaitedAllToAll(emit, Queue::kNcclCp, GroupKind::kContext, bytes, Purpose::kContextParallel, dep);
    };
    all_to_all(backward ? f.cp_out_bytes : f.cp_qkv_bytes, emit->tail(Queue::kCompute));
    const int compute = emit->Compute(flops, cls, deps);
    all_to_all(backward ? f.cp_qkv_bytes : f.cp_out_bytes, compute);
    return compute;
  }
  if (!f.cp_chunk_class.empty() && f.cp_chunk_class[static_cast<size_t>(ts.module)][0] >= 0 &&
      s.context_comm == ContextComm::kAllGather) {
    // PyTorch's all-gather rotation (see the header): the gather beside the local 1/c of the kernel, the rest
    // after it; in the backward the fp32 key/value gradients' ring beside the rest, waited for at the end.
    const std::array<int, 4>& chunk = f.cp_chunk_class[static_cast<size_t>(ts.module)];
    const double local = 1.0 / s.context;
    const int gather =
        emit->Collective(Queue::kNcclCp, CollectiveKind::kAllGather, GroupKind::kContext, f.cp_kv_bytes, 2.0,
                         Purpose::kContextParallel, {emit->tail(Queue::kCompute)});
    const int first = emit->Compute(flops * local, chunk[backward ? 3 : 1], deps);
    emit->Wait(Queue::kCompute, {gather});
    if (!backward) return emit->Compute(flops * (1 - local), chunk[0], {first});
    const int ring = emit->Collective(Queue::kNcclCp, CollectiveKind::kReduceScatter, GroupKind::kContext,
                                      f.cp_dkv_bytes, 4.0, Purpose::kContextParallel, {first, gather});
    const int rest = emit->Compute(flops * (1 - local), chunk[2], {first});
    emit->Wait(Queue::kCompute, {ring});
    return rest;
  }
  if (!f.cp_chunk_class.empty() && f.cp_chunk_class[static_cast<size_t>(ts.module)][0] >= 0) {
    // Context parallelism's ring (see the header).
    const std::array<int, 4>& chunk = f.cp_chunk_class[static_cast<size_t>(ts.module)];
    const double last = 1.0 / s.context;
    const int gather =
        emit->Collective(Queue::kNcclCp, CollectiveKind::kAllGather, GroupKind::kContext, f.cp_kv_bytes, 2.0,
                         Purpose::kContextParallel, {emit->tail(Queue::kCompute)});
    int ring = gather;
    if (backward) {
      ring = emit->Collective(Queue::kNcclCp, CollectiveKind::kReduceScatter, GroupKind::kContext,
                              f.cp_kv_bytes, 2.0, Purpose::kContextParallel, {gather});
    }
    const int early = emit->Compute(flops * (1 - last), chunk[backward ? 2 : 0], deps);
    emit->Wait(Queue::kCompute, {ring});
    return emit->Compute(flops * last, chunk[backward ? 3 : 1], {early});
  }
  if (f.tp_role.empty()) return emit->Compute(flops, cls, deps);
  // Tensor parallelism (see the header for the sources).
  const TpRole role = f.tp_role[static_cast<size_t>(ts.module)];
  const bool sp = s.sequence_parallel;
  const double x = f.tp_activation_bytes;
  const bool column = role == TpRole::kColumn || role == TpRole::kHead;
  const bool gathers_before =
      sp && (column || (backward && (role == TpRole::kRow || role == TpRole::kEmbedding)));
  // With tp_comm_overlap the transformer layer's linear GEMMs (TransformerEngine's Linear / LayerNormLinear:
  // QKV, attention projection, fc1, fc2; not the embedding nor the output layer, which are Megatron's own
  // parallel layers) overlap their collectives (EmitOverlappedGather / the pipelined reduce-scatter below).
  const bool overlap = s.tp_comm_overlap && (role == TpRole::kColumn || role == TpRole::kRow);
  int gather = -1;  // an overlapped all-gather the compute stream waits for before the op that needs it
  if (gathers_before) {
    if (overlap) {
      gather = emit->Collective(Queue::kNcclTp, CollectiveKind::kAllGather, GroupKind::kTensor, x, 2.0,
                                Purpose::kTensorParallel, {emit->tail(Queue::kCompute)});
    } else {
      TensorCollective(emit, CollectiveKind::kAllGather, x, 2.0, emit->tail(Queue::kCompute));
    }
  }
  if (backward && column) {
    // The input gradient's all-reduce (SP: reduce-scatter) overlaps the weight-gradient GEMM: launched after
    // the input-gradient part, waited after the weight-gradient part (layers.py); Megatron's count splits
    // evenly, a linear layer's two backward GEMMs having the same FLOPs. With tp_comm_overlap the input's
    // all-gather (for the weight gradient) overlaps the input-gradient GEMM too (userbuffers' "bulk" overlap of
    // qkv_dgrad / fc1_dgrad: Megatron-Bridge comm_overlap.py's userbuffers_*_h100_* configs).
    const auto m = static_cast<size_t>(ts.module);
    const int input = emit->Compute(flops / 2, f.tp_input_gradient_class[m], deps);
    const int c =
        emit->Collective(Queue::kNcclTp, sp ? CollectiveKind::kReduceScatter : CollectiveKind::kAllReduce,
                         GroupKind::kTensor, x, 2.0, Purpose::kTensorParallel, {input});
    if (gather >= 0) emit->Wait(Queue::kCompute, {gather});
    const int weight = emit->Compute(flops / 2, f.tp_weight_gradient_class[m], {input});
    emit->Wait(Queue::kCompute, {c});
    return weight;
  }
  if (gather >= 0) {
    // Ring-exchange overlap (qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad: TransformerEngine
    // CommOverlapP2PBase::split_overlap_ag): the GEMM runs on the local chunk while the t - 1 remote chunks
    // arrive, one per step, each GEMM'd as it lands; the last chunk's GEMM follows the last arrival. As two
    // ops: (t - 1)/t of the GEMM beside the all-gather, then the last 1/t after both (the chunks in between
    // interleave and are not resolved).
    const double last = 1.0 / s.tensor;
    const auto& chunk =
        (backward ? f.tp_backward_chunk_class : f.tp_forward_chunk_class)[static_cast<size_t>(ts.module)];
    const int early = emit->Compute(flops * (1 - last), chunk[0], deps);
    emit->Wait(Queue::kCompute, {gather});
    return emit->Compute(flops * last, chunk[1], {early});
  }
  const bool reduces_after = !backward && (role == TpRole::kRow || role == TpRole::kEmbedding);
  if (reduces_after && overlap) {
    // Pipelined overlap (proj_fprop, fc2_fprop: TransformerEngine CommOverlapBase::split_overlap_rs): the GEMM
    // in kUserbufferSplits chunks, each chunk's reduce-scatter launched as it finishes, beside the next chunk's
    // GEMM; the last chunk's reduce-scatter is exposed. As ops: the first chunk, then the remaining chunks'
    // GEMM beside the first chunks' reduce-scatter, then the last chunk's reduce-scatter.
    const double chunk = 1.0 / kUserbufferSplits;
    const CollectiveKind rs = sp ? CollectiveKind::kReduceScatter : CollectiveKind::kAllReduce;
    const auto& classes = f.tp_forward_chunk_class[static_cast<size_t>(ts.module)];
    const int first = emit->Compute(flops * chunk, classes[0], deps);
    const int early = emit->Collective(Queue::kNcclTp, rs, GroupKind::kTensor, x * (1 - chunk), 2.0,
                                       Purpose::kTensorParallel, {first});
    const int rest = emit->Compute(flops * (1 - chunk), classes[1], {first});
    const int tail = emit->Collective(Queue::kNcclTp, rs, GroupKind::kTensor, x * chunk, 2.0,
                                      Purpose::kTensorParallel, {rest});
    emit->Wait(Queue::kCompute, {early, tail});
    return rest;
  }
  const int compute = emit->Compute(flops, cls, deps);
  if (reduces_after) {
    TensorCollective(emit, sp ? CollectiveKind::kReduceScatter : CollectiveKind::kAllReduce, x, 2.0, compute);
  }
  if (role == TpRole::kHead && ts.phase == Phase::kForward) {
    // vocab_parallel_cross_entropy: the max logit, the target's logit and the sum of exponentials.
    for (int k = 0; k < 3; ++k) {
      TensorCollective(emit, CollectiveKind::kAllReduce, f.tp_loss_bytes, 4.0, emit->tail(Queue::kCompute));
    }
  }
  return compute;
}

void ReadyGradients(const Schedule& s, const ScheduleFrame& f, int step, std::vector<int>* out) {
  out->clear();
  const TraceStep& ts = f.trace[static_cast<size_t>(step)];
  if (ts.phase != Phase::kBackward) return;
  for (int p : s.graph.modules[static_cast<size_t>(ts.module)].params) {
    if (f.last_backward[static_cast<size_t>(p)] == step) out->push_back(p);
  }
}

int EmitOptimizerStep(const ZeroConfig& z, Schedule* s, OpEmitter* emit) {
  emit->SetContext(Phase::kOptimizer, z.gradient_accumulation_steps - 1, -1);
  emit->Host(z.runtime.host_overhead_per_module_s);
  const double partition = std::ceil(s->ShardedElements(s->optimizer_shards));
  return emit->Memory(Queue::kCompute, AdamStepBytesPerParam(z.precision) * partition, {});
}

void FinishSchedule(Schedule* s) { s->compact = CompactOps(s->ops, s->collective_classes.size()); }

}  // namespace zerosim::model
