#include "model/memory.h"

#include <algorithm>

namespace zerosim::model {

MemoryBreakdown EstimateMemory(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                               const Schedule& s) {
  MemoryBreakdown r;
  const double psi = s.partitioned_elements;
  const double p = c.total_gpus();
  const double bytes = BytesPerElement(m.dtype);
  r.parameters_bytes = bytes * psi / p + bytes * s.persistent_elements;
  r.gradients_bytes = bytes * psi / p;
  r.optimizer_states_bytes = 12.0 * psi / p;
  if (z.hpz_enabled()) r.hpz_secondary_bytes = bytes * psi / z.zero_hpz_partition_size;
  r.gathered_parameters_bytes = bytes * s.peak_gathered_elements;

  r.buffers_bytes = z.contiguous_gradients ? bytes * z.reduce_bucket_size : 0;
  if (z.zero_quantized_gradients && c.nodes > 1) {
    r.buffers_bytes += 2.0 * s.largest_matrix_elements * z.gradient_quantization_bits / 8.0;
  }

  const double b = z.train_micro_batch_size_per_gpu, sl = m.seq_len, h = m.hidden, a = m.heads;
  const double block = sl * b * h * (34.0 + 5.0 * a * sl / h);
  const double logits = 6.0 * b * sl * m.vocab;
  r.activations_bytes = z.activation_checkpointing ? m.layers * 2.0 * sl * b * h + block + logits
                                                   : m.layers * block + logits;

  r.total_bytes = r.parameters_bytes + r.gradients_bytes + r.optimizer_states_bytes + r.hpz_secondary_bytes +
                  r.gathered_parameters_bytes + r.buffers_bytes + r.activations_bytes;
  r.hbm_bytes = c.gpu.hbm_bytes;
  return r;
}

}  // namespace zerosim::model
