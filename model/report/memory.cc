#include "model/report/memory.h"

#include <algorithm>

#include "model/report/runtime_memory.h"

namespace zerosim::model {

double BlockActivationBytes(const ModelSpec& m, double micro_batch, RecomputePolicy policy,
                            const ParallelLayout& layout, ModuleRecompute modules) {
  // With context parallelism a rank keeps its s/c tokens' tensors (Megatron-Core's ring attention saves the
  // local Q, K, V, output and log-sum-exp; the other ranks' K and V are sent again in the backward, not
  // kept).
  const double b = micro_batch, s = layout.rank_tokens(m.seq_len), h = m.hidden, a = m.heads,
               f = m.ffn_hidden;
  const double kv = KvWidth(m), q = QueryWidth(m);  // q = h unless the model's head_dim says otherwise
  const double sb = s * b;
  // Tensor parallelism (Korthikanti et al. 2022 sec. 4.2, Table 2): what lies inside the TP regions (Q, K, V,
  // the core and its output, the MLP's intermediates) is split over t; the rest (the QKV and MLP inputs,
  // the norm inputs, the two output dropout masks: 10sbh for GPT) only with sequence parallelism.
  const double tp = layout.tensor;
  const double sp = layout.sequence_parallel ? tp : 1.0;
  if (policy == RecomputePolicy::kSelectiveOp) {
    // torchtitan's op-level policy (RecomputePolicy): the block input, then the saved outputs. The
    // row-parallel w2's saved output is its unreduced h-wide product: whole on every rank.
    const bool flash = m.attention != AttentionImpl::kUnfused;
    const double attention = (sb * (2 * q + 2 * kv) + (flash ? sb * 2 * q + 4.0 * a * s * b : 0.0)) / tp;
    const double mlp = m.mlp == MlpKind::kGelu ? sb * 2 * f / tp : sb * 2 * f / tp + sb * 2 * h;
    return sb * 2 * h / sp + attention + mlp;
  }
  const double mask = m.dropout > 0 ? 1.0 : 0.0;  // bytes per element of a dropout mask
  // The norms' outputs (the QKV and MLP inputs) unless Megatron's layernorm module recompute re-runs the
  // norms.
  const double norm_output = modules.layernorm ? 0.0 : 2 * h;
  const double attention = sb * (norm_output + mask * h) / sp + sb * (2 * q + 2 * kv + 2 * kv + 2 * q) / tp;
  const double per_width =
      m.mlp == MlpKind::kGelu ? 4.0 : 6.0;  // intermediate bytes per token and unit width
  double mlp_per_token = per_width * f;
  if (IsMoe(m) && m.layers > 0) {
    // memory.h: the MoE blocks' routed rows and the shared experts, averaged with the dense blocks'.
    const double rows = m.experts_per_token * layout.expert_load_imbalance;
    // moe_act module recompute: the activation's output (2 bytes per unit of width) is re-run, not kept.
    const double routed_width = modules.moe_act ? per_width - 2.0 : per_width;
    const double moe = 8.0 * m.experts + rows * (2 * h + routed_width * m.moe_ffn_hidden + 2 * h) +
                       per_width * m.shared_expert_ffn;
    const double moe_blocks = MoeLayers(m);
    mlp_per_token = (moe_blocks * moe + (m.layers - moe_blocks) * per_width * f) / m.layers;
  }
  const double mlp = sb * (norm_output + mask * h) / sp + sb * mlp_per_token / tp;
  const double norms = sb * 4 * h / sp;
  double core = 0;
  if (m.attention == AttentionImpl::kUnfused) {
    if (policy != RecomputePolicy::kSelective) core = a * s * s * b * (4.0 + mask) / tp;
  } else {
    core = 4.0 * a * s * b / tp;
  }
  return attention + mlp + norms + core;
}

double LossBytesPerLogit(LossImpl loss, int tensor) {
  // memory.h: the peak of each implementation's working set over the logits.
  switch (loss) {
    case LossImpl::kFused:
      return 6.0;
    case LossImpl::kEager:
      return tensor > 1 ? 16.0 : 12.0;
    case LossImpl::kCompiled:
      return 4.0;
  }
  return 6.0;
}

int CheckpointedBlocks(const ModelSpec& m, RecomputePolicy policy, int block_interval) {
  switch (policy) {
    case RecomputePolicy::kFull:
    case RecomputePolicy::kOffload:
      return m.layers;
    case RecomputePolicy::kSelectiveBlock:
      return block_interval >= 1 ? m.layers / block_interval : 0;
    case RecomputePolicy::kNone:
    case RecomputePolicy::kSelective:
    case RecomputePolicy::kSelectiveOp:
      return 0;
  }
  return 0;
}

double ActivationBytes(const ModelSpec& m, double micro_batch, RecomputePolicy policy, int block_interval,
                       const ParallelLayout& layout, double saved_copies, ModuleRecompute modules) {
  // The checkpointed block input is the sequence shard with SP (Korthikanti sec. 5: 2sbhL / t).
  const double sp = layout.sequence_parallel ? layout.tensor : 1.0;
  const double layer_input = 2.0 * layout.rank_tokens(m.seq_len) * micro_batch * m.hidden / sp;
  const double working_set = BlockActivationBytes(m, micro_batch, RecomputePolicy::kNone, layout);
  const double n = saved_copies;
  switch (policy) {
    case RecomputePolicy::kNone:
    case RecomputePolicy::kSelective:
      return n * m.layers * BlockActivationBytes(m, micro_batch, policy, layout, modules);
    case RecomputePolicy::kFull:
      return n * m.layers * layer_input + working_set;
    case RecomputePolicy::kOffload:
      return working_set;
    case RecomputePolicy::kSelectiveOp:
      return n * m.layers * BlockActivationBytes(m, micro_batch, policy, layout) + working_set;
    case RecomputePolicy::kSelectiveBlock: {
      const int k = CheckpointedBlocks(m, policy, block_interval);
      return n * (k * layer_input + (m.layers - k) * working_set) + (k > 0 ? working_set : 0.0);
    }
  }
  return 0.0;
}

double SavedActivationTensors(const ModelSpec& m, RecomputePolicy policy, int block_interval,
                              double saved_copies) {
  const double masks = m.dropout > 0 ? 2.0 : 0.0;
  const bool unfused = m.attention == AttentionImpl::kUnfused;
  const double core =
      unfused ? (policy == RecomputePolicy::kSelective ? 0.0 : 2.0 + (m.dropout > 0 ? 1.0 : 0.0)) : 1.0;
  const double block = 5.0 + 3.0 + 2.0 + masks + core;
  const double n = saved_copies;
  switch (policy) {
    case RecomputePolicy::kNone:
    case RecomputePolicy::kSelective:
      return n * m.layers * block;
    case RecomputePolicy::kFull:
      return n * m.layers + block;
    case RecomputePolicy::kOffload:
      return block;
    case RecomputePolicy::kSelectiveOp: {
      // block input, wq, wv, the SDPA output and log-sum-exp (flash), the saved MLP matmuls
      const double saved = 1.0 + 2.0 + (unfused ? 0.0 : 2.0) + (m.mlp == MlpKind::kGelu ? 1.0 : 2.0);
      return n * m.layers * saved + block;
    }
    case RecomputePolicy::kSelectiveBlock: {
      const int k = CheckpointedBlocks(m, policy, block_interval);
      return n * (k + (m.layers - k) * block) + (k > 0 ? block : 0.0);
    }
  }
  return 0.0;
}

double LargeParameterTensors(const std::vector<Param>& params, double element_bytes, double shards) {
  double n = 0;
  for (const Param& p : params) {
    if (element_bytes * p.numel() / shards > kAllocatorRoundingPerTensorBytes) n += 1;
  }
  return n;
}

MemoryBreakdown EstimateMemory(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                               const Schedule& s, const PipelineResidency& pipeline) {
  MemoryBreakdown r;
  const double psi = s.partitioned_elements;
  const double bytes = BytesPerElement(m.dtype);
  // Each state over the ranks the strategy partitions it across (Schedule::param_shards, ...; 1 when
  // replicated): ZeRO's 2 + 2 + 12 bytes per parameter. FSDP keeps a fp32 sharded FlatParameter (4), its fp32
  // gradient (4) and Adam's two moments (8) instead: the same 16 bytes over the shards. The number formats
  // (precision.h) change the gradient and optimizer-state bytes.
  const Precision& prec = z.precision;
  r.parameters_bytes = bytes * psi / s.param_shards + bytes * s.persistent_elements;
  r.gradients_bytes = GradientPartitionBytes(prec) * psi / s.gradient_shards;
  r.optimizer_states_bytes = OptimizerStateBytesPerParam(prec) * psi / s.optimizer_shards;
  if (s.expert >
      1) {  // the routed experts' states over their expert-data-parallel group (Schedule::ShardedElements)
    r.parameters_bytes = bytes * s.ShardedElements(s.param_shards) + bytes * s.persistent_elements;
    r.gradients_bytes = GradientPartitionBytes(prec) * s.ShardedElements(s.gradient_shards);
    r.optimizer_states_bytes = OptimizerStateBytesPerParam(prec) * s.ShardedElements(s.optimizer_shards);
  }
  if (z.hpz_enabled()) r.hpz_secondary_bytes = bytes * psi / z.zero_hpz_partition_size;
  r.gathered_parameters_bytes =
      s.peak_gathered_bytes > 0 ? s.peak_gathered_bytes : bytes * s.peak_gathered_elements;
  // FSDP2 on a pipeline stage (PipelineResidency): torchtitan shards with reshard_after_forward = not
  // pp_enabled (torchtitan/models/llama3/infra/parallelize.py apply_fsdp: "For PP, do not reshard after forward
  // to avoid per-microbatch all-gathers"), so the stage's parameters stay unsharded from the first micro-batch's
  // forward to the last one's backward; and torch.distributed.pipelining syncs gradients on the last backward
  // only (stage.py backward_maybe_with_nosync: set_requires_gradient_sync(False) before it), so each unsharded
  // parameter's 16-bit gradient accumulates until then. Both whole at the stage's peak.
  const bool fsdp2_stage = z.strategy == Strategy::kFsdp2 && pipeline.chunk_layers > 0 && s.param_shards > 1;
  if (fsdp2_stage) r.gathered_parameters_bytes = std::max(r.gathered_parameters_bytes, bytes * psi);

  r.buffers_bytes = bytes * s.reduce_buffer_elements + s.accumulated_gradient_bytes;
  if (fsdp2_stage) r.buffers_bytes += bytes * psi;  // the unsharded gradients accumulating (above)
  // communication_data_type wider than the model's: DeepSpeed casts the bucket to it before the reduce
  // (stage3.py __avg_scatter_grads), a second buffer of the bucket in that format; FSDP1 casts the unit's
  // unsharded gradient (grad.to(reduce_dtype)) and FSDP2 copies it into a reduce-dtype reduce-scatter input
  // (fsdp_builder.cc), a buffer of the largest unit in that format beside its 16-bit gradient.
  const double reduce_bytes = GradientReduceBytes(prec);
  if (reduce_bytes != bytes) {
    r.buffers_bytes += reduce_bytes * s.reduce_buffer_elements;
  }
  if (z.zero_quantized_gradients && c.nodes > 1) {
    r.buffers_bytes += 2.0 * s.largest_matrix_elements * z.gradient_quantization_bits / 8.0;
  }

  const double b = z.train_micro_batch_size_per_gpu;
  // With tensor parallelism one rank's share (memory.h ActivationBytes) and its V/t logits (the logit layer
  // is vocabulary parallel).
  // A pipeline stage keeps the saved activations of its chunks in flight, each chunk_layers blocks
  // (PipelineResidency); only the last stage has logits, those of the micro-batch whose loss it computes.
  ModelSpec chunk = m;
  if (pipeline.chunk_layers > 0) chunk.layers = pipeline.chunk_layers;
  const double copies = pipeline.chunk_layers > 0 ? pipeline.chunks_in_flight : 1.0;
  const double logits = m.has_head ? LossBytesPerLogit(z.loss, s.tensor) * b *
                                         s.layout().rank_tokens(m.seq_len) * m.vocab / s.tensor
                                   : 0.0;
  r.activations_bytes = ActivationBytes(chunk, b, RecomputeOf(z), z.recompute_block_interval, s.layout(),
                                        copies, ModuleRecompute{z.recompute_layernorm, z.recompute_moe_act}) +
                        logits;

  // The process's own memory besides the tensors (runtime_memory.h): the tensors kept at the peak that take
  // large-pool blocks are the saved activations and the parameters whose partition (or shard) exceeds the
  // allocator's kSmallSize of 1 MiB (smaller ones come from 2 MiB small-pool segments, rounded to 512 B).
  const double live_tensors =
      SavedActivationTensors(chunk, RecomputeOf(z), z.recompute_block_interval, copies) +
      LargeParameterTensors(s.graph.params, bytes, s.param_shards);
  const RuntimeMemory rt = EstimateRuntimeMemory(z, c, s, live_tensors);
  r.cuda_context_bytes = rt.cuda_context_bytes;
  r.nccl_buffers_bytes = rt.nccl_buffers_bytes;
  r.cublas_workspace_bytes = rt.cublas_workspace_bytes;
  r.allocator_rounding_bytes = rt.allocator_rounding_bytes;
  r.reserve_bytes = rt.reserve_bytes;
  // The tensors allocated and freed within the iteration fragment the allocator's segments
  // (runtime_memory.h AllocatorFragmentationBytes), on the stack the fraction is fitted on (FSDP2, torchtitan's
  // runs) only: no published memory figure of another stack exists to fit it on, and runs of those stacks that
  // ran sit up to 99.3% of their GPU (runtime_memory.h "reserve"), which the FSDP2 fraction would refuse.
  if (z.strategy == Strategy::kFsdp2) {
    r.fragmentation_bytes =
        AllocatorFragmentationBytes(r.activations_bytes + r.gathered_parameters_bytes + r.buffers_bytes);
  }

  r.active_bytes = r.parameters_bytes + r.gradients_bytes + r.optimizer_states_bytes + r.hpz_secondary_bytes +
                   r.gathered_parameters_bytes + r.buffers_bytes + r.activations_bytes + r.cublas_workspace_bytes;
  r.reserved_bytes = r.active_bytes + r.allocator_rounding_bytes + r.fragmentation_bytes;
  r.total_bytes = r.reserved_bytes + r.cuda_context_bytes + r.nccl_buffers_bytes + r.reserve_bytes;
  r.hbm_bytes = c.gpu.hbm_bytes;
  return r;
}

}  // namespace zerosim::model
