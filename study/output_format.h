// --format: how a command writes its result on stdout. `table` for people; `json` the full report
// document (docs/report.md); `jsonl` and `csv` one row per variant with the field list's names
// (model/io/report_fields.h), the same names as the sweep rows. And the one checked write that every
// command's output and every sweep row goes through.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "model/report/report.h"
#include "model/status.h"

namespace zerosim::study {

enum class OutputFormat { kTable, kJson, kJsonl, kCsv };

// "table", "json", "jsonl" or "csv"; an error naming the choices otherwise.
StatusOr<OutputFormat> ParseOutputFormat(const std::string& name);

// `r` in `format`: the table (model/io/report_table.h), the JSON document (report_json.h), or the rows as
// JSON lines or CSV (report_fields.h).
std::string RenderReport(const model::Report& r, OutputFormat format);

// Writes `text` to `f` and flushes it. Errors: a short write or a failed flush (a full disk, /dev/full, a
// closed pipe), as "cannot write <name>: <the system's reason>": the output is incomplete.
Status WriteStream(std::FILE* f, std::string_view text, std::string_view name);

}  // namespace zerosim::study
