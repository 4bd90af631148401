#include "model/io/report_fields.h"

#include <cmath>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/model_spec.h"

namespace zerosim::io {

namespace {

using model::VariantReport;

const VariantReport& V(const FieldRow& r) { return *r.variant; }
const model::ClusterSpec& C(const FieldRow& r) { return *r.cluster; }
FieldValue Int(long long v) { return v; }

// What each field needs (FieldNeeds), short for the list.
constexpr FieldNeeds kAny = FieldNeeds::kNothing;
constexpr FieldNeeds kRan = FieldNeeds::kRun;
constexpr FieldNeeds kMem = FieldNeeds::kMemory;

}  // namespace

// The fields. Names and meanings: docs/report.md ("Rows: CSV, JSON lines and sweeps"). The first group and
// the metrics up to memory_per_gpu_bytes are the sweep rows' historical fields (docs/sweeps.md), in their
// order.
const std::vector<ReportField>& ReportFields() {
  static const std::vector<ReportField> kFields = {
      {"scenario", "", kAny, [](const FieldRow& r) -> FieldValue { return std::string(r.scenario); }},
      {"variant", "", kAny, [](const FieldRow& r) -> FieldValue { return V(r).name; }},
      {"engine", "", kAny, [](const FieldRow& r) -> FieldValue { return V(r).engine; }},
      {"cluster.name", "", kAny, [](const FieldRow& r) -> FieldValue { return C(r).name; }},
      {"cluster.gpu", "", kAny, [](const FieldRow& r) -> FieldValue { return C(r).gpu.name; }},
      {"cluster.nodes", "", kAny, [](const FieldRow& r) { return Int(C(r).nodes); }},
      {"cluster.gpus_per_node", "", kAny, [](const FieldRow& r) { return Int(C(r).gpus_per_node); }},
      {"cluster.gpus", "", kAny, [](const FieldRow& r) { return Int(C(r).total_gpus()); }},
      {"cluster.nic_count", "", kAny, [](const FieldRow& r) { return Int(C(r).nic.count); }},
      {"cluster.nic_bandwidth_Bps", "B/s", kAny,
       [](const FieldRow& r) -> FieldValue { return C(r).nic.bandwidth_Bps; }},
      {"cluster.fabric", "", kAny,
       [](const FieldRow& r) -> FieldValue { return std::string(model::FabricKindName(C(r).fabric.kind)); }},
      {"cluster.oversubscription", "", kAny,
       [](const FieldRow& r) -> FieldValue { return C(r).fabric.oversubscription; }},
      {"model.name", "", kAny, [](const FieldRow& r) -> FieldValue { return V(r).model.name; }},
      {"model.parameters", "", kAny,
       [](const FieldRow& r) -> FieldValue { return model::TotalParams(V(r).model); }},
      {"seq_len", "", kAny, [](const FieldRow& r) { return Int(V(r).model.seq_len); }},
      {"tokens_per_gpu", "", kAny,
       [](const FieldRow& r) {
         return Int(static_cast<long long>(V(r).model.seq_len) * V(r).zero.train_micro_batch_size_per_gpu);
       }},
      {"zero.zero_quantized_weights", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).zero.zero_quantized_weights; }},
      {"zero.zero_hpz_partition_size", "", kAny,
       [](const FieldRow& r) { return Int(V(r).zero.zero_hpz_partition_size); }},
      {"zero.zero_quantized_gradients", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).zero.zero_quantized_gradients; }},
      {"zero.strategy", "", kAny,
       [](const FieldRow& r) -> FieldValue { return std::string(model::StrategyName(V(r).zero.strategy)); }},
      {"zero.framework", "", kAny,
       [](const FieldRow& r) -> FieldValue {
         return std::string(model::FrameworkName(V(r).zero.framework));
       }},
      {"zero.launcher", "", kAny,
       [](const FieldRow& r) -> FieldValue {
         return std::string(model::LauncherName(V(r).zero.effective_launcher()));
       }},
      {"zero.cuda_device_max_connections", "", kAny,
       [](const FieldRow& r) { return Int(V(r).zero.cuda_device_max_connections); }},
      {"zero.memory_reserve", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).zero.memory_reserve; }},
      {"zero.communication_data_type", "", kAny,
       [](const FieldRow& r) -> FieldValue {
         return std::string(model::FloatFormatName(V(r).zero.precision.gradient_reduce_dtype));
       }},
      {"zero.fp8_gemms", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).zero.precision.fp8_gemms; }},
      {"zero.fp8_weight_all_gather", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).zero.precision.fp8_weight_all_gather; }},
      {"zero.gradient_accumulation_steps", "", kAny,
       [](const FieldRow& r) { return Int(V(r).zero.gradient_accumulation_steps); }},
      {"feasible", "", kAny, [](const FieldRow& r) -> FieldValue { return V(r).feasible; }},
      {"infeasible_reason", "", kAny, [](const FieldRow& r) -> FieldValue { return V(r).infeasible_reason; }},
      {"iteration_time_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).iteration_time_s; }},
      {"tflops_per_gpu", "TFLOP/s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).tflops_per_gpu; }},
      {"mfu", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).mfu; }},
      {"tokens_per_s", "1/s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).tokens_per_s; }},
      // The band (model/band.h): throughputs times its factors, the time divided by them.
      {"tokens_per_s_low", "1/s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).tokens_per_s * V(r).band.low; }},
      {"tokens_per_s_high", "1/s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).tokens_per_s * V(r).band.high; }},
      {"tflops_per_gpu_low", "TFLOP/s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).tflops_per_gpu * V(r).band.low; }},
      {"tflops_per_gpu_high", "TFLOP/s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).tflops_per_gpu * V(r).band.high; }},
      {"iteration_time_low_s", "s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).iteration_time_s / V(r).band.high; }},
      {"iteration_time_high_s", "s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).iteration_time_s / V(r).band.low; }},
      {"band_group", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.group; }},
      {"band_validated", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.validated; }},
      {"exposed_comm_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).exposed_comm_s; }},
      {"cross_node_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.cross_node.total(); }},
      {"intra_node_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.intra_node.total(); }},
      {"memory_per_gpu_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.total_bytes; }},
      // The why: compute by kind, exposed communication by cause, bytes by tier and phase, memory by part.
      {"compute_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).compute_s; }},
      {"optimizer_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).optimizer_s; }},
      {"gpu_side_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).gpu_side_s; }},
      {"gemm_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).gemm_s; }},
      {"attention_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).attention_s; }},
      {"memory_bound_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).memory_bound_s; }},
      {"kernel_gaps_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).kernel_gaps_s; }},
      {"waiting_for_data_s", "s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).waiting_for_data_s; }},
      {"comm_interference_s", "s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).comm_interference_s; }},
      {"queue_blocking_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).queue_blocking_s; }},
      {"cross_node_forward_allgather_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.cross_node.forward_allgather; }},
      {"cross_node_backward_allgather_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.cross_node.backward_allgather; }},
      {"cross_node_gradient_reduce_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.cross_node.gradient_reduce; }},
      {"intra_node_forward_allgather_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.intra_node.forward_allgather; }},
      {"intra_node_backward_allgather_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.intra_node.backward_allgather; }},
      {"intra_node_gradient_reduce_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.intra_node.gradient_reduce; }},
      {"memory_parameters_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.parameters_bytes; }},
      {"memory_gradients_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.gradients_bytes; }},
      {"memory_optimizer_states_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.optimizer_states_bytes; }},
      {"memory_hpz_secondary_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.hpz_secondary_bytes; }},
      {"memory_gathered_parameters_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.gathered_parameters_bytes; }},
      {"memory_buffers_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.buffers_bytes; }},
      {"memory_activations_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.activations_bytes; }},
      {"memory_cuda_context_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.cuda_context_bytes; }},
      {"memory_nccl_buffers_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.nccl_buffers_bytes; }},
      {"memory_cublas_workspace_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.cublas_workspace_bytes; }},
      {"memory_allocator_rounding_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.allocator_rounding_bytes; }},
      {"memory_reserve_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.reserve_bytes; }},
      {"hbm_per_gpu_bytes", "B", kAny, [](const FieldRow& r) -> FieldValue { return C(r).gpu.hbm_bytes; }},
      {"schedule_ops", "", kRan, [](const FieldRow& r) { return Int(V(r).num_ops); }},
  };
  return kFields;
}

FieldValue FieldOf(const ReportField& f, const FieldRow& row) {
  if (f.needs == kRan && !model::Ran(*row.variant)) return std::monostate{};
  if (f.needs == kMem && !model::HasMemoryEstimate(*row.variant)) return std::monostate{};
  return f.get(row);
}

std::vector<FieldRow> ReportRows(const model::Report& r) {
  std::vector<FieldRow> rows;
  for (const model::VariantReport& v : r.variants) rows.push_back({&v, &r.cluster, r.scenario_name});
  return rows;
}

namespace {

std::string Quote(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string FieldJson(const FieldValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, long long>) {
          return fmt::format("{}", x);
        } else if constexpr (std::is_same_v<T, double>) {
          return std::isfinite(x) ? fmt::format("{}", x) : "null";  // fmt: shortest round-trip text
        } else {
          return Quote(x);
        }
      },
      v);
}

std::string FieldCsv(const FieldValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "";
  if (const std::string* s = std::get_if<std::string>(&v)) {
    // RFC 4180 section 2, rules 6 and 7.
    if (s->find_first_of(",\"\r\n") == std::string::npos) return *s;
    std::string out = "\"";
    for (char ch : *s) {
      if (ch == '"') out += '"';
      out += ch;
    }
    return out + "\"";
  }
  const std::string text = FieldJson(v);
  return text == "null" ? "" : text;
}

std::string FieldText(const FieldValue& v, int digits) {
  if (std::holds_alternative<std::monostate>(v)) return "-";
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  if (const double* d = std::get_if<double>(&v)) return fmt::format("{:.{}g}", *d, digits);
  return FieldJson(v);
}

void AppendRowMembers(const FieldRow& row, std::string* out) {
  // Fields sharing a prefix before the first dot are contiguous in the list (ReportFields), so an object
  // opens at a field whose prefix differs from the previous one's and closes at the next change.
  std::string open;  // the prefix of the object being written ("" at top level)
  bool first_in_object = true;
  for (const ReportField& f : ReportFields()) {
    const FieldValue v = FieldOf(f, row);
    if (std::holds_alternative<std::monostate>(v)) continue;
    const std::string_view name = f.name;
    const size_t dot = name.find('.');
    const std::string prefix(dot == std::string_view::npos ? std::string_view() : name.substr(0, dot));
    const std::string_view key = dot == std::string_view::npos ? name : name.substr(dot + 1);
    if (prefix != open) {
      if (!open.empty()) *out += '}';
      if (!prefix.empty()) {
        if (!out->empty()) *out += ',';
        *out += Quote(prefix) + ":{";
        first_in_object = true;
      }
      open = prefix;
    }
    if (open.empty()) {
      if (!out->empty()) *out += ',';
    } else if (!first_in_object) {
      *out += ',';
    }
    first_in_object = false;
    *out += Quote(key) + ":" + FieldJson(v);
  }
  if (!open.empty()) *out += '}';
}

std::string RowJson(const FieldRow& row) {
  std::string members;
  AppendRowMembers(row, &members);
  return "{" + members + "}";
}

std::string RowsJsonl(const std::vector<FieldRow>& rows) {
  std::string out;
  for (const FieldRow& r : rows) out += RowJson(r) + "\n";
  return out;
}

std::string RowsCsv(const std::vector<FieldRow>& rows) {
  std::string out;
  for (size_t i = 0; i < ReportFields().size(); ++i) {
    if (i > 0) out += ',';
    out += FieldCsv(std::string(ReportFields()[i].name));
  }
  out += "\r\n";
  for (const FieldRow& r : rows) {
    for (size_t i = 0; i < ReportFields().size(); ++i) {
      if (i > 0) out += ',';
      out += FieldCsv(FieldOf(ReportFields()[i], r));
    }
    out += "\r\n";
  }
  return out;
}

}  // namespace zerosim::io
