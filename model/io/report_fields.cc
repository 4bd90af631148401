#include "model/io/report_fields.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/aggregate_members.h"
#include "model/io/report_field_list.h"
#include "model/report/evaluate.h"
#include "model/spec/model_spec.h"
#include "model/units.h"

namespace zerosim::io {

namespace {

using model::VariantReport;
using namespace field_list;  // NOLINT: the list's short names (report_field_list.h)

// Every member of the report's structs is shown by some output or named here as shown by none, so that a
// member added to one of them and not to the list fails the build (model/aggregate_members.h). VariantReport:
// its 32 members; name, engine, model and zero are the JSON document's own (report_json.cc) and the rows'
// variant, engine, model.* and zero.*; gpus only divides (bytes_per_gpu); phases are RLHF's (rlhf_report.h);
// invariant_violation is never printed (the studies stop on it). PhaseBytes, VolumeReport, MemoryBreakdown,
// Band and LinkLoadReport: each member below.
static_assert(
    model::AggregateMembers<VariantReport>() == 33,
    "VariantReport changed: show its new member in ReportFields() (or say above why none shows it)");
static_assert(model::AggregateMembers<model::PhaseBytes>() == 7 &&
              model::AggregateMembers<model::VolumeReport>() == 2);
static_assert(model::AggregateMembers<model::MemoryBreakdown>() == 17);
static_assert(model::AggregateMembers<model::Band>() == 8);
static_assert(model::AggregateMembers<model::LinkLoadReport>() == 5);

}  // namespace

// The fields. Names and meanings: docs/report.md ("Rows: CSV, JSON lines and sweeps"; the document's
// fields: "A variant"). The list's order is the rows'; the first group and the metrics up to
// memory_per_gpu_bytes are the sweep rows' historical fields (docs/sweeps.md), in their order. Fields the
// document shows carry their place in it ({path, at}: `at` orders the document); those it shows and the rows
// do not (kNoRow) sit beside their kin. The iteration time's parts (compare) carry their CausePlace, the
// table's lines their TablePlace (the table's own cells, written from several quantities, are fields of their
// own; feasible, its last line, sits at the memory section's indent, as it always has). compare's table shows
// the kHeadline ones. The places (`at`) are spaced by 10, so that a new field goes between two without
// renumbering; a new row field goes at the rows' end (the sweep rows' columns stay where they were).
const std::vector<ReportField>& ReportFields() {
  // A table laid out by hand, one field to an entry (clang-format would put each member on its own line).
  // clang-format off
  static const std::vector<ReportField> kFields = [] {
    std::vector<ReportField> fields = {
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
      {"seq_len", "", kAny, [](const FieldRow& r) { return Int(V(r).model.seq_len); }, kRow, {"seq_len", 10}},
      {"tokens_per_gpu", "", kAny,
       [](const FieldRow& r) {
         // A context-parallel rank's share of its micro-batch's sequences (parallel_layout.h `context`).
         return Int(static_cast<long long>(V(r).model.seq_len) * V(r).zero.train_micro_batch_size_per_gpu /
                    V(r).layout.context);
       },
       kRow, {"tokens_per_gpu", 15}},
      // The layout (model/spec/parallel_layout.h): tensor parallelism beside the data parallelism of zero.*.
      {"parallel.expert", "", kAny, [](const FieldRow& r) { return Int(V(r).layout.expert); }, kNoRow,
       {"parallel.expert", 17}},
      // ETP (Megatron's expert_tensor_parallel_size; t unless stated): 1 beside t > 1 folds the expert grid.
      {"parallel.expert_tensor", "", kAny,
       [](const FieldRow& r) { return Int(V(r).layout.expert_tensor_size()); }, kNoRow,
       {"parallel.expert_tensor", 32}},
      {"parallel.moe_token_dispatcher_type", "", kAny,
       [](const FieldRow& r) -> FieldValue {
         return std::string(model::MoeDispatcherName(V(r).layout.moe_token_dispatcher));
       },
       kNoRow, {"parallel.moe_token_dispatcher_type", 33}},
      {"parallel.context", "", kAny, [](const FieldRow& r) { return Int(V(r).layout.context); }, kNoRow,
       {"parallel.context", 18}},
      {"parallel.context_comm", "", kAny,
       [](const FieldRow& r) -> FieldValue { return std::string(model::ContextCommName(V(r).layout.context_comm)); },
       kNoRow, {"parallel.context_comm", 19}},
      {"parallel.account_for_embedding_in_pipeline_split", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).layout.account_for_embedding_in_pipeline_split; }, kNoRow,
       {"parallel.account_for_embedding_in_pipeline_split", 20}},
      {"parallel.account_for_loss_in_pipeline_split", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).layout.account_for_loss_in_pipeline_split; }, kNoRow,
       {"parallel.account_for_loss_in_pipeline_split", 21}},
      // The block's last slots (30, 31; `feasible` moved to 33).
      {"parallel.num_layers_in_first_pipeline_stage", "", kAny,
       [](const FieldRow& r) { return Int(V(r).layout.num_layers_in_first_pipeline_stage); }, kNoRow,
       {"parallel.num_layers_in_first_pipeline_stage", 30}},
      {"parallel.num_layers_in_last_pipeline_stage", "", kAny,
       [](const FieldRow& r) { return Int(V(r).layout.num_layers_in_last_pipeline_stage); }, kNoRow,
       {"parallel.num_layers_in_last_pipeline_stage", 31}},
      {"parallel.tensor", "", kAny, [](const FieldRow& r) { return Int(V(r).layout.tensor); }, kRow,
       {"parallel.tensor", 22}},
      {"parallel.sequence_parallel", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).layout.sequence_parallel; }, kRow,
       {"parallel.sequence_parallel", 24}},
      {"parallel.tp_comm_overlap", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).layout.tp_comm_overlap; }, kRow,
       {"parallel.tp_comm_overlap", 25}},
      {"parallel.overlap_p2p_comm", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).layout.overlap_p2p_comm; }, kNoRow,
       {"parallel.overlap_p2p_comm", 23}},
      {"parallel.data", "", kAny,
       [](const FieldRow& r) { return Int(V(r).layout.data_parallel(V(r).gpus)); }, kNoRow,
       {"parallel.data", 26}},
      {"parallel.pipeline", "", kAny, [](const FieldRow& r) { return Int(V(r).layout.pipeline); }, kRow,
       {"parallel.pipeline", 27}},
      {"parallel.virtual_stages", "", kAny, [](const FieldRow& r) { return Int(V(r).layout.virtual_stages); },
       kRow, {"parallel.virtual_stages", 28}},
      {"parallel.schedule", "", kAny,
       [](const FieldRow& r) -> FieldValue { return std::string(model::PipelineScheduleName(V(r).layout.schedule)); },
       kRow, {"parallel.schedule", 29}},
      {"layout_text", "", kAny,
       [](const FieldRow& r) -> FieldValue {
         const model::ParallelLayout& l = V(r).layout;
         const int gpus = C(r).total_gpus();
         std::string pipeline;
         if (l.pipeline > 1) {
           pipeline = l.virtual_stages > 1 ? fmt::format(" PP{}x{}", l.pipeline, l.virtual_stages)
                                           : fmt::format(" PP{}", l.pipeline);
           // The embedding and the loss counted in the split, or the end stages' layers given (pipeline_split.h).
           if (l.account_for_embedding_in_pipeline_split) pipeline += "+E";
           if (l.account_for_loss_in_pipeline_split) pipeline += "+L";
           if (l.num_layers_in_first_pipeline_stage > 0) {
             pipeline += fmt::format(" first {}", l.num_layers_in_first_pipeline_stage);
           }
           if (l.num_layers_in_last_pipeline_stage > 0) {
             pipeline += fmt::format(" last {}", l.num_layers_in_last_pipeline_stage);
           }
         }
         std::string expert;
         if (l.expert > 1) {
           expert = fmt::format(" EP{}", l.expert);
           if (l.expert_folded()) expert += " ETP1";
           if (l.moe_token_dispatcher != model::MoeDispatcher::kAllToAll) {
             expert += fmt::format(" {}", model::MoeDispatcherName(l.moe_token_dispatcher));
           }
           if (l.expert_load_imbalance > 1) expert += fmt::format(" imbalance {:g}", l.expert_load_imbalance);
         }
         const std::string context =
             l.context > 1 ? fmt::format(" CP{}{}", l.context,
                                         l.context_comm == model::ContextComm::kP2p
                                             ? ""
                                             : fmt::format(" {}", model::ContextCommName(l.context_comm)))
                           : "";
         return fmt::format("{}x{}{}{}{}{}", l.tensor, l.data_parallel(gpus), l.sequence_parallel ? " SP" : "",
                            pipeline, expert, context);
       },
       kNoRow, kNoJson, kNoCause, Text("tensor x data parallel", 5)},
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
      {"zero.launcher_origin", "", kAny,
       [](const FieldRow& r) -> FieldValue { return std::string(V(r).zero.launcher_origin()); }},
      {"zero.cuda_device_max_connections", "", kAny,
       [](const FieldRow& r) { return Int(V(r).zero.runtime.cuda_device_max_connections); }},
      {"zero.cuda_device_max_connections_origin", "", kAny,
       [](const FieldRow& r) -> FieldValue { return std::string(V(r).zero.queue_origin()); }},
      {"zero.memory_reserve", "", kAny,
       [](const FieldRow& r) -> FieldValue { return V(r).zero.runtime.memory_reserve; }},
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
      {"feasible", "", kAny, [](const FieldRow& r) -> FieldValue { return V(r).feasible; }, kRow, {"feasible", 34},
       kNoCause, {"feasible", 380, kMemorySection, TableText::kYesNo}, kHeadline},
      {"infeasible_reason", "", kAny, [](const FieldRow& r) -> FieldValue { return V(r).infeasible_reason; }, kRow,
       {"infeasible_reason", 40}},
      {"iteration_time_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).iteration_time_s; }, kRow,
       {"iteration_time_s", 50}, kNoCause, kNoTable, kHeadline},
      {"tflops_per_gpu", "TFLOP/s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).tflops_per_gpu; },
       kRow, {"tflops_per_gpu", 60}, kNoCause, kNoTable, kHeadline},
      {"mfu", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).mfu; }, kRow, {"mfu", 70}, kNoCause,
       kNoTable},
      {"mfu_fp8_peak", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).mfu_fp8_peak; }, kRow,
       {"mfu_fp8_peak", 72}, kNoCause, kNoTable},
      {"tokens_per_s", "1/s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).tokens_per_s; }, kRow,
       {"tokens_per_s", 150}, kNoCause, Fixed("  model's own value", 75, 0), kHeadline},
      // The band (model/report/band.h): throughputs times its factors, the time divided by them.
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
      // The table's own lines (kNoRow, no place in the document): cells it writes from several quantities.
      {"iteration_time_band_text", "", kRan,
       [](const FieldRow& r) -> FieldValue {
         return fmt::format("{:.3f}-{:.3f}", V(r).iteration_time_s / V(r).band.high,
                            V(r).iteration_time_s / V(r).band.low);
       },
       kNoRow, kNoJson, kNoCause, Text("  band (s)", 20)},
      {"tokens_per_s_band_text", "", kRan,
       [](const FieldRow& r) -> FieldValue {
         return fmt::format("{:.0f}-{:.0f}", V(r).tokens_per_s * V(r).band.low, V(r).tokens_per_s * V(r).band.high);
       },
       kNoRow, kNoJson, kNoCause, Text("  band", 60)},
      // The band's group (model/report/band.h; "ds" = deepspeed): its own when validated (with its points); "*": another
      // family's, widened, for a GPU whose compute is derived from it; "outside": the widest band.
      {"band_from_text", "", kRan,
       [](const FieldRow& r) -> FieldValue {
         std::string g = V(r).band.group;
         if (const size_t at = g.find(" deepspeed "); at != std::string::npos) g.replace(at, 11, " ds ");
         if (V(r).band.validated) return fmt::format("{} n{}", g, V(r).band.n);
         return g.empty() ? std::string("outside (widest)") : g + "*";
       },
       kNoRow, kNoJson, kNoCause, Text("  band from", 70)},
      // Against the first variant evaluated by the same engine (FieldRow::baseline), named in the label.
      {"speedup_text", "", kRan,
       [](const FieldRow& r) -> FieldValue {
         const VariantReport& base = r.baseline != nullptr ? *r.baseline : V(r);
         if (!model::Ran(base)) return std::string("-");
         // The iteration times' ratio when both iterations train the same tokens, else the throughputs'
         // (a tensor-parallel variant trains d = P / t ranks' micro-batches per iteration).
         const double a = base.tokens_per_s * base.iteration_time_s, b = V(r).tokens_per_s * V(r).iteration_time_s;
         const bool same_tokens = std::abs(a - b) <= 1e-9 * std::max(a, b);
         return fmt::format("{:.2f}x", same_tokens ? base.iteration_time_s / V(r).iteration_time_s
                                                   : V(r).tokens_per_s / base.tokens_per_s);
       },
       kNoRow, kNoJson, kNoCause, Text("speedup vs {}", 80)},
      {"band_key", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.key; }, kNoRow,
       {"band.key", 80}},
      {"band_group", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.group; }, kRow,
       {"band.group", 90}},
      {"band_n", "", kRan, [](const FieldRow& r) { return Int(V(r).band.n); }, kNoRow, {"band.n", 100}},
      {"band_low", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.low; }, kNoRow,
       {"band.low", 110}},
      {"band_high", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.high; }, kNoRow,
       {"band.high", 120}},
      {"band_validated", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.validated; }, kRow,
       {"band.validated", 130}},
      {"band_note", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.note; }, kNoRow,
       {"band.note", 140}},
      {"band_center", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).band.center; }, kRow,
       {"band.center", 141}},
      // The headline (model/report/band.h): the calibrated expectation, the model's value times the band's centre
      // (1 unless the band excludes the model's value), so that it always lies inside its band.
      {"expected.iteration_time_s", "s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).iteration_time_s / V(r).band.center; }, kRow,
       {"expected.iteration_time_s", 142}, kNoCause, Seconds("iteration time (s)", 10)},
      {"expected.tflops_per_gpu", "TFLOP/s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).tflops_per_gpu * V(r).band.center; }, kRow,
       {"expected.tflops_per_gpu", 143}, kNoCause, Fixed("TFLOPs per GPU (with recompute)", 30, 1)},
      {"expected.mfu", "", kRan, [](const FieldRow& r) -> FieldValue { return V(r).mfu * V(r).band.center; }, kRow,
       {"expected.mfu", 144}, kNoCause, {"MFU of BF16 peak (6N + 12lhs)", 40, nullptr, TableText::kPercent}},
      {"expected.tokens_per_s", "1/s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).tokens_per_s * V(r).band.center; }, kRow,
       {"expected.tokens_per_s", 145}, kNoCause, Fixed("tokens per second", 50, 0)},
      // Model TFLOP/s per GPU as NVIDIA's performance tables print them (evaluate.h MegatronModelFlopsPerToken), of
      // the headline's tokens per second: Megatron-Bridge's causal count, and Megatron-LM r0.8's full-square one.
      {"expected.model_tflops_per_gpu_nvidia", "TFLOP/s", kRan,
       [](const FieldRow& r) -> FieldValue { return ModelTflopsPerGpu(V(r), true); }, kRow,
       {"expected.model_tflops_per_gpu_nvidia", 146}, kNoCause, Fixed("model TFLOP/s (NVIDIA's count)", 45, 1)},
      {"expected.model_tflops_per_gpu_megatron", "TFLOP/s", kRan,
       [](const FieldRow& r) -> FieldValue { return ModelTflopsPerGpu(V(r), false); }, kRow,
       {"expected.model_tflops_per_gpu_megatron", 147}},
      {"exposed_comm_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).exposed_comm_s; }, kRow,
       {"exposed_comm_s", 160}, kNoCause, Seconds("exposed communication (s)", 160), kHeadline},
      {"cross_node_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.cross_node.total(); }, kRow,
       {"bytes.cross_node.total", 310}, kNoCause, Gb("total", 230, kCrossNode), kHeadline},
      {"intra_node_bytes", "B", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).bytes.intra_node.total(); }, kRow,
       {"bytes.intra_node.total", 350}, kNoCause, Gb("total", 270, kIntraNode), kHeadline},
      {"memory_per_gpu_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.total_bytes; }, kRow,
       {"memory_per_gpu_bytes.total", 560}, kNoCause, kNoTable, kHeadline},
      // The why: compute by kind, exposed communication by cause, bytes by tier and phase, memory by part.
      {"compute_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).compute_s; }, kRow,
       {"compute_s", 170}, kNoCause, Seconds("compute (s)", 90), kHeadline},
      {"optimizer_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).optimizer_s; }, kRow,
       {"optimizer_s", 180}, {"optimizer", 50}, Seconds("optimizer step (s)", 150)},
      {"gpu_side_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).gpu_side_s; }, kRow,
       {"gpu_side_s", 190}, {"gpu_side", 60}, Seconds("quantization + copies (s)", 140)},
      {"gemm_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).gemm_s; }, kRow,
       {"compute_parts_s.gemm", 210}, {"compute.gemm", 10}, Seconds("  GEMMs", 100)},
      {"attention_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).attention_s; }, kRow,
       {"compute_parts_s.attention", 220}, {"compute.attention", 20}, Seconds("  attention", 110)},
      {"memory_bound_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).memory_bound_s; }, kRow,
       {"compute_parts_s.memory_bound", 230}, {"compute.memory_bound", 30}, Seconds("  memory-bound kernels", 120)},
      {"kernel_gaps_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).kernel_gaps_s; }, kRow,
       {"compute_parts_s.kernel_gaps", 240}, {"compute.kernel_gaps", 40}, Seconds("  kernel gaps", 130)},
      {"waiting_for_data_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).waiting_for_data_s; },
       kRow, {"exposed_parts_s.waiting_for_data", 250}, {"exposed.waiting_for_data", 70},
       Seconds("  waiting for data", 170)},
      {"comm_interference_s", "s", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).comm_interference_s; }, kRow, {"comm_interference_s", 200},
       {"exposed.nccl_sms", 80}, Seconds("  SMs held by NCCL", 180)},
      // The document shows comm_interference_s twice: on its own and as a part of the exposed time.
      {"exposed_nccl_sms_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).comm_interference_s; },
       kNoRow, {"exposed_parts_s.nccl_sms", 260}},
      {"queue_blocking_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).queue_blocking_s; }, kRow,
       {"exposed_parts_s.one_hardware_queue", 270}, {"exposed.one_hardware_queue", 90},
       Seconds("  one hardware queue", 190)},
      // Pipeline parallelism (model/report/pipeline_evaluate.h): a part of the iteration beside the exposed time.
      {"pipeline_bubble_s", "s", kRan, [](const FieldRow& r) -> FieldValue { return V(r).pipeline_bubble_s; },
       kRow, {"pipeline_bubble_s", 275}, {"pipeline.bubble", 95}, Seconds("pipeline bubble (s)", 195)},
      {"pipeline_bubble_fraction", "", kRan,
       [](const FieldRow& r) -> FieldValue { return V(r).pipeline_bubble_fraction; }, kRow,
       {"pipeline_bubble_fraction", 276}},
    };
    // The volume fields (report_byte_fields.cc), then the memory's and the rest.
    const std::vector<ReportField> bytes = ByteFields();
    fields.insert(fields.end(), bytes.begin(), bytes.end());
    fields.insert(fields.end(), {
      {"memory_parameters_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.parameters_bytes; }, kRow,
       {"memory_per_gpu_bytes.parameters", 440}},
      {"memory_gradients_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.gradients_bytes; }, kRow,
       {"memory_per_gpu_bytes.gradients", 450}},
      {"memory_model_states_text", "", kMem,
       [](const FieldRow& r) -> FieldValue {
         return fmt::format("{:.2f}", (V(r).memory.parameters_bytes + V(r).memory.gradients_bytes) / kGiB);
       },
       kNoRow, kNoJson, kNoCause, Text("parameters + gradients", 280, kMemorySection)},
      {"memory_optimizer_states_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.optimizer_states_bytes; }, kRow,
       {"memory_per_gpu_bytes.optimizer_states", 460}, kNoCause, Gib("optimizer states", 290)},
      {"memory_hpz_secondary_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.hpz_secondary_bytes; }, kRow,
       {"memory_per_gpu_bytes.hpz_secondary", 470}, kNoCause, Gib("hpZ secondary partition", 300)},
      {"memory_gathered_parameters_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.gathered_parameters_bytes; }, kRow,
       {"memory_per_gpu_bytes.gathered_parameters", 480}, kNoCause, Gib("gathered parameters", 310)},
      {"memory_buffers_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.buffers_bytes; }, kRow,
       {"memory_per_gpu_bytes.buffers", 490}, kNoCause, Gib("buffers", 320)},
      {"memory_activations_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.activations_bytes; }, kRow,
       {"memory_per_gpu_bytes.activations", 500}, kNoCause, Gib("activations", 330)},
      {"memory_cuda_context_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.cuda_context_bytes; }, kRow,
       {"memory_per_gpu_bytes.cuda_context", 510}},
      {"memory_nccl_buffers_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.nccl_buffers_bytes; }, kRow,
       {"memory_per_gpu_bytes.nccl_buffers", 520}},
      {"memory_cublas_workspace_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.cublas_workspace_bytes; }, kRow,
       {"memory_per_gpu_bytes.cublas_workspace", 530}},
      // The process's memory besides its tensors (model/report/runtime_memory.h), one line in the table.
      {"memory_runtime_text", "", kMem,
       [](const FieldRow& r) -> FieldValue {
         const model::MemoryBreakdown& m = V(r).memory;
         return fmt::format("{:.2f}", (m.cuda_context_bytes + m.nccl_buffers_bytes + m.cublas_workspace_bytes) / kGiB);
       },
       kNoRow, kNoJson, kNoCause, Text("CUDA context, NCCL, cuBLAS", 340, kMemorySection)},
      {"memory_allocator_rounding_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.allocator_rounding_bytes; }, kRow,
       {"memory_per_gpu_bytes.allocator_rounding", 540}, kNoCause, Gib("allocator rounding", 350)},
      {"memory_fragmentation_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.fragmentation_bytes; }, kRow,
       {"memory_per_gpu_bytes.fragmentation", 545}, kNoCause, Gib("allocator fragmentation", 355)},
      {"memory_reserve_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.reserve_bytes; }, kRow,
       {"memory_per_gpu_bytes.reserve", 550}, kNoCause, Gib("reserve", 360)},
      // Subtotals (model/report/memory.h): what PyTorch's allocator shows as active and as reserved at the peak.
      {"memory_active_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.active_bytes; }, kRow,
       {"memory_per_gpu_bytes.active", 556}, kNoCause, Gib("active (tensors, cuBLAS)", 365)},
      {"memory_reserved_bytes", "B", kMem,
       [](const FieldRow& r) -> FieldValue { return V(r).memory.reserved_bytes; }, kRow,
       {"memory_per_gpu_bytes.reserved", 558}, kNoCause, Gib("reserved (allocator peak)", 366)},
      // The estimate's HBM (the document only; the rows' hbm_per_gpu_bytes is the cluster's GPU's).
      {"memory_hbm_bytes", "B", kMem, [](const FieldRow& r) -> FieldValue { return V(r).memory.hbm_bytes; },
       kNoRow, {"memory_per_gpu_bytes.hbm", 570}},
      {"memory_total_of_hbm_text", "", kMem,
       [](const FieldRow& r) -> FieldValue {
         return fmt::format("{:.1f}/{:.0f}", V(r).memory.total_bytes / kGiB, V(r).memory.hbm_bytes / kGiB);
       },
       kNoRow, kNoJson, kNoCause, Text("total / HBM", 370, kMemorySection)},
      {"hbm_per_gpu_bytes", "B", kAny, [](const FieldRow& r) -> FieldValue { return C(r).gpu.hbm_bytes; }},
      {"schedule_ops", "", kRan, [](const FieldRow& r) { return Int(V(r).num_ops); }, kRow, {"schedule_ops", 580}},
      // The sim engine's measured link load (the document only; docs/report.md).
      {"link_nic_carried_bytes", "B", kLink,
       [](const FieldRow& r) -> FieldValue { return V(r).link_load.nic_carried_bytes; }, kNoRow,
       {"link_load_bytes.nic_carried", 590}},
      {"link_nic_planned_bytes", "B", kLink,
       [](const FieldRow& r) -> FieldValue { return V(r).link_load.nic_planned_bytes; }, kNoRow,
       {"link_load_bytes.nic_planned", 600}},
      {"link_nvlink_carried_bytes", "B", kLink,
       [](const FieldRow& r) -> FieldValue { return V(r).link_load.nvlink_carried_bytes; }, kNoRow,
       {"link_load_bytes.nvlink_carried", 610}},
      {"link_nvlink_planned_bytes", "B", kLink,
       [](const FieldRow& r) -> FieldValue { return V(r).link_load.nvlink_planned_bytes; }, kNoRow,
       {"link_load_bytes.nvlink_planned", 620}},
    });
    return fields;
  }();
  // clang-format on
  return kFields;
}

const std::vector<ReportField>& RowFields() {
  static const std::vector<ReportField> kRows = [] {
    std::vector<ReportField> out;
    for (const ReportField& f : ReportFields()) {
      if (f.row) out.push_back(f);
    }
    return out;
  }();
  return kRows;
}

const std::vector<ReportField>& CauseFields() {
  static const std::vector<ReportField> kCauses = [] {
    std::vector<ReportField> out;
    for (const ReportField& f : ReportFields()) {
      if (f.cause.part != nullptr) out.push_back(f);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const ReportField& a, const ReportField& b) { return a.cause.at < b.cause.at; });
    return out;
  }();
  return kCauses;
}

const std::vector<ReportField>& TableFields() {
  static const std::vector<ReportField> kTable = [] {
    std::vector<ReportField> out;
    for (const ReportField& f : ReportFields()) {
      if (f.table.label != nullptr) out.push_back(f);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const ReportField& a, const ReportField& b) { return a.table.at < b.table.at; });
    return out;
  }();
  return kTable;
}

const std::vector<ReportField>& JsonFields() {
  static const std::vector<ReportField> kJson = [] {
    std::vector<ReportField> out;
    for (const ReportField& f : ReportFields()) {
      if (f.json.path != nullptr) out.push_back(f);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const ReportField& a, const ReportField& b) { return a.json.at < b.json.at; });
    return out;
  }();
  return kJson;
}

FieldValue FieldOf(const ReportField& f, const FieldRow& row) {
  if (f.needs == kRan && !model::Ran(*row.variant)) return std::monostate{};
  if (f.needs == kMem && !model::HasMemoryEstimate(*row.variant)) return std::monostate{};
  if (f.needs == kLink && !(model::Ran(*row.variant) && row.variant->link_load.measured))
    return std::monostate{};
  return f.get(row);
}

std::vector<FieldRow> ReportRows(const model::Report& r) {
  std::vector<FieldRow> rows;
  for (const model::VariantReport& v : r.variants) rows.push_back({&v, &r.cluster, r.scenario_name});
  return rows;
}

}  // namespace zerosim::io
