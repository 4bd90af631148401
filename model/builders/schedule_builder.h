// BuildSchedule: the ops of one training iteration (schedule.h) of the variant's strategy (strategy.h),
// derived from the model, the configuration and the cluster's shape (nodes x GPUs per node: placement.h
// RankShape, which a ClusterSpec converts to; nothing else of the cluster) by emulating the framework that
// runs it: DeepSpeed stage 3, ZeRO++ and MiCS (fetch_coordinator.h, gradient_reducer.h), DeepSpeed stages 1
// and 2 (BuildZero12Schedule), PyTorch FSDP and FSDP2 (BuildFsdpSchedule).
//
// One iteration = gradient_accumulation_steps micro-steps, each a forward and a backward pass over the
// module trace, then the optimizer step (fused Adam over the rank's 1/P partition). Per module hook the
// host issues the gathers, the compute stream runs the module, and in the backward pass the module's
// gradients enter the reduction bucket.
#pragma once

#include "model/placement/placement.h"
#include "model/schedule/schedule.h"
#include "model/spec/model_spec.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

// Preconditions (the loaders check them and report file:line): positive sizes; hpZ size divides the GPUs
// per node; a shard group size that divides the GPUs per node or is a multiple of it dividing the world;
// seq_len <= max_position_embeddings.
Schedule BuildSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c);

// The strategy builders BuildSchedule dispatches to (zero12_builder.cc, fsdp_builder.cc).
Schedule BuildZero12Schedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c);
Schedule BuildFsdpSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c);

// Bytes a fused mixed-precision Adam step moves per parameter of the rank's partition: read the fp32
// master weight, momentum and variance and the fp16 gradient; write the three fp32 states and the fp16
// weight (4+4+4+2 + 4+4+4+2 = 28). Other formats: AdamStepBytesPerParam (precision.h), which the builder
// uses.
inline constexpr double kAdamBytesPerParam = 28.0;

}  // namespace zerosim::model
