// The report's fields as one list: each field a name, a unit and a getter. The list renders a report's
// variants as flat rows, CSV (RFC 4180) or JSON lines (`zerosim run --format csv|jsonl`), and the same
// names are the sweep rows' (study/sweep_rows.cc) and `zerosim compare`'s, so a column means the same in
// every output. docs/report.md lists the fields.
//
// Adding a field is one line in ReportFields() (report_fields.cc): a name, a unit and a getter. A dot in a
// name nests in JSON: "cluster.nodes" is {"cluster": {"nodes": ...}}; fields sharing a prefix sit together
// in the list (a test checks it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/cluster_spec.h"
#include "model/report.h"

namespace zerosim::io {

// A field's value; monostate: none (a number of a variant that did not run).
using FieldValue = std::variant<std::monostate, bool, long long, double, std::string>;

// What a row is computed from: one variant of a report and the cluster and scenario it ran on.
struct FieldRow {
  const model::VariantReport* variant = nullptr;
  const model::ClusterSpec* cluster = nullptr;
  std::string_view scenario;  // the scenario's name
};

// When a field has a value (else none: omitted from JSON, empty in CSV, "-" in tables).
enum class FieldNeeds : uint8_t {
  kNothing,  // always: inputs, names, feasibility
  kRun,      // a variant that ran (model::Ran): throughputs, times, bytes; none for an infeasible one
  kMemory,   // a memory estimate (model::HasMemoryEstimate): kept for a variant that does not fit in HBM
};

struct ReportField {
  const char* name;  // "iteration_time_s", "cluster.nodes": a dot nests in JSON
  const char* unit;  // SI: "s", "B", "B/s", "FLOP/s" ("TFLOP/s" for tflops_per_gpu), "1/s"; "" for none
  FieldNeeds needs;
  FieldValue (*get)(const FieldRow& row);
};

// The list, in output order.
const std::vector<ReportField>& ReportFields();

// The field's value in `row` (monostate when the variant lacks what the field needs: an infeasible variant
// has no throughput, time or bytes).
FieldValue FieldOf(const ReportField& f, const FieldRow& row);

// The rows of every variant of `r`, in report order.
std::vector<FieldRow> ReportRows(const model::Report& r);

// The value as JSON text: shortest round-trip numbers, null for monostate and non-finite numbers, strings
// escaped (invalid UTF-8 replaced by U+FFFD).
std::string FieldJson(const FieldValue& v);
// The value as a CSV cell (RFC 4180: quoted when it holds a comma, a quote, CR or LF, quotes doubled;
// empty for monostate).
std::string FieldCsv(const FieldValue& v);
// The value as text for a table: numbers with `digits` significant digits, "-" for monostate.
std::string FieldText(const FieldValue& v, int digits = 6);

// One JSON object for `row` (no newline): the fields in list order, nested at the dots; fields without a
// value (FieldOf) are left out.
std::string RowJson(const FieldRow& row);
// Appends the `"key":value` members of RowJson(row) (without braces) to `out`, after a comma when `out`
// already holds members: for writers that put their own members around them (sweep rows).
void AppendRowMembers(const FieldRow& row, std::string* out);

// JSON lines: one RowJson per row, each ending in "\n".
std::string RowsJsonl(const std::vector<FieldRow>& rows);
// CSV (RFC 4180): a header of the field names, then one record per row, every line ending in CRLF.
std::string RowsCsv(const std::vector<FieldRow>& rows);

}  // namespace zerosim::io
