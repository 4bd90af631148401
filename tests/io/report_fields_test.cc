// The field list (model/io/report_fields.h): CSV and JSON lines read back to the report's own numbers, CSV
// quoting per RFC 4180, and the list's shape (unique names, contiguous groups, units in the names).
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "io/default_report.h"
#include "model/io/embedded.h"
#include "model/io/loaders.h"
#include "model/io/report_fields.h"
#include "model/io/report_json.h"
#include "model/report/evaluate.h"

namespace zerosim::io {
namespace {


// An RFC 4180 reader written for the test: records end in CRLF, a quoted field may hold commas, CR, LF and
// doubled quotes.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty()) << "a quote inside an unquoted field at byte " << i;
      quoted = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
    } else if (c == '\r') {
      EXPECT_TRUE(i + 1 < text.size() && text[i + 1] == '\n') << "CR without LF at byte " << i;
      record.push_back(field);
      field.clear();
      records.push_back(record);
      record.clear();
      ++i;
    } else {
      EXPECT_NE(c, '\n') << "a bare LF ends no RFC 4180 record (byte " << i << ")";
      field += c;
    }
  }
  EXPECT_FALSE(quoted);
  EXPECT_TRUE(field.empty() && record.empty()) << "the last record must end in CRLF";
  return records;
}

TEST(ReportFields, NamesAreUniqueGroupsContiguousAndUnitsInTheNames) {
  std::set<std::string> names, closed_groups;
  std::string group;
  for (const ReportField& f : ReportFields()) {
    const std::string name = f.name;
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    const size_t dot = name.find('.');
    const std::string g = dot == std::string::npos ? "" : name.substr(0, dot);
    if (g != group) {
      if (!group.empty()) closed_groups.insert(group);
      EXPECT_EQ(closed_groups.count(g), 0u) << name << ": the group '" << g << "' was already closed";
      group = g;
    }
    const std::string unit = f.unit;
    if (unit == "s") {
      EXPECT_TRUE(name.ends_with("_s")) << name;
    }
    if (unit == "B") {
      EXPECT_TRUE(name.ends_with("_bytes")) << name;
    }
    if (unit == "B/s") {
      EXPECT_TRUE(name.ends_with("_Bps")) << name;
    }
  }
}

TEST(ReportFields, CsvReadsBackToTheReportsNumbers) {
  const model::Report r = DefaultReport();
  const std::vector<std::vector<std::string>> csv = ParseCsv(RowsCsv(ReportRows(r)));
  ASSERT_EQ(csv.size(), 1 + r.variants.size());
  ASSERT_EQ(csv[0].size(), RowFields().size());
  auto column = [&](const std::string& name) {
    for (size_t i = 0; i < csv[0].size(); ++i) {
      if (csv[0][i] == name) return i;
    }
    ADD_FAILURE() << "no column " << name;
    return size_t{0};
  };
  const nlohmann::json j = ReportToJson(r);
  for (size_t v = 0; v < r.variants.size(); ++v) {
    const std::vector<std::string>& row = csv[1 + v];
    ASSERT_EQ(row.size(), csv[0].size());
    const nlohmann::json& jv = j["variants"][v];
    EXPECT_EQ(row[column("variant")], jv["name"].get<std::string>());
    EXPECT_EQ(row[column("scenario")], r.scenario_name);
    // Numbers are printed round-trip exact: they read back to the JSON report's doubles bit for bit.
    EXPECT_EQ(std::stod(row[column("iteration_time_s")]), jv["iteration_time_s"].get<double>());
    EXPECT_EQ(std::stod(row[column("tflops_per_gpu")]), jv["tflops_per_gpu"].get<double>());
    EXPECT_EQ(std::stod(row[column("cross_node_bytes")]), jv["bytes"]["cross_node"]["total"].get<double>());
    EXPECT_EQ(std::stod(row[column("memory_per_gpu_bytes")]),
              jv["memory_per_gpu_bytes"]["total"].get<double>());
    EXPECT_EQ(std::stoll(row[column("cluster.gpus")]), r.cluster.nodes * r.cluster.gpus_per_node);
    // The phases sum to the tier's total.
    const double phases = std::stod(row[column("cross_node_forward_allgather_bytes")]) +
                          std::stod(row[column("cross_node_backward_allgather_bytes")]) +
                          std::stod(row[column("cross_node_gradient_reduce_bytes")]);
    EXPECT_DOUBLE_EQ(phases, std::stod(row[column("cross_node_bytes")]));
  }
}

TEST(ReportFields, CsvQuotesCommasQuotesAndLineBreaks) {
  model::Report r = DefaultReport();
  r.scenario_name = "a, \"quoted\"\r\nname";
  r.variants[0].infeasible_reason = "plain";
  const std::vector<std::vector<std::string>> csv = ParseCsv(RowsCsv(ReportRows(r)));
  ASSERT_EQ(csv.size(), 1 + r.variants.size());
  EXPECT_EQ(csv[1][0], r.scenario_name);
  EXPECT_EQ(FieldCsv(std::string("x\"y")), "\"x\"\"y\"");
  EXPECT_EQ(FieldCsv(std::string("plain")), "plain");
  EXPECT_EQ(FieldCsv(std::monostate{}), "");
}

TEST(ReportFields, JsonlReadsBackNestedAtTheDots) {
  const model::Report r = DefaultReport();
  const std::string text = RowsJsonl(ReportRows(r));
  size_t pos = 0;
  for (const model::VariantReport& v : r.variants) {
    const size_t nl = text.find('\n', pos);
    ASSERT_NE(nl, std::string::npos);
    const nlohmann::json row = nlohmann::json::parse(text.substr(pos, nl - pos));
    pos = nl + 1;
    EXPECT_EQ(row["variant"], v.name);
    EXPECT_EQ(row["cluster"]["nodes"], r.cluster.nodes);
    EXPECT_EQ(row["zero"]["zero_hpz_partition_size"], v.zero.zero_hpz_partition_size);
    EXPECT_EQ(row["iteration_time_s"].get<double>(), v.iteration_time_s);
    EXPECT_EQ(row["feasible"].get<bool>(), v.feasible);
  }
  EXPECT_EQ(pos, text.size());
}

TEST(ReportFields, AVariantThatDidNotRunHasNoNumbers) {
  model::Report r = DefaultReport();
  model::VariantReport& v = r.variants[0];
  v = model::VariantReport{};
  v.name = "too big";
  v.engine = "analytic";
  v.feasible = false;
  v.infeasible_reason = "does not fit";
  const nlohmann::json row = nlohmann::json::parse(RowJson(ReportRows(r)[0]));
  EXPECT_FALSE(row.contains("iteration_time_s"));
  EXPECT_FALSE(row["feasible"].get<bool>());
  EXPECT_EQ(row["infeasible_reason"], "does not fit");
  const std::vector<std::vector<std::string>> csv = ParseCsv(RowsCsv(ReportRows(r)));
  for (size_t i = 0; i < csv[0].size(); ++i) {
    if (csv[0][i] == "tflops_per_gpu") {
      EXPECT_EQ(csv[1][i], "");
    }
  }
}

}  // namespace
}  // namespace zerosim::io
