#include "study/output_format.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "model/io/report_fields.h"
#include "model/io/report_json.h"
#include "model/io/report_table.h"

namespace zerosim::study {

StatusOr<OutputFormat> ParseOutputFormat(const std::string& name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "json") return OutputFormat::kJson;
  if (name == "jsonl") return OutputFormat::kJsonl;
  if (name == "csv") return OutputFormat::kCsv;
  return Status::Error(fmt::format("--format: '{}' is not one of table, json, jsonl, csv", name));
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

Status WriteStream(std::FILE* f, std::string_view text, std::string_view name) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0) {
    return Status::Error(
        fmt::format("cannot write {}: {}", name, errno != 0 ? std::strerror(errno) : "write error"));
  }
  return Status::Ok();
}

}  // namespace zerosim::study
