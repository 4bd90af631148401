// The field list's text (model/io/report_fields.h): a value as JSON, as a CSV cell, as table text, and the
// rows (JSON lines, CSV) written from the row fields. The list itself is report_fields.cc.
#include <cmath>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/io/report_fields.h"

namespace zerosim::io {

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
  // Fields sharing a prefix before the first dot are contiguous in the list (RowFields), so an object
  // opens at a field whose prefix differs from the previous one's and closes at the next change.
  std::string open;  // the prefix of the object being written ("" at top level)
  bool first_in_object = true;
  for (const ReportField& f : RowFields()) {
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
  const std::vector<ReportField>& fields = RowFields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += FieldCsv(std::string(fields[i].name));
  }
  out += "\r\n";
  for (const FieldRow& r : rows) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += ',';
      out += FieldCsv(FieldOf(fields[i], r));
    }
    out += "\r\n";
  }
  return out;
}

std::string TableCell(const ReportField& f, const FieldValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "-";
  switch (f.table.text) {
    case TableText::kFixed: {
      const double x = std::holds_alternative<long long>(v) ? static_cast<double>(std::get<long long>(v))
                                                            : std::get<double>(v);
      return fmt::format("{:.{}f}", x / f.table.divisor, f.table.decimals);
    }
    case TableText::kPercent:
      return fmt::format("{:.1f}%", 100 * std::get<double>(v));
    case TableText::kYesNo:
      return std::get<bool>(v) ? "yes" : "NO";
    case TableText::kText:
      return std::get<std::string>(v);
  }
  return "-";
}

}  // namespace zerosim::io
