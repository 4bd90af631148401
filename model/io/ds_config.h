// Reading a DeepSpeed config (`ds_config.json`, DeepSpeed's docs/config-json): `deepspeed_config = "..."` in
// a scenario, and `zerosim run --ds-config`. The keys ZeroSim models set a ZeroConfig (over `base`) and the
// training dtype:
// - train_micro_batch_size_per_gpu, gradient_accumulation_steps: integers >= 1;
// - fp16.enabled, bf16.enabled: booleans (not both true);
// - zero_optimization.stage: 3 (other stages are an error until they are modeled);
// - zero_optimization.zero_quantized_weights, .zero_quantized_gradients, .overlap_comm,
//   .contiguous_gradients: booleans; .zero_hpz_partition_size: an integer >= 1;
// - zero_optimization.stage3_prefetch_bucket_size, .stage3_max_live_parameters, .stage3_max_reuse_distance,
//   .stage3_param_persistence_threshold, .reduce_bucket_size: numbers >= 0 (5e8 or 500000000);
// - communication_data_type: "fp16", "bf16" or "fp32" (the gradient reduction's format);
// data_types.grad_accum_dtype
//   likewise (the gradient partition's); bf16.bf16_master_weights_and_grads, bf16.bf16_optimizer_states:
//   booleans (model/spec/precision.h);
// - activation_checkpointing: an object; its presence means the model checkpoints (Megatron-DeepSpeed passes
//   --checkpoint-activations with it): full recompute, or offload with cpu_checkpointing true.
// - train_batch_size: an integer that must equal micro-batch x accumulation x data-parallel size of each
//   variant it applies to (CheckDsTrainBatch; DeepSpeed's _batch_assertion);
// Every other key DeepSpeed has (ds_keys.h) is listed in `ignored` by its JSON path ("$.steps_per_print",
// "$.zero_optimization.offload_optimizer"), never silently dropped; the report's provenance can show them. A
// key DeepSpeed does not have is an error with a did-you-mean, as is a key given twice in one object
// (DeepSpeed refuses both). A malformed file, a wrong type, a count above 2^53 or "auto" (the Hugging Face
// Trainer's placeholder) is an error naming the file and the JSON path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/io/file_source.h"
#include "model/report/report.h"
#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/zero_config.h"
#include "model/status.h"

namespace zerosim::io {

struct DsConfig {
  model::ZeroConfig zero;             // `base` with the config's keys applied
  std::optional<model::DType> dtype;  // set when fp16 or bf16 is enabled
  std::vector<std::string> ignored;   // JSON paths of DeepSpeed's keys ZeroSim does not model, in file order
  std::optional<int64_t> train_batch_size;  // when given: checked against each variant (CheckDsTrainBatch)
  model::InputFile file;
};

struct Scenario;

// Ok unless `ds` gives a train_batch_size other than zero's micro-batch x accumulation x the data-parallel
// size of `layout` on `cluster`; the error names the file and $.train_batch_size.
Status CheckDsTrainBatch(const DsConfig& ds, const model::ZeroConfig& zero,
                         const model::ParallelLayout& layout, const model::ClusterSpec& cluster);

// `zerosim run --ds-config FILE`: the config's keys over every variant of `s` (each variant's own settings
// are the base, so a config without ZeRO++ keys keeps the variants' differences) and its dtype over every
// variant's model; the file and its ignored keys become the scenario's (for the report's provenance). The
// configuration is not checked here: the caller checks it as it will run, after every what-if
// (study::CheckSomeVariantRuns), so a variant the config makes unrunnable is an infeasible row.
StatusOr<Scenario> ApplyDsConfig(const FileSource& fs, const std::string& path, Scenario s);

StatusOr<DsConfig> LoadDsConfig(const FileSource& fs, const std::string& path, const model::ZeroConfig& base);
// The same from text; `path` is used in messages and provenance.
StatusOr<DsConfig> ParseDsConfig(const std::string& text, const std::string& path,
                                 const model::ZeroConfig& base);

}  // namespace zerosim::io
