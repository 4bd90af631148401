// Reading DeepSpeed settings from a TOML table: the ZeRO keys ([zero] and each [[variant]]) and the
// training keys ([training] and each [[variant]]). Shared by scenarios and sweeps. Every key is optional
// here: absent keys keep the value of `base` (DeepSpeed's defaults for [zero]); the scenario loader
// decides which training keys a file must give.
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

#include "model/cluster_spec.h"
#include "model/feasibility.h"
#include "model/io/table_reader.h"
#include "model/model_spec.h"
#include "model/zero_config.h"

namespace zerosim::io {

// Reads the ZeRO keys present in `t` over `base`, checking them against the cluster (model::CheckZero:
// the hpZ size divides the GPUs per node, ...).
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

// Reports each problem of model/feasibility.h at its key in the first of `tables` that gives that key
// (tokens_per_gpu stands for the micro-batch); a problem no table gives a key for is reported at
// `fallback_key` of `fallback` (e.g. the scenario's `model` for the model's sizes), or at the first table.
void ReportProblems(const std::vector<model::Problem>& problems, std::initializer_list<TableReader*> tables,
                    TableReader* fallback = nullptr, std::string_view fallback_key = {});

}  // namespace zerosim::io
