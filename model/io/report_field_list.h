// The short names the report's field list is written with (report_fields.cc, report_byte_fields.cc): the
// variant and cluster of a row, the needs, the table's places and sections. Internal to zerosim_io.
#pragma once

#include "model/io/report_fields.h"
#include "model/report/evaluate.h"
#include "model/units.h"

namespace zerosim::io::field_list {

using model::VariantReport;

inline const VariantReport& V(const FieldRow& r) { return *r.variant; }
inline const model::ClusterSpec& C(const FieldRow& r) { return *r.cluster; }
inline FieldValue Int(long long v) { return v; }
// bytes_per_gpu: the report's bytes over its GPUs (0 without GPUs).
inline double PerGpu(const VariantReport& v) { return v.gpus > 0 ? 1.0 / v.gpus : 0.0; }
// Model TFLOP/s per GPU by NVIDIA's counts (evaluate.h MegatronModelFlopsPerToken) at the headline's
// throughput.
inline double ModelTflopsPerGpu(const VariantReport& v, bool causal) {
  return model::HeadlineModelTflopsPerGpu(v, model::MegatronModelFlopsPerToken(v.model, causal));
}

// What each field needs (FieldNeeds), short for the list.
inline constexpr FieldNeeds kAny = FieldNeeds::kNothing;
inline constexpr FieldNeeds kRan = FieldNeeds::kRun;
inline constexpr FieldNeeds kMem = FieldNeeds::kMemory;
inline constexpr FieldNeeds kLink = FieldNeeds::kLinkLoad;
// The table's places (TablePlace), short for the list: a time in seconds, a number with `decimals`, the
// volume sections' GB and the memory section's GiB, a text.
inline constexpr const char* kCrossNode = "cross-node GB per iteration, all GPUs";
inline constexpr const char* kIntraNode = "intra-node GB per iteration, all GPUs";
inline constexpr const char* kMemorySection = "memory per GPU (GiB)";
constexpr TablePlace Seconds(const char* label, int at) { return {label, at}; }
constexpr TablePlace Fixed(const char* label, int at, int decimals) {
  return {label, at, nullptr, TableText::kFixed, decimals};
}
constexpr TablePlace Gb(const char* label, int at, const char* section) {
  return {label, at, section, TableText::kFixed, 1, kGB};
}
constexpr TablePlace Gib(const char* label, int at) {
  return {label, at, kMemorySection, TableText::kFixed, 2, kGiB};
}
constexpr TablePlace Text(const char* label, int at, const char* section = nullptr) {
  return {label, at, section, TableText::kText};
}
inline constexpr CausePlace kNoCause{};
inline constexpr JsonPlace kNoJson{};
inline constexpr TablePlace kNoTable{};
// One of compare's headline fields (ReportField::headline).
inline constexpr bool kHeadline = true;

// Whether the rows show a field (ReportField::row).
inline constexpr bool kRow = true;
inline constexpr bool kNoRow = false;

// The volume fields: each tier's bytes per purpose over all GPUs, then per GPU (report_byte_fields.cc), in
// the list's order, between the iteration's parts and the memory.
std::vector<ReportField> ByteFields();

}  // namespace zerosim::io::field_list
