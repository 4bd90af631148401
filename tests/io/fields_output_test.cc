// The one field list (model/io/report_fields.h) against the outputs it feeds: no output forgets a field and
// none writes one the list does not have. Every row field is a CSV header column and a JSON lines key; every
// document field is at its place in the JSON document (with the list's value), and every quantity the
// document writes for a variant (outside its name, engine, model, zero and RLHF phases) is a field of the
// list. Every table field is a line of the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "io/default_report.h"
#include "model/io/report_fields.h"
#include "model/io/report_json.h"
#include "model/io/report_table.h"

namespace zerosim::io {
namespace {

// A variant for which every field has a value: it ran, its memory was estimated, its link load measured.
model::Report EveryFieldReport() {
  model::Report r = DefaultReport();
  model::VariantReport& v = r.variants.front();
  EXPECT_TRUE(model::Ran(v) && model::HasMemoryEstimate(v));
  v.link_load = {true, 1e9, 2e9, 3e9, 4e9};
  return r;
}

// "bytes.cross_node.total" as a JSON pointer.
nlohmann::json::json_pointer Pointer(std::string path) {
  for (char& c : path) {
    if (c == '.') c = '/';
  }
  return nlohmann::json::json_pointer("/" + path);
}

void Leaves(const nlohmann::json& j, const std::string& prefix, std::set<std::string>* out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) Leaves(v, prefix.empty() ? k : prefix + "." + k, out);
  } else {
    out->insert(prefix);
  }
}

TEST(FieldList, EveryFieldShowsInSomeOutputUnderOneName) {
  std::set<std::string> names, paths;
  std::set<int> places, table_places;
  for (const ReportField& f : ReportFields()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name << " twice";
    EXPECT_TRUE(f.row || f.json.path != nullptr || f.table.label != nullptr)
        << f.name << " is shown by no output";
    if (f.table.label != nullptr) {
      EXPECT_TRUE(table_places.insert(f.table.at).second) << f.name << ": its line in the table is taken";
    }
    if (f.json.path == nullptr) continue;
    EXPECT_TRUE(paths.insert(f.json.path).second) << f.json.path << " twice in the document";
    EXPECT_TRUE(places.insert(f.json.at).second) << f.name << ": its place in the document is taken";
  }
}

TEST(FieldList, EveryRowFieldIsACsvColumnAndAJsonLinesKey) {
  const model::Report r = EveryFieldReport();
  const std::vector<FieldRow> rows = ReportRows(r);
  const std::string csv = RowsCsv(rows);
  const std::string header = csv.substr(0, csv.find("\r\n"));
  std::vector<std::string> columns;
  for (size_t at = 0;;) {
    const size_t comma = header.find(',', at);
    columns.push_back(header.substr(at, comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  const std::vector<ReportField>& fields = RowFields();
  ASSERT_EQ(columns.size(), fields.size());
  const nlohmann::json row = nlohmann::json::parse(RowJson(rows.front()));
  for (size_t i = 0; i < fields.size(); ++i) {
    EXPECT_EQ(columns[i], fields[i].name);
    EXPECT_TRUE(row.contains(Pointer(fields[i].name))) << fields[i].name << " is not in the JSON lines row";
  }
  for (const ReportField& f : ReportFields()) {
    if (!f.row) {
      EXPECT_EQ(std::count(columns.begin(), columns.end(), f.name), 0) << f.name << " is not a row field";
    }
  }
}

TEST(FieldList, EveryDocumentFieldIsInTheJsonWithItsValueAndNoOther) {
  const model::Report r = EveryFieldReport();
  const model::VariantReport& v = r.variants.front();
  const nlohmann::json j = nlohmann::json::parse(ReportJsonText(r))["variants"][0];
  const FieldRow row{&v, &r.cluster, r.scenario_name};
  std::set<std::string> listed;
  for (const ReportField& f : JsonFields()) {
    listed.insert(f.json.path);
    ASSERT_TRUE(j.contains(Pointer(f.json.path)))
        << f.name << " (" << f.json.path << ") is not in the document";
    EXPECT_EQ(j.at(Pointer(f.json.path)), nlohmann::json::parse(FieldJson(FieldOf(f, row)))) << f.name;
  }
  nlohmann::json reported = j;
  for (const char* own : {"name", "engine", "model", "zero", "phases"}) reported.erase(own);
  std::set<std::string> leaves;
  Leaves(reported, "", &leaves);
  for (const std::string& leaf : leaves)
    EXPECT_EQ(listed.count(leaf), 1u) << leaf << " is not in the field list";
}

// The document's order is the list's JsonPlace::at order (objects where their first member is).
TEST(FieldList, TheDocumentIsInTheListsOrder) {
  const model::Report r = EveryFieldReport();
  const nlohmann::ordered_json j = VariantToJson(r.variants.front());
  std::vector<std::string> top;
  for (const ReportField& f : JsonFields()) {
    const std::string path = f.json.path;
    const std::string key = path.substr(0, path.find('.'));
    if (top.empty() || top.back() != key) top.push_back(key);
  }
  std::vector<std::string> written;
  for (const auto& [k, v] : j.items()) {
    if (k != "name" && k != "engine" && k != "model" && k != "zero" && k != "phases") written.push_back(k);
  }
  EXPECT_EQ(written, top);
}

// Every table line of the list is a line of the table, in the list's order, with the list's cells.
TEST(FieldList, EveryTableFieldIsALineOfTheTable) {
  const model::Report r = EveryFieldReport();
  const std::string table = FormatReportTable(r);
  size_t pos = 0;
  for (const ReportField& f : TableFields()) {
    std::string label = f.table.label;
    if (const size_t at = label.find("{}"); at != std::string::npos)
      label.replace(at, 2, r.variants.front().name);
    // A line: its indent (two spaces, four under a section's heading), the label, then the padding and cells.
    std::string start(f.table.section != nullptr ? "\n    " : "\n  ");
    start += label;
    start += ' ';
    const size_t line = table.find(start, pos);
    ASSERT_NE(line, std::string::npos)
        << f.name << " ('" << label << "') is not a line of the table, in order";
    pos = line + 1;
    const std::string text = table.substr(line + 1, table.find('\n', line + 1) - line - 1);
    const FieldRow row{&r.variants.front(), &r.cluster, r.scenario_name, &r.variants.front()};
    std::string cell(" ");
    cell += TableCell(f, FieldOf(f, row));
    EXPECT_NE(text.find(cell), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace zerosim::io
