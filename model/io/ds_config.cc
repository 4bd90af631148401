#include "model/io/ds_config.h"

#include <cmath>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "model/io/ds_keys.h"
#include "model/io/loaders.h"
#include "model/io/precision_keys.h"
#include "model/spec/feasibility.h"

namespace zerosim::io {
namespace {

using nlohmann::ordered_json;

class DsReader {
 public:
  DsReader(std::string file, Status* status, DsConfig* out)
      : file_(std::move(file)), status_(status), out_(out) {}

  void Fail(const std::string& at, const std::string& message) {
    if (status_->ok()) *status_ = Status::Error(fmt::format("{}: {}: {}", file_, at, message));
  }

  static std::string Got(const ordered_json& v) { return v.dump(); }

  bool Bool(const std::string& at, const ordered_json& v) {
    if (v.is_string() && v.get<std::string>() == "auto") {
      Fail(at, "\"auto\" is the Hugging Face Trainer's placeholder; give true or false");
    } else if (!v.is_boolean()) {
      Fail(at, fmt::format("expected a boolean, got {}", Got(v)));
    } else {
      return v.get<bool>();
    }
    return false;
  }

  double Number(const std::string& at, const ordered_json& v, double min) {
    if (v.is_string() && v.get<std::string>() == "auto") {
      Fail(at, "\"auto\" is the Hugging Face Trainer's placeholder; give a number");
    } else if (!v.is_number() || v.get<double>() < min) {
      Fail(at, fmt::format("expected a number >= {}, got {}", min, Got(v)));
    } else {
      return v.get<double>();
    }
    return min;
  }

  // A count of elements (bucket sizes, thresholds): a number from `min` to 2^53, which DeepSpeed keeps as a
  // Python int and ZeroSim as a double exactly; 1e300 would turn bytes into infinities downstream.
  double Count(const std::string& at, const ordered_json& v, double min) {
    const double x = Number(at, v, min);
    constexpr double kMax = 9007199254740992.0;  // 2^53
    if (status_->ok() && x > kMax)
      Fail(at, fmt::format("expected a count of elements from {} to 2^53, got {}", min, Got(v)));
    return x > kMax ? min : x;
  }

  int Int(const std::string& at, const ordered_json& v, int min) {
    const double x = Number(at, v, min);
    if (!status_->ok()) return min;
    if (x > 2147483647.0) {
      Fail(at, fmt::format("expected an integer from {} to 2147483647, got {}", min, Got(v)));
      return min;
    }
    if (x != std::floor(x)) Fail(at, fmt::format("expected an integer, got {}", Got(v)));
    return static_cast<int>(x);
  }

  // A key of `section` that ZeroSim does not read: listed as ignored (not modelled) when DeepSpeed has it, an
  // error with a did-you-mean when DeepSpeed does not (a misspelt key would otherwise keep a default
  // silently).
  void Other(const std::string& section, const std::string& at, const std::string& key) {
    if (IsDeepSpeedKey(section, key)) {
      out_->ignored.push_back(at);
    } else {
      Fail(at, UnknownDeepSpeedKey(section, key));
    }
  }

  // `fp16` or `bf16`: `enabled`, and in `bf16` the master-weight and optimizer-state formats
  // (runtime/config.py: bf16_master_weights_and_grads, bf16_optimizer_states; model/spec/precision.h).
  bool Precision(const std::string& at, const ordered_json& v) {
    if (!v.is_object()) {
      Fail(at, fmt::format("expected an object, got {}", Got(v)));
      return false;
    }
    const bool bf16 = at != "$.fp16";  // "$.bf16", or DeepSpeed's older name "$.bfloat16"
    bool enabled = false;
    model::Precision& p = out_->zero.precision;
    for (const auto& [key, value] : v.items()) {
      if (key == "enabled") {
        enabled = Bool(at + ".enabled", value);
      } else if (bf16 && key == "bf16_master_weights_and_grads") {
        p.bf16_master_weights_and_grads = Bool(at + "." + key, value);
      } else if (bf16 && key == "bf16_optimizer_states") {
        p.bf16_optimizer_states = Bool(at + "." + key, value);
      } else {
        Other(bf16 ? "bf16" : "fp16", at + "." + key, key);
      }
    }
    return enabled;
  }

  // A format string ("fp16", "bf16", "fp32"; DeepSpeed lowers it; null means the default).
  void Format(const std::string& at, const ordered_json& v, model::FloatFormat* f) {
    if (v.is_null()) return;
    if (!v.is_string()) {
      Fail(at, fmt::format("expected \"fp16\", \"bf16\" or \"fp32\", got {}", Got(v)));
    } else if (!ParseFloatFormat(v.get<std::string>(), f)) {
      Fail(at, fmt::format("unknown format {} (fp16, bf16, fp32)", Got(v)));
    }
  }

  // `data_types`: grad_accum_dtype (runtime/constants.py DATA_TYPES).
  void DataTypes(const std::string& at, const ordered_json& v) {
    if (!v.is_object()) {
      Fail(at, fmt::format("expected an object, got {}", Got(v)));
      return;
    }
    for (const auto& [key, value] : v.items()) {
      if (key == "grad_accum_dtype") {
        Format(at + "." + key, value, &out_->zero.precision.gradient_accumulation_dtype);
      } else {
        Other("data_types", at + "." + key, key);
      }
    }
  }

  void Zero(const std::string& at, const ordered_json& v) {
    if (!v.is_object()) {
      Fail(at, fmt::format("expected an object, got {}", Got(v)));
      return;
    }
    model::ZeroConfig& z = out_->zero;
    const bool sets_schedule = v.contains("stage") || v.contains("mics_shard_size");
    for (const auto& [key, value] : v.items()) {
      const std::string p = at + "." + key;
      if (key == "stage") {
        z.stage = Int(p, value, 0);
        if (status_->ok() && (z.stage < 1 || z.stage > 3)) {
          Fail(p, fmt::format("ZeRO stage {} is not modeled (ZeroSim models stages 1 to 3)", z.stage));
        }
      } else if (key == "mics_shard_size") {
        // DeepSpeed zero/config.py: -1 (the default) leaves MiCS off; a positive size turns stage 3 into MiCS
        // (engine.py _configure_zero_optimizer picks MiCS_Optimizer when mics_shard_size > 0).
        const int64_t size = Int(p, value, -1);
        if (size > 0) z.mics_shard_size = static_cast<int>(size);
      } else if (key == "mics_hierarchical_params_gather") {
        z.mics_hierarchical_params_gather = Bool(p, value);
      } else if (key == "allgather_bucket_size") {
        z.allgather_bucket_size = Count(p, value, 1);
      } else if (key == "zero_quantized_weights") {
        z.zero_quantized_weights = Bool(p, value);
      } else if (key == "zero_quantized_gradients") {
        z.zero_quantized_gradients = Bool(p, value);
      } else if (key == "zero_quantized_nontrainable_weights") {
        z.zero_quantized_nontrainable_weights = Bool(p, value);
      } else if (key == "zero_hpz_partition_size") {
        z.zero_hpz_partition_size = Int(p, value, 1);
      } else if (key == "overlap_comm") {
        z.overlap_comm = Bool(p, value);
      } else if (key == "contiguous_gradients") {
        z.contiguous_gradients = Bool(p, value);
      } else if (key == "stage3_prefetch_bucket_size" || key == "prefetch_bucket_size") {
        z.stage3_prefetch_bucket_size = Count(p, value, 0);
      } else if (key == "stage3_max_live_parameters" || key == "max_live_parameters") {
        z.stage3_max_live_parameters = Count(p, value, 0);
      } else if (key == "stage3_max_reuse_distance" || key == "max_reuse_distance") {
        z.stage3_max_reuse_distance = Count(p, value, 0);
      } else if (key == "stage3_param_persistence_threshold" || key == "param_persistence_threshold") {
        z.stage3_param_persistence_threshold = Count(p, value, 0);
      } else if (key == "reduce_bucket_size") {
        z.reduce_bucket_size = Count(p, value, 1);
      } else {
        Other("zero_optimization", p, key);
      }
    }
    // The schedule follows the stage (zero_keys.cc does the same for a scenario's [zero] stage): 1 and 2 are
    // stage_1_and_2.py, 3 is stage3.py, or MiCS with a shard size.
    if (status_->ok() && sets_schedule) {
      z.strategy = model::DeepSpeedStrategyOfStage(
          z.stage, z.mics_shard_size > 0 || z.strategy == model::Strategy::kMics);
    }
  }

  void ActivationCheckpointing(const std::string& at, const ordered_json& v) {
    if (!v.is_object()) {
      Fail(at, fmt::format("expected an object, got {}", Got(v)));
      return;
    }
    out_->zero.activation_checkpointing = true;
    // cpu_checkpointing: the kept block inputs go to host memory (offload). partition_activations (tensor
    // parallelism), contiguous_memory_optimization, ...: not modeled.
    for (const auto& [key, value] : v.items()) {
      if (key == "cpu_checkpointing") {
        if (Bool(at + "." + key, value)) out_->zero.recompute = model::RecomputePolicy::kOffload;
      } else {
        Other("activation_checkpointing", at + "." + key, key);
      }
    }
  }

 private:
  std::string file_;
  Status* status_;
  DsConfig* out_;
};

}  // namespace

StatusOr<DsConfig> ParseDsConfig(const std::string& text, const std::string& path,
                                 const model::ZeroConfig& base) {
  ordered_json doc;
  if (Status st = ParseJsonWithoutDuplicates(text, path, &doc); !st.ok()) return st;
  if (!doc.is_object())
    return Status::Error(fmt::format("{}: $: expected an object, got {}", path, doc.dump()));
  Status status;
  DsConfig out;
  out.zero = base;
  DsReader r(path, &status, &out);
  bool fp16 = false, bf16 = false;
  for (const auto& [key, value] : doc.items()) {
    const std::string p = "$." + key;
    if (key == "train_micro_batch_size_per_gpu") {
      out.zero.train_micro_batch_size_per_gpu = r.Int(p, value, 1);
    } else if (key == "gradient_accumulation_steps") {
      out.zero.gradient_accumulation_steps = r.Int(p, value, 1);
    } else if (key == "fp16") {
      fp16 = r.Precision(p, value);
    } else if (key == "train_batch_size") {
      out.train_batch_size = r.Int(p, value, 1);
    } else if (key == "bf16" ||
               key == "bfloat16") {  // bfloat16: DeepSpeed's older name (precision_config.py)
      bf16 = r.Precision(p, value) || bf16;
    } else if (key == "zero_optimization") {
      r.Zero(p, value);
    } else if (key == "activation_checkpointing") {
      r.ActivationCheckpointing(p, value);
    } else if (key == "communication_data_type") {
      r.Format(p, value, &out.zero.precision.gradient_reduce_dtype);
    } else if (key == "data_types") {
      r.DataTypes(p, value);
    } else {
      r.Other("", p, key);
    }
  }
  if (status.ok() && fp16 && bf16) r.Fail("$.bf16.enabled", "fp16 and bf16 are both enabled");
  if (!status.ok()) return status;
  if (fp16) out.dtype = model::DType::kFp16;
  if (bf16) out.dtype = model::DType::kBf16;
  out.file = {path, HashBytes(text)};
  return out;
}

StatusOr<DsConfig> LoadDsConfig(const FileSource& fs, const std::string& path,
                                const model::ZeroConfig& base) {
  StatusOr<std::string> text = fs.Read(path);
  if (!text.ok()) return text.status();
  return ParseDsConfig(*text, path, base);
}

Status CheckDsTrainBatch(const DsConfig& ds, const model::ZeroConfig& zero,
                         const model::ParallelLayout& layout, const model::ClusterSpec& cluster) {
  if (!ds.train_batch_size) return Status::Ok();
  const int64_t dp = layout.data_parallel(cluster.total_gpus());
  const int64_t batch = int64_t{zero.train_micro_batch_size_per_gpu} * zero.gradient_accumulation_steps * dp;
  if (*ds.train_batch_size == batch) return Status::Ok();
  return Status::Error(fmt::format(
      "{}: $.train_batch_size: {} is not train_micro_batch_size_per_gpu {} x gradient_accumulation_steps {} "
      "x "
      "data-parallel size {} = {} (DeepSpeed refuses the same: give the three consistently, or drop "
      "train_batch_size)",
      ds.file.path, *ds.train_batch_size, zero.train_micro_batch_size_per_gpu,
      zero.gradient_accumulation_steps, dp, batch));
}

StatusOr<Scenario> ApplyDsConfig(const FileSource& fs, const std::string& path, Scenario s) {
  StatusOr<std::string> text = fs.Read(path);
  if (!text.ok()) return text.status();
  std::vector<std::string> ignored;
  model::InputFile file;
  for (Variant& v : s.variants) {
    StatusOr<DsConfig> ds = ParseDsConfig(*text, path, v.zero);
    if (!ds.ok()) return ds.status();
    v.zero = ds->zero;
    if (ds->dtype) v.model.dtype = *ds->dtype;
    if (Status st = CheckDsTrainBatch(*ds, v.zero, v.parallel, s.cluster); !st.ok()) return st;
    ignored = ds->ignored;
    file = ds->file;
  }
  s.deepspeed_config_file = file;
  s.ignored_config_keys = ignored;
  return s;
}

}  // namespace zerosim::io
