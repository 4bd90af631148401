#include "model/io/ds_keys.h"

#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "model/io/table_reader.h"

namespace zerosim::io {
namespace {

using nlohmann::ordered_json;

const std::map<std::string, std::set<std::string>>& Sections() {
  static const std::map<std::string, std::set<std::string>> sections = {
      {"",
       {"train_batch_size",
        "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps",
        "optimizer",
        "scheduler",
        "fp16",
        "bf16",
        "bfloat16",
        "amp",
        "gradient_clipping",
        "prescale_gradients",
        "gradient_predivide_factor",
        "sparse_gradients",
        "zero_optimization",
        "zero_allow_untested_optimizer",
        "zero_force_ds_cpu_optimizer",
        "steps_per_print",
        "wall_clock_breakdown",
        "memory_breakdown",
        "dump_state",
        "flops_profiler",
        "activation_checkpointing",
        "sparse_attention",
        "data_efficiency",
        "curriculum_learning",
        "tensorboard",
        "wandb",
        "csv_monitor",
        "comet",
        "elasticity",
        "communication_data_type",
        "seq_parallel_communication_data_type",
        "data_types",
        "compression_training",
        "checkpoint",
        "aio",
        "autotuning",
        "pipeline",
        "disable_allgather",
        "fp32_allreduce",
        "vocabulary_size",
        "nebula",
        "weight_quantization",
        "hybrid_engine",
        "quantize_training",
        "eigenvalue",
        "progressive_layer_drop",
        "dataloader_drop_last",
        "use_data_before_expert_parallel_",
        "torch_autocast",
        "compile",
        "timers",
        "graph_harvesting",
        "sequence_parallel_size",
        "tensor_parallel",
        "zero_allow_comm_data_type_fp32"}},
      // runtime/zero/config.py DeepSpeedZeroConfig: its fields and their stage3_ aliases (populate_by_name).
      {"zero_optimization",
       {"stage",
        "contiguous_gradients",
        "reduce_scatter",
        "reduce_bucket_size",
        "use_multi_rank_bucket_allreduce",
        "allgather_partitions",
        "allgather_bucket_size",
        "overlap_comm",
        "load_from_fp32_weights",
        "elastic_checkpoint",
        "offload_param",
        "offload_optimizer",
        "sub_group_size",
        "cpu_offload_param",
        "cpu_offload_use_pin_memory",
        "cpu_offload",
        "stage3_prefetch_bucket_size",
        "prefetch_bucket_size",
        "stage3_param_persistence_threshold",
        "param_persistence_threshold",
        "stage3_model_persistence_threshold",
        "model_persistence_threshold",
        "stage3_max_live_parameters",
        "max_live_parameters",
        "stage3_max_reuse_distance",
        "max_reuse_distance",
        "stage3_gather_16bit_weights_on_model_save",
        "gather_16bit_weights_on_model_save",
        "stage3_module_granularity_threshold",
        "module_granularity_threshold",
        "stage3_use_all_reduce_for_fetch_params",
        "use_all_reduce_for_fetch_params",
        "stage3_gather_fp16_weights_on_model_save",
        "ignore_unused_parameters",
        "legacy_stage1",
        "round_robin_gradients",
        "zero_hpz_partition_size",
        "zero_quantized_weights",
        "zero_quantized_nontrainable_weights",
        "zero_quantized_gradients",
        "zeropp_loco_param",
        "mics_shard_size",
        "mics_hierarchical_params_gather",
        "memory_efficient_linear",
        "pipeline_loading_checkpoint",
        "override_module_apply",
        "log_trace_cache_warnings"}},
      {"fp16",
       {"enabled", "auto_cast", "loss_scale", "initial_scale_power", "loss_scale_window", "hysteresis",
        "consecutive_hysteresis", "min_loss_scale", "fp16_master_weights_and_grads"}},
      {"bf16",
       {"enabled", "immediate_grad_update", "check_grad_overflow", "bf16_master_weights_and_grads",
        "bf16_optimizer_states"}},
      {"data_types", {"grad_accum_dtype"}},
      {"activation_checkpointing",
       {"partition_activations", "contiguous_memory_optimization", "cpu_checkpointing", "number_checkpoints",
        "synchronize_checkpoint_boundary", "profile"}},
  };
  return sections;
}

const std::set<std::string>& KeysOf(const std::string& section) {
  static const std::set<std::string> none;
  const auto it = Sections().find(section == "bfloat16" ? "bf16" : section);
  return it == Sections().end() ? none : it->second;
}

// One open object or array while parsing: the keys seen (objects) or the elements seen (arrays).
struct Frame {
  bool object = true;
  std::set<std::string> keys;
  std::string key;   // the latest key (objects)
  size_t count = 0;  // elements so far (arrays)
};

std::string PathOf(const std::vector<Frame>& frames) {
  std::string p = "$";
  for (const Frame& f : frames) p += f.object ? "." + f.key : fmt::format("[{}]", f.count - 1);
  return p;
}

}  // namespace

Status ParseJsonWithoutDuplicates(const std::string& text, const std::string& path, ordered_json* out,
                                  const std::string& why) {
  std::vector<Frame> frames;
  std::string duplicate;  // the JSON path of the first key given twice
  auto element = [&frames]() {
    if (!frames.empty() && !frames.back().object) ++frames.back().count;
  };
  const ordered_json::parser_callback_t callback = [&](int /*depth*/, ordered_json::parse_event_t event,
                                                       ordered_json& parsed) {
    using E = ordered_json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        element();
        frames.push_back(Frame{event == E::object_start, {}, {}, 0});
        break;
      case E::object_end:
      case E::array_end:
        if (!frames.empty()) frames.pop_back();
        break;
      case E::key:
        if (!frames.empty()) {
          frames.back().key = parsed.get<std::string>();
          if (!frames.back().keys.insert(frames.back().key).second && duplicate.empty())
            duplicate = PathOf(frames);
        }
        break;
      case E::value:
        element();
        break;
    }
    return true;
  };
  *out = ordered_json::parse(text, callback, /*allow_exceptions=*/false);
  if (out->is_discarded()) return Status::Error(fmt::format("{}: not valid JSON", path));
  if (!duplicate.empty()) {
    return Status::Error(fmt::format(
        "{}: {}: the key is given twice in one object ({})", path, duplicate, why));
  }
  return Status::Ok();
}

bool IsDeepSpeedKey(const std::string& section, const std::string& key) {
  return KeysOf(section).count(key) > 0;
}

std::string UnknownDeepSpeedKey(const std::string& section, const std::string& key) {
  std::string hint;
  size_t best = 3;  // at most 2 edits away
  for (const std::string& k : KeysOf(section)) {
    const size_t d = EditDistance(key, k);
    if (d < best) {
      best = d;
      hint = fmt::format(" (did you mean '{}'?)", k);
    }
  }
  return fmt::format("unknown key: not a DeepSpeed {} key{}", section.empty() ? "config" : section, hint);
}

}  // namespace zerosim::io
