// Memory per GPU of ZeRO-3 / ZeRO++ training, in bytes (mixed precision with Adam, as DeepSpeed runs it).
//   parameters        2 * Psi / P (fp16 partition) + 2 * persistent elements (kept whole on every GPU)
//   gradients         2 * Psi / P (fp16 gradient partition)
//   optimizer states  12 * Psi / P (fp32 master weights, Adam momentum and variance)
//                     -> 16 bytes per parameter over P, the ZeRO paper's accounting (Rajbhandari et al.
//                        2020, sec. 3)
//   hpZ secondary     2 * Psi / h (ZeRO++ sec. 3.2: the secondary partition, fp16)
//   gathered          2 * the most parameter elements gathered at once (the schedule's peak)
//   buffers           the gradient bucket (2 * reduce_bucket_size with contiguous gradients) and qgZ's
//                     int4 send/receive buffers for the largest matrix
//   activations       Korthikanti et al. 2022 ("Reducing Activation Recomputation", eq. 1): a block's
//                     activations take s*b*h*(34 + 5*a*s/h) bytes; with full recompute only each block's
//                     input (2*s*b*h) is kept plus one block's working set; plus the logits, fp16 and fp32
//                     for the loss (6*b*s*V)
#pragma once

#include <string>

#include "model/cluster_spec.h"
#include "model/model_spec.h"
#include "model/schedule.h"
#include "model/zero_config.h"

namespace zerosim::model {

struct MemoryBreakdown {
  double parameters_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_states_bytes = 0;
  double hpz_secondary_bytes = 0;
  double gathered_parameters_bytes = 0;
  double buffers_bytes = 0;
  double activations_bytes = 0;
  double total_bytes = 0;
  double hbm_bytes = 0;  // the GPU's memory, for comparison
};

MemoryBreakdown EstimateMemory(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                               const Schedule& s);

}  // namespace zerosim::model
