#include "model/io/report_json.h"

#include <string_view>
#include <type_traits>
#include <variant>

#include "model/cost/nccl_channels.h"
#include "model/io/report_fields.h"
#include "model/io/rlhf_report.h"
#include "model/report/memory.h"
#include "model/spec/intra_fabric.h"

namespace zerosim::io {

using nlohmann::ordered_json;

namespace {

// A field's value as a JSON value of its type (the document's numbers stay doubles or integers as they are).
ordered_json ToJson(const FieldValue& v) {
  return std::visit(
      [](const auto& x) -> ordered_json {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) {
          return nullptr;
        } else {
          return x;
        }
      },
      v);
}

ordered_json InputJson(const model::InputFile& f) { return {{"path", f.path}, {"hash", f.hash}}; }

ordered_json ClusterJson(const model::ClusterSpec& c) {
  ordered_json j;
  j["name"] = c.name;
  j["nodes"] = c.nodes;
  j["gpus_per_node"] = c.gpus_per_node;
  j["gpus"] = c.total_gpus();
  j["gpu"] = {{"name", c.gpu.name},
              {"peak_flops", c.gpu.peak_flops},
              {"hbm_bytes", c.gpu.hbm_bytes},
              {"hbm_Bps", c.gpu.hbm_Bps},
              {"sms", c.gpu.sms},
              {"fp8_peak_flops", c.gpu.fp8_peak_flops},
              // As stated or by the GPU's name (cluster_spec.h GpuComputeCapabilityByName).
              {"compute_capability", (c.gpu.compute_capability > 0 ? c.gpu.compute_capability
                                                                     : model::GpuComputeCapability(c)) /
                                         10.0}};
  j["intra_node"] = {{"fabric", model::IntraFabricName(c.intra.fabric)}, {"bandwidth_Bps", c.intra.bandwidth_Bps}};
  // A PCIe node's links and an NVLink mesh's pair rate (bandwidth_Bps is then derived from them:
  // intra_fabric.h); absent on NVSwitch nodes, as before these fabrics existed.
  if (c.intra.fabric == model::IntraFabric::kPcie) {
    const model::PcieSpec& p = c.intra.pcie;
    j["intra_node"]["pcie"] = {{"gpu_link_Bps", p.gpu_link_Bps},       {"gpus_per_switch", p.gpus_per_switch},
                               {"switch_uplink_Bps", p.switch_uplink_Bps}, {"sockets", p.sockets},
                               {"socket_link_Bps", p.socket_link_Bps},   {"nics_per_switch", p.nics_per_switch}};
  }
  if (c.intra.fabric == model::IntraFabric::kNvLinkMesh) j["intra_node"]["pair_Bps"] = c.intra.pair_Bps;
  // A power-capped part (gpu_power.h); absent at the default limit, as before power limits existed.
  if (c.gpu.power_limit_W > 0) j["gpu"]["power_limit_W"] = c.gpu.power_limit_W;
  // An NVLink domain over several trays (GB200 NVL72); absent for a one-tray node, as before trays existed.
  if (c.intra.trays > 1) j["intra_node"]["trays"] = c.intra.trays;
  j["nic"] = {{"count", c.nic.count}, {"bandwidth_Bps", c.nic.bandwidth_Bps}};
  j["fabric"] = {{"kind", model::FabricKindName(c.fabric.kind)},
                 {"nodes_per_leaf", c.fabric.nodes_per_leaf},
                 {"oversubscription", c.fabric.oversubscription},
                 {"leaves_per_pod", c.fabric.leaves_per_pod},
                 {"pod_oversubscription", c.fabric.pod_oversubscription}};
  auto proto = [](const model::NcclProtocol& p) {
    return ordered_json{{"base_latency_s", p.base_latency_s},
                        {"intra_step_latency_s", p.intra_step_latency_s},
                        {"inter_step_latency_s", p.inter_step_latency_s},
                        {"bandwidth_factor", p.bandwidth_factor}};
  };
  j["nccl"] = {{"release", c.nccl.release},
               {"ll", proto(c.nccl.ll)},
               {"ll128", proto(c.nccl.ll128)},
               {"simple", proto(c.nccl.simple)},
               {"intra_bandwidth_efficiency", c.nccl.intra_bandwidth_efficiency},
               {"inter_bandwidth_efficiency", c.nccl.inter_bandwidth_efficiency},
               {"channels", model::NcclChannels(c)}, {"max_channels", c.nccl.max_channels},
               {"sm_share", model::NcclSmShare(c)}};
  return j;
}

ordered_json ModelJson(const model::ModelSpec& m) {
  ordered_json j;
  j["name"] = m.name;
  j["layers"] = m.layers;
  j["hidden"] = m.hidden;
  j["heads"] = m.heads;
  if (m.head_dim > 0) j["head_dim"] = m.head_dim;  // only where it is not hidden / heads
  if (m.sliding_window > 0) {                      // only with a window
    j["sliding_window"] = m.sliding_window;
    j["full_attention_interval"] = m.full_attention_interval;
  }
  j["ffn_hidden"] = m.ffn_hidden;
  j["vocab"] = m.vocab;
  j["max_position_embeddings"] = m.max_position_embeddings;
  j["tied_embeddings"] = m.tied_embeddings;
  j["dtype"] = model::DTypeName(m.dtype);
  j["parameters"] = model::TotalParams(m);
  if (model::IsMoe(m)) {  // mixture of experts (model_spec.h); dense models echo none of these
    j["experts"] = m.experts;
    j["experts_per_token"] = m.experts_per_token;
    j["moe_ffn_hidden"] = m.moe_ffn_hidden;
    j["shared_expert_ffn"] = m.shared_expert_ffn;
    j["first_dense_layers"] = m.first_dense_layers;
    j["active_parameters"] = model::ActiveParams(m);
  }
  return j;
}

}  // namespace

ordered_json ZeroToJson(const model::ZeroConfig& z) {
  ordered_json j;
  j["strategy"] = model::StrategyName(z.strategy);
  j["framework"] = model::FrameworkName(z.framework);
  j["stage"] = z.stage;
  j["zero_quantized_weights"] = z.zero_quantized_weights;
  j["zero_hpz_partition_size"] = z.zero_hpz_partition_size;
  j["zero_quantized_gradients"] = z.zero_quantized_gradients;
  j["zero_quantized_nontrainable_weights"] = z.zero_quantized_nontrainable_weights;
  j["weight_quantization_bits"] = z.weight_quantization_bits;
  j["gradient_quantization_bits"] = z.gradient_quantization_bits;
  j["weight_quantization_group_target"] = z.weight_quantization_group_target;
  j["stage3_prefetch_bucket_size"] = z.stage3_prefetch_bucket_size;
  j["stage3_max_live_parameters"] = z.stage3_max_live_parameters;
  j["stage3_max_reuse_distance"] = z.stage3_max_reuse_distance;
  j["stage3_param_persistence_threshold"] = z.stage3_param_persistence_threshold;
  j["reduce_bucket_size"] = z.reduce_bucket_size;
  j["overlap_comm"] = z.overlap_comm;
  j["contiguous_gradients"] = z.contiguous_gradients;
  j["overlap_grad_reduce"] = z.overlap_grad_reduce;
  j["overlap_param_gather"] = z.overlap_param_gather;
  if (z.recompute_layernorm) j["recompute_layernorm"] = true;  // only where set (Megatron's module recompute)
  if (z.recompute_moe_act) j["recompute_moe_act"] = true;
  j["ddp_bucket_size"] = z.ddp_bucket_size;
  j["max_ongoing_fetch_events"] = z.max_ongoing_fetch_events;
  j["max_param_reduce_events"] = z.max_param_reduce_events;
  j["hpz_recompute_uses_secondary"] = z.hpz_recompute_uses_secondary;
  j["host_overhead_per_module_s"] = z.runtime.host_overhead_per_module_s;
  j["train_micro_batch_size_per_gpu"] = z.train_micro_batch_size_per_gpu;
  j["gradient_accumulation_steps"] = z.gradient_accumulation_steps;
  j["activation_checkpointing"] = z.activation_checkpointing;
  j["recompute"] = model::RecomputePolicyName(model::RecomputeOf(z));
  j["loss"] = model::LossImplName(z.loss);
  if (model::RecomputeOf(z) == model::RecomputePolicy::kSelectiveBlock)
    j["recompute_block_interval"] = z.recompute_block_interval;
  j["launcher"] = model::LauncherName(z.effective_launcher());
  j["launcher_origin"] = z.launcher_origin();
  j["cuda_device_max_connections"] = z.runtime.cuda_device_max_connections;
  j["cuda_device_max_connections_origin"] = z.queue_origin();
  j["memory_reserve"] = z.runtime.memory_reserve;
  if (z.strategy == model::Strategy::kMics) {
    j["mics_shard_size"] = z.mics_shard_size;
    j["mics_hierarchical_params_gather"] = z.mics_hierarchical_params_gather;
  }
  if (z.strategy == model::Strategy::kFsdpHybridShard) j["hsdp_shard_size"] = z.fsdp.hsdp_shard_size;
  if (model::TraitsOf(z.strategy).builder == model::StrategyTraits::Builder::kZero12) {
    j["allgather_bucket_size"] = z.allgather_bucket_size;
  }
  if (model::IsFsdp(z.strategy)) {
    j["limit_all_gathers"] = z.fsdp.limit_all_gathers;
    j["forward_prefetch"] = z.fsdp.forward_prefetch;
    j["backward_prefetch"] = z.fsdp.backward_prefetch == model::FsdpBackwardPrefetch::kNone ? "none"
                             : z.fsdp.backward_prefetch == model::FsdpBackwardPrefetch::kBackwardPost
                                 ? "backward_post"
                                 : "backward_pre";
  }
  const model::Precision& pr = z.precision;
  j["communication_data_type"] = model::FloatFormatName(pr.gradient_reduce_dtype);
  j["grad_accum_dtype"] = model::FloatFormatName(pr.gradient_accumulation_dtype);
  j["bf16_master_weights_and_grads"] = pr.bf16_master_weights_and_grads;
  j["bf16_optimizer_states"] = pr.bf16_optimizer_states;
  j["fp8_gemms"] = pr.fp8_gemms;
  j["fp8_weight_all_gather"] = pr.fp8_weight_all_gather;
  return j;
}

ordered_json VariantToJson(const model::VariantReport& v) {
  ordered_json j;
  j["name"] = v.name;
  j["engine"] = v.engine;
  j["model"] = ModelJson(v.model);
  j["zero"] = ZeroToJson(v.zero);
  // The reported quantities, from the field list (report_fields.h) in the document's order. A variant that
  // does not fit carries no throughput, time or bytes (model::Ran), only its reason and the memory estimate
  // that is why (docs/report.md): FieldOf leaves them out.
  const FieldRow row{&v, nullptr, {}};
  for (const ReportField& f : JsonFields()) {
    const FieldValue value = FieldOf(f, row);
    if (std::holds_alternative<std::monostate>(value)) continue;
    ordered_json* node = &j;
    std::string_view path = f.json.path;
    for (size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.')) {
      node = &(*node)[std::string(path.substr(0, dot))];
      path.remove_prefix(dot + 1);
    }
    (*node)[std::string(path)] = ToJson(value);
  }
  if (!v.phases.empty())
    j["phases"] = PhasesToJson(v.phases, v.gpus, model::Ran(v));  // RLHF variants (docs/report.md)
  return j;
}

ordered_json ProvenanceToJson(const model::Provenance& p) {
  ordered_json j;
  j["zerosim_version"] = p.zerosim_version;
  j["scenario"] = InputJson(p.scenario);
  j["topology"] = InputJson(p.topology);
  j["model"] = InputJson(p.model);
  j["calibration"] = InputJson(p.calibration);
  j["calibration_gpu"] = p.calibration_gpu;
  j["calibration_source"] = p.calibration_source;
  j["calibration_provenance"] = p.calibration_provenance;
  j["gemm_efficiency_source"] = p.gemm_efficiency_source;
  j["network_model"] = p.network_model;
  j["simgrid_version"] = p.simgrid_version;
  j["fp8_gemm_efficiency_source"] = p.fp8_gemm_efficiency_source;
  if (!p.power_model.empty()) j["power_model"] = p.power_model;
  j["deepspeed_config"] = InputJson(p.deepspeed_config);
  j["ignored_config_keys"] = p.ignored_config_keys;
  j["simgrid_options"] = p.simgrid_options;
  return j;
}

ordered_json ReportToJson(const model::Report& r) {
  ordered_json j;
  j["format"] = "zerosim-report-1";
  j["provenance"] = ProvenanceToJson(r.provenance);
  j["scenario"] = {
      {"name", r.scenario_name}, {"cluster", ClusterJson(r.cluster)}, {"model", ModelJson(r.model)}};
  ordered_json variants = ordered_json::array();
  for (const model::VariantReport& v : r.variants) variants.push_back(VariantToJson(v));
  j["variants"] = variants;
  return j;
}

std::string ReportJsonText(const model::Report& r) {
  // Paths and names come from the user and need not be UTF-8: invalid bytes become U+FFFD instead of an
  // exception.
  return ReportToJson(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace zerosim::io
