#include "model/io/zero_keys.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "model/io/precision_keys.h"
#include "model/spec/feasibility.h"

namespace zerosim::io {

const std::vector<InputKey<model::ZeroConfig>>& ZeroKeys() {
  using T = KeyType;
  using model::ZeroConfig;
  constexpr double kCount = TableReader::kCountMax;
  constexpr double kInt = TableReader::kIntMax;
  static const std::vector<InputKey<ZeroConfig>> keys = {
      {"mics_shard_size", T::kInt, 1, 1 << 20,
       [](ZeroConfig* z, double v) { z->mics_shard_size = static_cast<int>(v); }},
      {"hsdp_shard_size", T::kInt, 1, 1 << 20,
       [](ZeroConfig* z, double v) { z->fsdp.hsdp_shard_size = static_cast<int>(v); }},
      {"mics_hierarchical_params_gather", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->mics_hierarchical_params_gather = v != 0; }},
      {"allgather_bucket_size", T::kCount, 1, kCount,
       [](ZeroConfig* z, double v) { z->allgather_bucket_size = v; }},
      {"limit_all_gathers", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->fsdp.limit_all_gathers = v != 0; }},
      {"forward_prefetch", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->fsdp.forward_prefetch = v != 0; }},
      {"zero_quantized_weights", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->zero_quantized_weights = v != 0; }},
      {"zero_hpz_partition_size", T::kInt, 1, model::kMaxGpusPerNode,
       [](ZeroConfig* z, double v) { z->zero_hpz_partition_size = static_cast<int>(v); }},
      {"zero_quantized_gradients", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->zero_quantized_gradients = v != 0; }},
      {"zero_quantized_nontrainable_weights", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->zero_quantized_nontrainable_weights = v != 0; }},
      {"weight_quantization_group_target", T::kCount, 8, kCount,
       [](ZeroConfig* z, double v) { z->weight_quantization_group_target = static_cast<int64_t>(v); }},
      {"stage3_prefetch_bucket_size", T::kCount, 0, kCount,
       [](ZeroConfig* z, double v) { z->stage3_prefetch_bucket_size = v; }},
      {"stage3_max_live_parameters", T::kCount, 0, kCount,
       [](ZeroConfig* z, double v) { z->stage3_max_live_parameters = v; }},
      {"stage3_max_reuse_distance", T::kCount, 0, kCount,
       [](ZeroConfig* z, double v) { z->stage3_max_reuse_distance = v; }},
      {"stage3_param_persistence_threshold", T::kCount, 0, kCount,
       [](ZeroConfig* z, double v) { z->stage3_param_persistence_threshold = v; }},
      {"reduce_bucket_size", T::kCount, 1, kCount,
       [](ZeroConfig* z, double v) { z->reduce_bucket_size = v; }},
      {"contiguous_gradients", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->contiguous_gradients = v != 0; }},
      // Megatron-Core's DDP overlap options (zero_config.h); CheckZero refuses them beside other strategies.
      {"overlap_grad_reduce", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->overlap_grad_reduce = v != 0; }},
      {"overlap_param_gather", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->overlap_param_gather = v != 0; }},
      {"ddp_bucket_size", T::kCount, 0, kCount, [](ZeroConfig* z, double v) { z->ddp_bucket_size = v; }},
      {"max_ongoing_fetch_events", T::kInt, 0, kInt,
       [](ZeroConfig* z, double v) { z->max_ongoing_fetch_events = static_cast<int>(v); }},
      {"max_param_reduce_events", T::kInt, 0, kInt,
       [](ZeroConfig* z, double v) { z->max_param_reduce_events = static_cast<int>(v); }},
      {"hpz_recompute_uses_secondary", T::kBool, 0, 1,
       [](ZeroConfig* z, double v) { z->hpz_recompute_uses_secondary = v != 0; }},
  };
  return keys;
}

model::ZeroConfig ReadZeroKeys(TableReader* t, const model::ZeroConfig& base) {
  model::ZeroConfig z = base;
  // `strategy` (model/spec/strategy.h) picks the schedule; DeepSpeed's `stage` 1/2/3 alone means zero1/2/3.
  const bool had_zero12 = model::TraitsOf(base.strategy).builder == model::StrategyTraits::Builder::kZero12;
  if (std::optional<std::string> name = t->OptionalString("strategy")) {
    if (std::optional<model::Strategy> st = model::ParseStrategy(*name)) {
      z.strategy = *st;
    } else {
      t->Fail("strategy",
              fmt::format("unknown strategy \"{}\" (supported: {})", *name, model::StrategyNames()));
    }
  }
  const int stage_of_strategy = model::TraitsOf(z.strategy).zero_stage;
  if (t->Has("stage")) {
    z.stage = static_cast<int>(t->IntOr("stage", z.stage, 0));
    if (z.stage < 1 || z.stage > 3) {
      t->Fail("stage", fmt::format("ZeroSim models ZeRO stages 1 to 3, got {}", z.stage));
    } else if (!t->Has("strategy") && !model::IsFsdp(z.strategy) && !model::HasShardGroup(z.strategy)) {
      z.strategy = model::DeepSpeedStrategyOfStage(z.stage, /*mics=*/false);
    } else if (z.stage != stage_of_strategy && !model::IsFsdp(z.strategy)) {
      t->Fail("stage", fmt::format("stage {} contradicts strategy \"{}\" (stage {})", z.stage,
                                   model::StrategyName(z.strategy), stage_of_strategy));
    }
  }
  if (!model::IsFsdp(z.strategy)) z.stage = model::TraitsOf(z.strategy).zero_stage;
  // The framework follows the strategy; [runtime] framework, where given, must agree (ApplyRuntime, then
  // model::CheckZero).
  z.framework = model::FrameworkOf(z.strategy);
  ReadKeys(t, ZeroKeys(), &z);  // the plain keys (ZeroKeys above)
  if (std::optional<std::string> bp = t->OptionalString("backward_prefetch")) {
    if (*bp == "none") {
      z.fsdp.backward_prefetch = model::FsdpBackwardPrefetch::kNone;
    } else if (*bp == "backward_pre") {
      z.fsdp.backward_prefetch = model::FsdpBackwardPrefetch::kBackwardPre;
    } else if (*bp == "backward_post") {
      z.fsdp.backward_prefetch = model::FsdpBackwardPrefetch::kBackwardPost;
    } else {
      t->Fail("backward_prefetch",
              fmt::format("unknown backward_prefetch \"{}\" (backward_pre, backward_post, none)", *bp));
    }
  }

  z.weight_quantization_bits = static_cast<int>(t->IntOr("weight_quantization_bits", z.weight_quantization_bits, 1));
  if (z.weight_quantization_bits != 8) {
    t->Fail("weight_quantization_bits", "qwZ's kernels quantize weights to int8 only (8)");
  }
  z.gradient_quantization_bits =
      static_cast<int>(t->IntOr("gradient_quantization_bits", z.gradient_quantization_bits, 1));
  if (z.gradient_quantization_bits != 4) {
    t->Fail("gradient_quantization_bits", "qgZ's kernels quantize gradients to int4 only (4)");
  }

  // DeepSpeed's overlap_comm default is true for stage 3 and false for stages 1 and 2 (zero/config.py
  // overlap_comm_valid).
  const bool zero12 = model::TraitsOf(z.strategy).builder == model::StrategyTraits::Builder::kZero12;
  if (zero12 != had_zero12) z.overlap_comm = !zero12;
  z.overlap_comm = t->BoolOr("overlap_comm", z.overlap_comm);
  if (!z.overlap_comm && !zero12) {
    t->Fail("overlap_comm",
            "ZeroSim models overlap_comm = true (DeepSpeed's stage-3 default) only for stage 3");
  }

  z.runtime.host_overhead_per_module_s = t->QuantityOr("host_overhead_per_module", Dimension::kTime,
                                                       z.runtime.host_overhead_per_module_s, false);
  z.runtime.host_tensor_view_s =
      t->QuantityOr("host_tensor_view", Dimension::kTime, z.runtime.host_tensor_view_s, false);
  ReadPrecisionKeys(t, &z.precision);  // number formats (precision_keys.h)
  // The settings against the cluster (model::CheckZero) are checked once, with the rest of the configuration,
  // where the scenario is complete (scenario_loader.cc), or after the what-ifs (io::LoadOptions).
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
  // recompute = none | full | selective | offload | selective_op | selective_block (model/spec/model_spec.h
  // RecomputePolicy): sets activation_checkpointing too (true for full and offload).
  if (std::optional<std::string> r = t->OptionalString("recompute")) {
    const bool both = t->Has("activation_checkpointing");
    if (*r == "none" || *r == "full" || *r == "selective" || *r == "offload" || *r == "selective_op" ||
        *r == "selective_block") {
      z->activation_checkpointing = *r == "full" || *r == "offload";
      z->recompute = *r == "selective"         ? model::RecomputePolicy::kSelective
                     : *r == "offload"         ? model::RecomputePolicy::kOffload
                     : *r == "selective_op"    ? model::RecomputePolicy::kSelectiveOp
                     : *r == "selective_block" ? model::RecomputePolicy::kSelectiveBlock
                                               : model::RecomputePolicy::kNone;
      if (both) t->Fail("recompute", "give recompute or activation_checkpointing, not both");
    } else {
      t->Fail("recompute",
              fmt::format("unknown recompute \"{}\" (none, full, selective, offload, selective_op, "
                          "selective_block)",
                          *r));
    }
  }
  if (t->Has("recompute_block_interval")) {
    z->recompute_block_interval = static_cast<int>(
        t->IntOr("recompute_block_interval", z->recompute_block_interval, 1, model::kMaxLayers));
    if (z->recompute != model::RecomputePolicy::kSelectiveBlock || z->activation_checkpointing) {
      t->Fail("recompute_block_interval", "applies to recompute = \"selective_block\" only");
    }
  }
  // Megatron-Core's module recompute (zero_config.h): refines recompute = none or selective.
  z->recompute_layernorm = t->BoolOr("recompute_layernorm", z->recompute_layernorm);
  z->recompute_moe_act = t->BoolOr("recompute_moe_act", z->recompute_moe_act);
  for (const char* key : {"recompute_layernorm", "recompute_moe_act"}) {
    const model::RecomputePolicy p = model::RecomputeOf(*z);
    if (t->Has(key) && p != model::RecomputePolicy::kNone && p != model::RecomputePolicy::kSelective) {
      t->Fail(
          key,
          fmt::format("Megatron's module recompute refines recompute = \"none\" or \"selective\", not \"{}\"",
                      model::RecomputePolicyName(p)));
    }
  }
  // loss = fused | eager | compiled (model/spec/model_spec.h LossImpl).
  if (std::optional<std::string> l = t->OptionalString("loss")) {
    if (std::optional<model::LossImpl> loss = model::ParseLossImpl(*l)) {
      z->loss = *loss;
    } else {
      t->Fail("loss", fmt::format("unknown loss \"{}\" (fused, eager, compiled)", *l));
    }
  }
  if (std::optional<std::string> a = t->OptionalString("attention")) {
    if (*a == "flash") {
      m->attention = model::AttentionImpl::kFlash;
    } else if (*a == "unfused") {
      m->attention = model::AttentionImpl::kUnfused;
    } else if (*a == "flash_v1") {
      m->attention = model::AttentionImpl::kFlashV1;
    } else if (*a == "flash2") {
      m->attention = model::AttentionImpl::kFlash2;
    } else {
      t->Fail("attention", fmt::format("unknown attention \"{}\" (flash, flash2, flash_v1, unfused)", *a));
    }
  }
}

RuntimeKeys ReadRuntimeKeys(TableReader* t, model::ZeroConfig* z) {
  RuntimeKeys r;
  if (std::optional<std::string> f = t->OptionalString("framework")) {
    r.framework = model::ParseFramework(*f);
    if (!r.framework)
      t->Fail("framework", fmt::format("unknown framework \"{}\" (modelled: deepspeed, fsdp)", *f));
  }
  if (std::optional<std::string> l = t->OptionalString("launcher")) {
    r.launcher = model::ParseLauncher(*l);
    if (!r.launcher) {
      t->Fail("launcher", fmt::format("unknown launcher \"{}\" (modelled: {})", *l, model::LauncherNames()));
    }
  }
  if (t->Has("cuda_device_max_connections")) {
    r.cuda_device_max_connections = static_cast<int>(t->IntOr("cuda_device_max_connections", 8, 1));
    if (*r.cuda_device_max_connections > 32) {
      t->Fail("cuda_device_max_connections", "CUDA allows 1 to 32 hardware work queues");
    }
  }
  if (std::optional<std::string> sw = t->OptionalString("software")) {
    r.software = *sw;
    if (sw->empty()) t->Fail("software", "empty: name one of the calibration's software generations");
  }
  z->runtime.host_overhead_per_module_s = t->QuantityOr("host_overhead_per_module", Dimension::kTime,
                                                        z->runtime.host_overhead_per_module_s, false);
  z->runtime.host_tensor_view_s =
      t->QuantityOr("host_tensor_view", Dimension::kTime, z->runtime.host_tensor_view_s, false);
  // memory_reserve: a fraction of the GPU's memory (model/report/runtime_memory.h), below one half so that a
  // reserve cannot make every configuration infeasible by itself.
  z->runtime.memory_reserve = t->NumberOr("memory_reserve", z->runtime.memory_reserve, 0.0, 0.49);
  ApplyRuntime(r, z);
  return r;
}

void ApplyRuntime(const RuntimeKeys& r, model::ZeroConfig* z) {
  z->framework = r.framework.value_or(model::FrameworkOf(z->strategy));
  z->runtime.launcher = r.launcher;
  z->runtime.cuda_device_max_connections =
      r.cuda_device_max_connections.value_or(model::LauncherHardwareQueues(z->effective_launcher()));
  z->runtime.cuda_device_max_connections_stated = r.cuda_device_max_connections.has_value();
}

void ReportProblems(const std::vector<model::Problem>& problems, const std::vector<TableReader*>& tables,
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
