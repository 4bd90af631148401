// The report's quantities as one list: each field a name, a unit, a getter and the outputs that show it.
// Every writer of a variant's quantities reads it: the flat rows, CSV (RFC 4180) or JSON lines (`zerosim run
// --format csv|jsonl`), which are also the sweep rows (study/sweep_rows.cc) and `zerosim compare`'s fields;
// the JSON document's variant object (report_json.cc: each field's place in it); the table's lines of
// quantities (report_table.cc); compare's parts of the iteration time (study/compare.cc). A name means the
// same in every output. docs/report.md lists the fields.
//
// The list is report_fields.cc; the values' text and the rows' writers report_rows.cc.
//
// Adding a field is one entry in ReportFields() (report_fields.cc): a name, a unit, a getter, and where it
// shows (a row: by default, at the list's place; the document: its JsonPlace; compare's parts of the
// iteration time: its CausePlace; the table: its TablePlace; compare's table: `headline`). A dot in a row
// name nests in JSON lines: "cluster.nodes" is {"cluster": {"nodes": ...}}; fields sharing a prefix sit
// together in the list (a test checks it). report_fields.cc counts VariantReport's members: one added there
// and not shown here (or said to be shown by no output) fails the build.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/report/report.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::io {

// A field's value; monostate: none (a number of a variant that did not run).
using FieldValue = std::variant<std::monostate, bool, long long, double, std::string>;

// What a row is computed from: one variant of a report and the cluster and scenario it ran on.
struct FieldRow {
  const model::VariantReport* variant = nullptr;
  const model::ClusterSpec* cluster = nullptr;
  std::string_view scenario;  // the scenario's name
  // The table's only: the first variant evaluated by the same engine, the baseline of its speedup (nullptr:
  // the variant itself).
  const model::VariantReport* baseline = nullptr;
};

// When a field has a value (else none: omitted from JSON, empty in CSV, "-" in tables).
enum class FieldNeeds : uint8_t {
  kNothing,   // always: inputs, names, feasibility
  kRun,       // a variant that ran (model::Ran): throughputs, times, bytes; none for an infeasible one
  kMemory,    // a memory estimate (model::HasMemoryEstimate): kept for a variant that does not fit in HBM
  kLinkLoad,  // a variant that ran with its link load measured (the sim engine: LinkLoadReport::measured)
};

// Where the JSON document (report_json.h) puts a field in a variant's object.
struct JsonPlace {
  const char* path = nullptr;  // dots nest: "bytes.cross_node.total"; nullptr: not in the document
  int at = 0;  // the document writes its fields in ascending `at` (unique; the list spaces them by 10); an
               // object sits where its first member does
};

// Where `zerosim compare` lists a field among the iteration time's parts (study/compare.h): their sum, with
// "other" for what they leave out, is the iteration time.
struct CausePlace {
  const char* part = nullptr;  // "compute.gemm", "exposed.nccl_sms"; nullptr: not a part
  int at = 0;                  // the parts' order before compare sorts them by change (ties keep it)
};

// How the table (report_table.h) shows a field: one line per field below the variants' settings, in ascending
// `at`, under its section's heading (a heading is printed where the section changes), the cell as `text`
// says.
enum class TableText : uint8_t {
  kFixed,    // a number, value / divisor with `decimals` decimals
  kPercent,  // a fraction as a percentage, one decimal ("41.3%")
  kYesNo,    // a bool as "yes" or "NO"
  kText,     // a string as it is (fields written for the table: "0.905-1.208")
};
struct TablePlace {
  const char* label =
      nullptr;  // "compute (s)"; "{}" stands for the report's first variant; nullptr: not shown
  int at = 0;
  const char* section =
      nullptr;  // the heading the line sits under; nullptr: none (the lines before any heading)
  TableText text = TableText::kFixed;
  int decimals = 3;
  double divisor = 1;  // kGB, kGiB
};

struct ReportField {
  const char* name;  // "iteration_time_s", "cluster.nodes": a dot nests in JSON lines
  const char* unit;  // SI: "s", "B", "B/s", "FLOP/s" ("TFLOP/s" for tflops_per_gpu), "1/s"; "" for none
  FieldNeeds needs;
  FieldValue (*get)(const FieldRow& row);  // the JSON document's fields read only `row.variant`
  bool row = true;  // a column of the rows (JSON lines, CSV, sweep rows, compare), in the list's order
  JsonPlace json = {};
  CausePlace cause = {};  // a kRun field of doubles
  TablePlace table = {};
  bool headline =
      false;  // among the few fields `zerosim compare`'s table shows (its rows show every row field)
};

// The list: every field of every output. The rows' fields are in their output order.
const std::vector<ReportField>& ReportFields();
// The fields the rows show (ReportField::row), in output order.
const std::vector<ReportField>& RowFields();
// The fields the JSON document shows, in its order (ascending JsonPlace::at).
const std::vector<ReportField>& JsonFields();
// The iteration time's parts (CausePlace), in their order.
const std::vector<ReportField>& CauseFields();
// The table's lines (TablePlace), in its order.
const std::vector<ReportField>& TableFields();
// The field's table cell: `v` as its TablePlace says, "-" for monostate.
std::string TableCell(const ReportField& f, const FieldValue& v);

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

// One JSON object for `row` (no newline): the row fields in list order, nested at the dots; fields without a
// value (FieldOf) are left out.
std::string RowJson(const FieldRow& row);
// Appends the `"key":value` members of RowJson(row) (without braces) to `out`, after a comma when `out`
// already holds members: for writers that put their own members around them (sweep rows).
void AppendRowMembers(const FieldRow& row, std::string* out);

// JSON lines: one RowJson per row, each ending in "\n".
std::string RowsJsonl(const std::vector<FieldRow>& rows);
// CSV (RFC 4180): a header of the row fields' names, then one record per row, every line ending in CRLF.
std::string RowsCsv(const std::vector<FieldRow>& rows);

}  // namespace zerosim::io
