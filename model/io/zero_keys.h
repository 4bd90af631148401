// Reading DeepSpeed settings from a TOML table: the ZeRO keys ([zero] and each [[variant]]) and the
// training keys ([training] and each [[variant]]). Shared by scenarios and sweeps. Every key is optional
// here: absent keys keep the value of `base` (DeepSpeed's defaults for [zero]); the scenario loader
// decides which training keys a file must give.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/io/input_key.h"
#include "model/io/table_reader.h"
#include "model/spec/feasibility.h"
#include "model/spec/model_spec.h"
#include "model/spec/zero_config.h"

namespace zerosim::io {

// The ZeRO settings' plain keys (input_key.h): each read the same way in [zero] and [[variant]], and a sweep
// axis /
// `--set` name with the same range (io/sweep.cc). The keys with rules of their own (strategy, stage, the
// quantization bits, overlap_comm, backward_prefetch, the host times, the precision keys) are read by
// ReadZeroKeys itself.
const std::vector<InputKey<model::ZeroConfig>>& ZeroKeys();

// Reads the ZeRO keys present in `t` over `base`: their syntax and ranges. Whether they can run on the
// cluster (model::CheckZero: the hpZ size divides the GPUs per node, ...) is the caller's one check of the
// whole configuration (model::Validate).
model::ZeroConfig ReadZeroKeys(TableReader* t, const model::ZeroConfig& base);

// Reads the training keys present in `t`: seq_len (into `m`), tokens_per_gpu or
// train_micro_batch_size_per_gpu, gradient_accumulation_steps, activation_checkpointing (into `z`).
void ReadTrainingKeys(TableReader* t, model::ModelSpec* m, model::ZeroConfig* z);

// The [runtime] table: `framework` ("deepspeed": DeepSpeed as BuildSchedule emulates it; "fsdp": PyTorch
// FSDP) and the settings that shape overlap. Absent keys take the framework's cited defaults per variant
// (ApplyRuntime), the framework being that of the variant's strategy unless `framework` is given, in which
// case every variant's strategy must belong to it (model::CheckZero reports it at `strategy`).
struct RuntimeKeys {
  std::optional<model::Framework> framework;
  // `launcher` (model::Launcher): sets the hardware queues' default; absent: the framework's default launcher.
  std::optional<model::Launcher> launcher;
  std::optional<int> cuda_device_max_connections;
  // `software`: the calibration's software generation (model/spec/calibration.h SelectSoftware); empty: its
  // default.
  std::string software;
};

// Reads the table, `host_overhead_per_module` (the framework's host time per module hook, default 0:
// neither stack's has a published figure) straight into `z`, and applies the rest (ApplyRuntime).
RuntimeKeys ReadRuntimeKeys(TableReader* t, model::ZeroConfig* z);

// Sets z's framework (the given one, else its strategy's), its launcher (the given one, else the framework's:
// model::DefaultLauncher) and its hardware queues (the given count, else the launcher's:
// model::LauncherHardwareQueues).
void ApplyRuntime(const RuntimeKeys& r, model::ZeroConfig* z);

// Reports each problem of model/spec/feasibility.h at its key in the first of `tables` that gives that key
// (tokens_per_gpu stands for the micro-batch); a problem no table gives a key for is reported at
// `fallback_key` of `fallback` (e.g. the scenario's `model` for the model's sizes), or at the first table.
void ReportProblems(const std::vector<model::Problem>& problems, const std::vector<TableReader*>& tables,
                    TableReader* fallback = nullptr, std::string_view fallback_key = {});

}  // namespace zerosim::io
