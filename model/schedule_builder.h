// BuildSchedule: the ops of one training iteration of ZeRO-3 or ZeRO++ (schedule.h), derived from the
// model, the DeepSpeed configuration and the cluster by emulating DeepSpeed stage 3 (fetch_coordinator.h,
// gradient_reducer.h).
//
// One iteration = gradient_accumulation_steps micro-steps, each a forward and a backward pass over the
// module trace, then the optimizer step (fused Adam over the rank's 1/P partition). Per module hook the
// host issues the gathers, the compute stream runs the module, and in the backward pass the module's
// gradients enter the reduction bucket.
#pragma once

#include "model/cluster_spec.h"
#include "model/model_spec.h"
#include "model/schedule.h"
#include "model/zero_config.h"

namespace zerosim::model {

// Preconditions (the loaders check them and report file:line): positive sizes; stage 3; hpZ size
// divides the GPUs per node; seq_len <= max_position_embeddings.
Schedule BuildSchedule(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c);

// Bytes a fused mixed-precision Adam step moves per parameter of the rank's partition: read the fp32
// master weight, momentum and variance and the fp16 gradient; write the three fp32 states and the fp16
// weight (4+4+4+2 + 4+4+4+2 = 28). Other formats: AdamStepBytesPerParam (precision.h), which the builder
// uses.
inline constexpr double kAdamBytesPerParam = 28.0;

}  // namespace zerosim::model
