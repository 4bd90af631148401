// --format: how a command writes its result on stdout. `table` for people; `json` the full report
// document (docs/report.md); `jsonl` and `csv` one row per variant with the field list's names
// (model/io/report_fields.h), the same names as the sweep rows.
#pragma once

#include <string>

#include <boost/program_options.hpp>

#include "model/report.h"
#include "model/status.h"

namespace zerosim::cli {

enum class OutputFormat { kTable, kJson, kJsonl, kCsv };

// "table", "json", "jsonl" or "csv"; an error naming the choices otherwise.
StatusOr<OutputFormat> ParseOutputFormat(const std::string& name);

// Adds `--format table|json|jsonl|csv` (default table) bound to `format`.
void AddFormatOption(boost::program_options::options_description* opts, std::string* format);

// `r` in `format`: the table (model/io/report_table.h), the JSON document (report_json.h), or the rows as
// JSON lines or CSV (report_fields.h).
std::string RenderReport(const model::Report& r, OutputFormat format);

}  // namespace zerosim::cli
