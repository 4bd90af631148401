// A variant that does not fit in HBM carries no throughput, time or bytes in any output (docs/report.md): the
// JSON document, JSON lines and CSV rows leave them out, the table prints "-"; each shows the reason instead and
// keeps the memory estimate, which is why it does not fit (issue 20 item 2).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/default_report.h"
#include "model/io/report_fields.h"
#include "model/io/report_json.h"
#include "model/io/report_table.h"
#include "model/report/evaluate.h"

namespace zerosim::io {
namespace {

// The default scenario (ZeRO-3 and ZeRO++) on GPUs whose HBM lies between the two variants' memory: ZeRO++
// (hpZ's secondary copy) does not fit, ZeRO-3 does.
model::Report OneVariantDoesNotFit() {
  StatusOr<Scenario> s = LoadScenario(MemoryFileSource(EmbeddedFiles()), kDefaultScenario);
  EXPECT_TRUE(s.ok()) << s.status().message();
  model::Report r = DefaultReport();
  EXPECT_EQ(r.variants.size(), 2u);
  EXPECT_LT(r.variants[0].memory.total_bytes, r.variants[1].memory.total_bytes);
  r.cluster.gpu.hbm_bytes = (r.variants[0].memory.total_bytes + r.variants[1].memory.total_bytes) / 2;
  r.variants.clear();
  for (const Variant& v : s->variants) {
    r.variants.push_back(
        model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, r.cluster, s->calibration}));
  }
  EXPECT_TRUE(r.variants[0].feasible);
  EXPECT_FALSE(r.variants[1].feasible);
  EXPECT_GT(r.variants[1].tokens_per_s, 0) << "evaluated all the same: the outputs must leave it out";
  return r;
}

TEST(InfeasibleOutput, JsonDocumentHasTheReasonAndMemoryButNoThroughput) {
  const model::Report r = OneVariantDoesNotFit();
  const nlohmann::json j = ReportToJson(r);
  const nlohmann::json& fits = j["variants"][0];
  const nlohmann::json& not_fit = j["variants"][1];
  EXPECT_TRUE(fits.contains("tokens_per_s"));
  for (const char* key : {"iteration_time_s", "tflops_per_gpu", "mfu", "tokens_per_s", "band", "exposed_comm_s",
                          "compute_s", "bytes", "bytes_per_gpu", "schedule_ops"}) {
    EXPECT_FALSE(not_fit.contains(key)) << key;
  }
  EXPECT_EQ(not_fit["feasible"], false);
  EXPECT_EQ(not_fit["infeasible_reason"], r.variants[1].infeasible_reason);
  EXPECT_EQ(not_fit["memory_per_gpu_bytes"]["total"].get<double>(), r.variants[1].memory.total_bytes);
}

TEST(InfeasibleOutput, RowsLeaveThroughputTimesAndBytesOutAndKeepMemory) {
  const model::Report r = OneVariantDoesNotFit();
  const std::vector<FieldRow> rows = ReportRows(r);
  const nlohmann::json row = nlohmann::json::parse(RowJson(rows[1]));
  for (const char* key : {"iteration_time_s", "tflops_per_gpu", "mfu", "tokens_per_s", "tokens_per_s_low",
                          "tokens_per_s_high", "iteration_time_low_s", "band_group", "exposed_comm_s",
                          "cross_node_bytes", "intra_node_bytes", "compute_s", "schedule_ops"}) {
    EXPECT_FALSE(row.contains(key)) << key;
  }
  EXPECT_TRUE(nlohmann::json::parse(RowJson(rows[0])).contains("tokens_per_s"));
  EXPECT_EQ(row["infeasible_reason"], r.variants[1].infeasible_reason);
  EXPECT_EQ(row["memory_per_gpu_bytes"].get<double>(), r.variants[1].memory.total_bytes);
  // CSV: the same cells empty.
  const std::string csv = RowsCsv(rows);
  const size_t second = csv.find("\r\n", csv.find("\r\n") + 2) + 2;
  const std::string record = csv.substr(second);
  EXPECT_EQ(record.find(FieldCsv(r.variants[1].tokens_per_s)), std::string::npos) << record;
  EXPECT_NE(record.find(FieldCsv(r.variants[1].memory.total_bytes)), std::string::npos) << record;
}

TEST(InfeasibleOutput, TablePrintsADashAndTheReason) {
  const model::Report r = OneVariantDoesNotFit();
  const std::string table = FormatReportTable(r);
  auto row = [&](const std::string& label) {
    const size_t at = table.find("\n  " + label);
    EXPECT_NE(at, std::string::npos) << label;
    return table.substr(at + 1, table.find('\n', at + 1) - at - 1);
  };
  for (const char* label : {"iteration time (s)", "TFLOPs per GPU", "tokens per second", "speedup vs",
                            "compute (s)", "exposed communication (s)"}) {
    const std::string line = row(label);
    EXPECT_TRUE(line.ends_with(" -")) << line;
  }
  EXPECT_FALSE(row("  total / HBM").ends_with(" -")) << "the memory stays: it is why the variant does not fit";
  EXPECT_NE(table.find("ZeRO++ is infeasible: " + r.variants[1].infeasible_reason), std::string::npos);
  EXPECT_EQ(table.find(fmt::format("{:.0f}", r.variants[1].tokens_per_s)), std::string::npos) << table;
}

}  // namespace
}  // namespace zerosim::io
