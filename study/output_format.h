// --format: how a command writes its result on stdout. `table` for people; `json` the full report
// document (docs/report.md); `jsonl` and `csv` one row per variant with the field list's names
// (model/io/report_fields.h), the same names as the sweep rows.
#pragma once

#include <string>

#include "model/report.h"
#include "model/status.h"

namespace zerosim::study {

enum class OutputFormat { kTable, kJson, kJsonl, kCsv };

// "table", "json", "jsonl" or "csv"; an error naming the choices otherwise.
StatusOr<OutputFormat> ParseOutputFormat(const std::string& name);

// `r` in `format`: the table (model/io/report_table.h), the JSON document (report_json.h), or the rows as
// JSON lines or CSV (report_fields.h).
std::string RenderReport(const model::Report& r, OutputFormat format);

}  // namespace zerosim::study
