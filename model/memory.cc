#include "model/memory.h"

#include <algorithm>

namespace zerosim::model {

double BlockActivationBytes(const ModelSpec& m, double micro_batch, RecomputePolicy policy) {
  const double b = micro_batch, s = m.seq_len, h = m.hidden, a = m.heads, f = m.ffn_hidden;
  const double kv = KvWidth(m);
  const double sb = s * b;
  const double mask = m.dropout > 0 ? 1.0 : 0.0;  // bytes per element of a dropout mask
  const double attention = sb * (2 * h + 2 * h + 2 * kv + 2 * kv + 2 * h + mask * h);
  const double mlp_per_token = m.mlp == MlpKind::kGelu ? 4.0 * f : 6.0 * f;
  const double mlp = sb * (2 * h + mlp_per_token + mask * h);
  const double norms = sb * 4 * h;
  double core = 0;
  if (m.attention == AttentionImpl::kUnfused) {
    if (policy != RecomputePolicy::kSelective) core = a * s * s * b * (4.0 + mask);
  } else {
    core = 4.0 * a * s * b;
  }
  return attention + mlp + norms + core;
}

double ActivationBytes(const ModelSpec& m, double micro_batch, RecomputePolicy policy) {
  const double layer_input = 2.0 * m.seq_len * micro_batch * m.hidden;
  const double working_set = BlockActivationBytes(m, micro_batch, RecomputePolicy::kNone);
  switch (policy) {
    case RecomputePolicy::kNone:
    case RecomputePolicy::kSelective:
      return m.layers * BlockActivationBytes(m, micro_batch, policy);
    case RecomputePolicy::kFull:
      return m.layers * layer_input + working_set;
    case RecomputePolicy::kOffload:
      return working_set;
  }
  return 0.0;
}

RecomputePolicy RecomputeOf(const ZeroConfig& z) {
  if (z.activation_checkpointing) {
    return z.recompute == RecomputePolicy::kOffload ? RecomputePolicy::kOffload : RecomputePolicy::kFull;
  }
  return z.recompute == RecomputePolicy::kSelective ? RecomputePolicy::kSelective : RecomputePolicy::kNone;
}

MemoryBreakdown EstimateMemory(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                               const Schedule& s) {
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
  if (z.hpz_enabled()) r.hpz_secondary_bytes = bytes * psi / z.zero_hpz_partition_size;
  r.gathered_parameters_bytes = bytes * s.peak_gathered_elements;

  r.buffers_bytes = bytes * s.reduce_buffer_elements;
  // communication_data_type wider than the model's: DeepSpeed casts the bucket to it before the reduce
  // (stage3.py __avg_scatter_grads), a second buffer of the bucket in that format.
  const double reduce_bytes = GradientReduceBytes(prec);
  if (reduce_bytes != bytes && z.framework == Framework::kDeepSpeed) {
    r.buffers_bytes += reduce_bytes * s.reduce_buffer_elements;
  }
  if (z.zero_quantized_gradients && c.nodes > 1) {
    r.buffers_bytes += 2.0 * s.largest_matrix_elements * z.gradient_quantization_bits / 8.0;
  }

  const double b = z.train_micro_batch_size_per_gpu;
  const double logits = 6.0 * b * m.seq_len * m.vocab;
  r.activations_bytes = ActivationBytes(m, b, RecomputeOf(z)) + logits;

  r.total_bytes = r.parameters_bytes + r.gradients_bytes + r.optimizer_states_bytes + r.hpz_secondary_bytes +
                  r.gathered_parameters_bytes + r.buffers_bytes + r.activations_bytes;
  r.hbm_bytes = c.gpu.hbm_bytes;
  return r;
}

}  // namespace zerosim::model
