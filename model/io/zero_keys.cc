#include "model/io/zero_keys.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "model/feasibility.h"
#include "model/io/precision_keys.h"

namespace zerosim::io {

model::ZeroConfig ReadZeroKeys(TableReader* t, const model::ZeroConfig& base, const model::ClusterSpec& c) {
  model::ZeroConfig z = base;
  z.stage = static_cast<int>(t->IntOr("stage", z.stage, 0));
  if (z.stage != 3) t->Fail("stage", fmt::format("ZeroSim models ZeRO stage 3 (and ZeRO++ on it), got {}", z.stage));

  z.zero_quantized_weights = t->BoolOr("zero_quantized_weights", z.zero_quantized_weights);
  z.zero_hpz_partition_size = static_cast<int>(
      t->IntOr("zero_hpz_partition_size", z.zero_hpz_partition_size, 1, model::kMaxGpusPerNode));
  z.zero_quantized_gradients = t->BoolOr("zero_quantized_gradients", z.zero_quantized_gradients);

  z.weight_quantization_bits = static_cast<int>(t->IntOr("weight_quantization_bits", z.weight_quantization_bits, 1));
  if (z.weight_quantization_bits != 8) {
    t->Fail("weight_quantization_bits", "qwZ's kernels quantize weights to int8 only (8)");
  }
  z.gradient_quantization_bits =
      static_cast<int>(t->IntOr("gradient_quantization_bits", z.gradient_quantization_bits, 1));
  if (z.gradient_quantization_bits != 4) {
    t->Fail("gradient_quantization_bits", "qgZ's kernels quantize gradients to int4 only (4)");
  }
  z.weight_quantization_group_target = static_cast<int64_t>(
      t->CountOr("weight_quantization_group_target", static_cast<double>(z.weight_quantization_group_target), 8));

  z.stage3_prefetch_bucket_size = t->CountOr("stage3_prefetch_bucket_size", z.stage3_prefetch_bucket_size, 0);
  z.stage3_max_live_parameters = t->CountOr("stage3_max_live_parameters", z.stage3_max_live_parameters, 0);
  z.stage3_max_reuse_distance = t->CountOr("stage3_max_reuse_distance", z.stage3_max_reuse_distance, 0);
  z.stage3_param_persistence_threshold =
      t->CountOr("stage3_param_persistence_threshold", z.stage3_param_persistence_threshold, 0);
  z.reduce_bucket_size = t->CountOr("reduce_bucket_size", z.reduce_bucket_size, 1);
  z.overlap_comm = t->BoolOr("overlap_comm", z.overlap_comm);
  if (!z.overlap_comm) t->Fail("overlap_comm", "ZeroSim models overlap_comm = true (DeepSpeed's stage-3 default) only");
  z.contiguous_gradients = t->BoolOr("contiguous_gradients", z.contiguous_gradients);

  z.max_ongoing_fetch_events = static_cast<int>(t->IntOr("max_ongoing_fetch_events", z.max_ongoing_fetch_events, 0));
  z.max_param_reduce_events = static_cast<int>(t->IntOr("max_param_reduce_events", z.max_param_reduce_events, 0));
  z.hpz_recompute_uses_secondary = t->BoolOr("hpz_recompute_uses_secondary", z.hpz_recompute_uses_secondary);
  z.host_overhead_per_module_s =
      t->QuantityOr("host_overhead_per_module", Dimension::kTime, z.host_overhead_per_module_s, false);
  ReadPrecisionKeys(t, &z.precision);  // number formats (precision_keys.h)
  ReportProblems(model::CheckZero(z, c), {t});
  return z;
}

void ReadTrainingKeys(TableReader* t, model::ModelSpec* m, model::ZeroConfig* z) {
  m->seq_len = static_cast<int>(t->IntOr("seq_len", m->seq_len, 1, model::kMaxSequence));
  const bool tokens = t->Has("tokens_per_gpu");
  const bool micro = t->Has("train_micro_batch_size_per_gpu");
  if (tokens && micro) {
    t->Fail("tokens_per_gpu", "give either tokens_per_gpu or train_micro_batch_size_per_gpu, not both");
  }
  if (micro) {
    z->train_micro_batch_size_per_gpu =
        static_cast<int>(t->IntOr("train_micro_batch_size_per_gpu", z->train_micro_batch_size_per_gpu, 1,
                                  model::kMaxMicroBatch));
  }
  if (tokens) {
    const int64_t n = t->IntOr("tokens_per_gpu", 1, 1, model::kMaxSequence * model::kMaxMicroBatch);
    if (m->seq_len <= 0 || n % m->seq_len != 0 || n / m->seq_len > model::kMaxMicroBatch) {
      t->Fail("tokens_per_gpu", fmt::format("{} tokens per GPU is not a whole number of {}-token sequences (at most "
                                            "{} sequences)",
                                            n, m->seq_len, model::kMaxMicroBatch));
    } else {
      z->train_micro_batch_size_per_gpu = static_cast<int>(n / m->seq_len);
    }
  } else {
    t->IntOr("tokens_per_gpu", 0, 1);  // mark the key as known for "did you mean"
  }
  z->gradient_accumulation_steps =
      static_cast<int>(t->IntOr("gradient_accumulation_steps", z->gradient_accumulation_steps, 1,
                                model::kMaxGradientAccumulation));
  z->activation_checkpointing = t->BoolOr("activation_checkpointing", z->activation_checkpointing);
  // recompute = none | full | selective | offload (model/zero_config.h): sets activation_checkpointing too.
  if (std::optional<std::string> r = t->OptionalString("recompute")) {
    const bool both = t->Has("activation_checkpointing");
    if (*r == "none" || *r == "full" || *r == "selective" || *r == "offload") {
      z->activation_checkpointing = *r == "full" || *r == "offload";
      z->recompute = *r == "selective" ? model::RecomputePolicy::kSelective
                     : *r == "offload" ? model::RecomputePolicy::kOffload
                                       : model::RecomputePolicy::kNone;
      if (both) t->Fail("recompute", "give recompute or activation_checkpointing, not both");
    } else {
      t->Fail("recompute", fmt::format("unknown recompute \"{}\" (none, full, selective, offload)", *r));
    }
  }
  if (std::optional<std::string> a = t->OptionalString("attention")) {
    if (*a == "flash") {
      m->attention = model::AttentionImpl::kFlash;
    } else if (*a == "unfused") {
      m->attention = model::AttentionImpl::kUnfused;
    } else {
      t->Fail("attention", fmt::format("unknown attention \"{}\" (flash, unfused)", *a));
    }
  }
}

model::ZeroConfig DeepSpeedRuntimeDefaults(model::ZeroConfig z) {
  z.cuda_device_max_connections = 1;
  return z;
}

void ReadRuntimeKeys(TableReader* t, model::ZeroConfig* z) {
  const std::string framework = t->OptionalString("framework").value_or("deepspeed");
  if (framework != "deepspeed") {
    t->Fail("framework", fmt::format("unknown framework \"{}\" (modelled: deepspeed)", framework));
  }
  z->cuda_device_max_connections =
      static_cast<int>(t->IntOr("cuda_device_max_connections", z->cuda_device_max_connections, 1));
  if (z->cuda_device_max_connections > 32) {
    t->Fail("cuda_device_max_connections", "CUDA allows 1 to 32 hardware work queues");
  }
  z->host_overhead_per_module_s =
      t->QuantityOr("host_overhead_per_module", Dimension::kTime, z->host_overhead_per_module_s, false);
}

void ReportProblems(const std::vector<model::Problem>& problems, std::initializer_list<TableReader*> tables,
                    TableReader* fallback, std::string_view fallback_key) {
  for (const model::Problem& p : problems) {
    // tokens_per_gpu sets the micro-batch: report it where the file wrote it.
    const std::string alias = p.key == "train_micro_batch_size_per_gpu" ? "tokens_per_gpu" : p.key;
    TableReader* where = nullptr;
    std::string key = p.key;
    for (TableReader* t : tables) {
      if (t->Has(p.key) || t->Has(alias)) {
        where = t;
        key = t->Has(p.key) ? p.key : alias;
        break;
      }
    }
    if (where != nullptr) {
      where->Fail(key, p.message);
    } else if (fallback != nullptr) {
      fallback->Fail(fallback_key, fmt::format("{}: {}", p.key, p.message));
    } else {
      tables.begin()[0]->Fail(p.key, p.message);
    }
  }
}

}  // namespace zerosim::io
