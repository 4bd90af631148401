// Reading DeepSpeed settings from a TOML table: the ZeRO keys ([zero] and each [[variant]]) and the
// training keys ([training] and each [[variant]]). Shared by scenarios and sweeps. Every key is optional
// here: absent keys keep the value of `base` (DeepSpeed's defaults for [zero]); the scenario loader
// decides which training keys a file must give.
#pragma once

#include "model/cluster_spec.h"
#include "model/io/table_reader.h"
#include "model/model_spec.h"
#include "model/zero_config.h"

namespace zerosim::io {

// Reads the ZeRO keys present in `t` over `base`, checking them against the cluster (hpZ size divides
// the GPUs per node, ...).
model::ZeroConfig ReadZeroKeys(TableReader* t, const model::ZeroConfig& base, const model::ClusterSpec& c);

// Reads the training keys present in `t`: seq_len (into `m`), tokens_per_gpu or
// train_micro_batch_size_per_gpu, gradient_accumulation_steps, activation_checkpointing (into `z`).
void ReadTrainingKeys(TableReader* t, model::ModelSpec* m, model::ZeroConfig* z);

// Reads the [runtime] table: `framework` ("deepspeed": DeepSpeed stage 3 as BuildSchedule emulates it;
// the only stack modelled so far) and the settings that shape overlap, with the framework's cited defaults:
// `cuda_device_max_connections` (deepspeed: 1, as Megatron-DeepSpeed's launch scripts export it; CUDA's own
// default is 8) and `host_overhead_per_module` (the framework's host time per module hook, default 0).
// Without a [runtime] table the deepspeed defaults apply.
void ReadRuntimeKeys(TableReader* t, model::ZeroConfig* z);
model::ZeroConfig DeepSpeedRuntimeDefaults(model::ZeroConfig z);

// Checks that hold only for the combination of keys (after all overrides): seq_len set and within
// max_position_embeddings. Reports against `t`, naming `key_hint`.
void CheckTraining(TableReader* t, const model::ModelSpec& m);

}  // namespace zerosim::io
