#include "cli/output_format.h"

#include <fmt/format.h>

#include "model/io/report_fields.h"
#include "model/io/report_json.h"
#include "model/io/report_table.h"

namespace zerosim::cli {

StatusOr<OutputFormat> ParseOutputFormat(const std::string& name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "json") return OutputFormat::kJson;
  if (name == "jsonl") return OutputFormat::kJsonl;
  if (name == "csv") return OutputFormat::kCsv;
  return Status::Error(fmt::format("--format: '{}' is not one of table, json, jsonl, csv", name));
}

void AddFormatOption(boost::program_options::options_description* opts, std::string* format) {
  opts->add_options()(
      "format", boost::program_options::value<std::string>(format)->value_name("FORMAT"),
      "table (default), json (the report document, docs/report.md), jsonl or csv (one row per "
      "variant, the sweep rows' field names) on stdout");
}

std::string RenderReport(const model::Report& r, OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return io::FormatReportTable(r);
    case OutputFormat::kJson:
      return io::ReportJsonText(r);
    case OutputFormat::kJsonl:
      return io::RowsJsonl(io::ReportRows(r));
    case OutputFormat::kCsv:
      return io::RowsCsv(io::ReportRows(r));
  }
  return "";
}

}  // namespace zerosim::cli
