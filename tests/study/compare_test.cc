// `zerosim compare` (study/compare.h): doubling the NIC bandwidth of the default scenario is found as the one
// input that differs, moves no compute and no bytes (volumes do not depend on bandwidth), and shortens the
// iteration through exposed communication; the rows read back, and sweep rows carry the same field names.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/io/embedded.h"
#include "model/io/file_source.h"
#include "model/io/report_fields.h"
#include "model/io/sweep.h"
#include "study/compare.h"
#include "study/scenario_runner.h"
#include "study/sweep_grid.h"
#include "study/sweep_rows.h"

namespace zerosim::study {
namespace {

// The embedded default scenario with `settings`, evaluated; `cal` (when given) receives its calibration.
model::Report Evaluate(const std::vector<std::string>& settings, model::Calibration* cal = nullptr) {
  const io::MemoryFileSource fs(io::EmbeddedFiles());
  StatusOr<io::Scenario> s = io::LoadScenario(fs, io::kDefaultScenario);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!settings.empty()) s = ApplySettings(fs, *s, settings);
  EXPECT_TRUE(s.ok()) << s.status().message();
  StatusOr<model::Report> r = EvaluateScenario(*s, Engine::kAnalytic);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (cal != nullptr) *cal = s->calibration;
  return *r;
}

// The default scenario with `a` against it with `b`.
Comparison CompareSettings(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  model::Calibration ca, cb;
  model::Report ra = Evaluate(a, &ca);
  model::Report rb = Evaluate(b, &cb);
  return CompareReports("a", std::move(ra), ca, "b", std::move(rb), cb);
}

TEST(Compare, TwiceTheNicBandwidthIsOneInputAndMovesCommunicationOnly) {
  const Comparison c = CompareSettings({}, {"nic.bandwidth=200Gbps"});
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].key, "cluster.nic.bandwidth_Bps");
  EXPECT_EQ(std::stod(c.inputs[0].b), 2 * std::stod(c.inputs[0].a));
  ASSERT_EQ(c.variants.size(), 2u);
  for (const VariantComparison& v : c.variants) {
    ASSERT_GE(v.a, 0);
    ASSERT_GE(v.b, 0);
    EXPECT_TRUE(v.inputs.empty()) << v.inputs[0].key;
    const model::VariantReport& a = c.a.variants[static_cast<size_t>(v.a)];
    const model::VariantReport& b = c.b.variants[static_cast<size_t>(v.b)];
    EXPECT_LT(b.iteration_time_s, a.iteration_time_s) << v.name;
    EXPECT_EQ(b.bytes.cross_node.total(), a.bytes.cross_node.total()) << "bytes do not depend on bandwidth";
    ASSERT_FALSE(v.causes.empty());
    double sum = 0;
    for (const TimeCause& t : v.causes) {
      if (t.part.rfind("compute.", 0) == 0) {
        EXPECT_EQ(t.a_s, t.b_s) << t.part << ": compute does not see the NIC";
      }
      sum += t.b_s - t.a_s;
    }
    EXPECT_NEAR(sum, b.iteration_time_s - a.iteration_time_s, 1e-9 * a.iteration_time_s);
    EXPECT_EQ(v.causes.front().part.rfind("exposed.", 0), 0u) << "largest change: " << v.causes.front().part;
  }
}

// The iteration time's parts are the field list's (CausePlace) and "other", each once, with the list's
// values.
TEST(Compare, TheCausesAreTheFieldListsPartsAndOther) {
  const Comparison c = CompareSettings({}, {"nic.bandwidth=200Gbps"});
  const VariantComparison& v = c.variants.front();
  const model::VariantReport& a = c.a.variants[static_cast<size_t>(v.a)];
  std::map<std::string, double> causes;
  for (const TimeCause& t : v.causes) EXPECT_TRUE(causes.emplace(t.part, t.a_s).second) << t.part << " twice";
  ASSERT_EQ(causes.size(), io::CauseFields().size() + 1);
  EXPECT_EQ(causes.count("other"), 1u);
  for (const io::ReportField& f : io::CauseFields()) {
    ASSERT_EQ(causes.count(f.cause.part), 1u)
        << f.name << " (" << f.cause.part << ") is not among the causes";
    EXPECT_EQ(causes[f.cause.part], std::get<double>(io::FieldOf(f, {&a, &c.a.cluster, c.a.scenario_name})));
  }
}

// The table shows the list's headline fields (ReportField::headline), each variant once each, and no other.
TEST(Compare, TheTableShowsTheHeadlineFields) {
  const Comparison c = CompareSettings({}, {"nic.bandwidth=200Gbps"});
  const std::string table = RenderComparison(c, OutputFormat::kTable);
  for (const io::ReportField& f : io::RowFields()) {
    size_t lines = 0;
    for (size_t at = table.find("\n  " + std::string(f.name) + " "); at != std::string::npos;
         at = table.find("\n  " + std::string(f.name) + " ", at + 1)) {
      ++lines;
    }
    EXPECT_EQ(lines, f.headline ? c.variants.size() : 0u) << f.name;
  }
}

TEST(Compare, RowsCarryEveryFieldForBothSidesAndReadBack) {
  const Comparison c = CompareSettings({}, {"nodes=12"});
  bool nodes_differ = false;
  for (const InputDifference& d : c.inputs) nodes_differ = nodes_differ || d.key == "cluster.nodes";
  EXPECT_TRUE(nodes_differ);
  const std::string jsonl = RenderComparison(c, OutputFormat::kJsonl);
  size_t rows = 0, pos = 0;
  while (pos < jsonl.size()) {
    const size_t nl = jsonl.find('\n', pos);
    const nlohmann::json row = nlohmann::json::parse(jsonl.substr(pos, nl - pos));
    pos = nl + 1;
    ++rows;
    if (row["field"] == "cluster.gpus") {
      EXPECT_EQ(row["a"], 384);
      EXPECT_EQ(row["b"], 192);
      EXPECT_EQ(row["difference"], -192.0);
    }
  }
  EXPECT_EQ(rows, c.variants.size() * io::RowFields().size());
  const nlohmann::json doc = nlohmann::json::parse(RenderComparison(c, OutputFormat::kJson));
  EXPECT_EQ(doc["format"], "zerosim-compare-1");
  EXPECT_EQ(doc["variants"].size(), c.variants.size());
  EXPECT_NE(RenderComparison(c, OutputFormat::kTable).find("why the iteration time moved"),
            std::string::npos);
}

// A sweep row names its fields as `run --format jsonl` does, and carries the point's provenance.
TEST(Compare, SweepRowsShareTheRunRowsNamesAndCarryProvenance) {
  const model::Report r = Evaluate({});
  const nlohmann::json run_row = nlohmann::json::parse(io::RowJson(io::ReportRows(r)[0]));
  io::SweepSpec spec;
  spec.name = "t";
  spec.base.name = r.scenario_name;
  spec.file = {"t.sweep.toml", "fnv1a64:0000000000000001"};
  SweepPoint p;
  p.cluster = r.cluster;
  p.calibration.source = "derived";
  p.calibration_file = {"c.json", "fnv1a64:0000000000000002"};
  const std::string rows = PointRows(spec, p, {r.variants[0]}, "h");
  const nlohmann::json sweep_row = nlohmann::json::parse(rows.substr(0, rows.find('\n')));
  for (const auto& [key, value] : run_row.items()) {
    ASSERT_TRUE(sweep_row.contains(key)) << key;
    EXPECT_EQ(sweep_row[key], value) << key;
  }
  EXPECT_EQ(sweep_row["provenance"]["calibration"]["hash"], "fnv1a64:0000000000000002");
  EXPECT_EQ(sweep_row["provenance"]["calibration_source"], "derived");
  EXPECT_EQ(sweep_row["provenance"]["kernels_source"], "derived");
  EXPECT_EQ(sweep_row["provenance"]["sweep"], "fnv1a64:0000000000000001");
}

// The shipped strategies scenario on all 32 nodes of its topology: HSDP (one node per shard group) needs 151
// GiB on an 80 GiB H100. Every format of compare gives it no numbers, only its reason and its memory (issue
// 20 item 2).
TEST(Compare, AVariantThatDoesNotFitHasNoNumbersOnEitherSide) {
  const std::string path = std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/strategies/llama70b_64xh100.toml";
  model::Report sides[2];
  model::Calibration cals[2];
  for (int i = 0; i < 2; ++i) {
    std::vector<std::string> settings = {"nodes=32"};
    if (i == 1) settings.push_back("nic.bandwidth=100Gbps");
    StatusOr<io::Scenario> s = LoadComparedScenario(path, "", settings);
    ASSERT_TRUE(s.ok()) << s.status().message();
    StatusOr<model::Report> r = EvaluateScenario(*s, Engine::kAnalytic);
    ASSERT_TRUE(r.ok()) << r.status().message();
    sides[i] = *r;
    cals[i] = s->calibration;
  }
  const Comparison c = CompareReports("a", sides[0], cals[0], "b", sides[1], cals[1]);
  const VariantComparison* hsdp = nullptr;
  for (const VariantComparison& v : c.variants) {
    if (v.name == "HSDP") hsdp = &v;
  }
  ASSERT_NE(hsdp, nullptr);
  const model::VariantReport& a = c.a.variants[static_cast<size_t>(hsdp->a)];
  ASSERT_FALSE(a.feasible);
  EXPECT_TRUE(hsdp->causes.empty());
  const nlohmann::json doc = nlohmann::json::parse(RenderComparison(c, OutputFormat::kJson));
  for (const nlohmann::json& v : doc["variants"]) {
    if (v["name"] != "HSDP") continue;
    for (const nlohmann::json& f : v["fields"]) {
      const std::string name = f["name"];
      if (name == "tokens_per_s" || name == "tflops_per_gpu" || name == "iteration_time_s" ||
          name == "cross_node_bytes") {
        EXPECT_TRUE(f["a"].is_null() && f["b"].is_null() && f["difference"].is_null()) << name << ": " << f;
      }
      if (name == "memory_per_gpu_bytes") {
        EXPECT_EQ(f["a"].get<double>(), a.memory.total_bytes);
      }
    }
  }
  const std::string csv = RenderComparison(c, OutputFormat::kCsv);
  EXPECT_NE(csv.find("HSDP,analytic,tokens_per_s,1/s,,,\r\n"), std::string::npos);
  const std::string table = RenderComparison(c, OutputFormat::kTable);
  EXPECT_NE(table.find("A is infeasible: " + a.infeasible_reason), std::string::npos) << table;
  EXPECT_EQ(table.find(fmt::format("{:.6g}", a.tokens_per_s)), std::string::npos) << table;
}

// H100 against B200 (the same scenario on two clusters): the sides differ in the attention kernel the `flash`
// setting stands for and its efficiency, in the calibration's kind, and in the efficiencies; compare lists each
// (issue 20 item 5: it listed the cluster's keys only). One scenario against itself lists none.
TEST(Compare, ListsEveryCalibrationValueAndKernelChoiceThatDiffers) {
  const std::string scenario = std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/strategies/llama70b_64xh100.toml";
  model::Report r[2];
  model::Calibration cal[2];
  const char* topologies[] = {"/topologies/dgx_h100_8x400g.toml", "/topologies/dgx_b200_8x400g.toml"};
  for (int i = 0; i < 2; ++i) {
    StatusOr<io::Scenario> s = LoadComparedScenario(std::string(ZEROSIM_SOURCE_DIR) + topologies[i], scenario, {});
    ASSERT_TRUE(s.ok()) << s.status().message();
    StatusOr<model::Report> e = EvaluateScenario(*s, Engine::kAnalytic);
    ASSERT_TRUE(e.ok()) << e.status().message();
    r[i] = *e;
    cal[i] = s->calibration;
  }
  const Comparison c = CompareReports("h100", r[0], cal[0], "b200", r[1], cal[1]);
  std::map<std::string, InputDifference> by_key;
  for (const InputDifference& d : c.inputs) by_key[d.key] = d;
  ASSERT_EQ(by_key.count("calibration.compute.attention_kernel"), 1u);
  EXPECT_EQ(by_key["calibration.compute.attention_kernel"].a, "\"FlashAttention-2\"");
  EXPECT_EQ(by_key["calibration.compute.attention_kernel"].b, "\"FlashAttention-4\"");
  EXPECT_EQ(by_key["calibration.compute.kind"].a, "\"empirical\"");
  EXPECT_EQ(by_key["calibration.compute.kind"].b, "\"derived\"");
  for (const char* key : {"calibration.compute.attention_forward", "calibration.compute.attention_backward",
                          "calibration.compute.gemm", "calibration.compute.derived_from", "calibration.source",
                          "calibration.gpu", "calibration.copy_bandwidth_Bps"}) {
    EXPECT_EQ(by_key.count(key), 1u) << key;
  }
  EXPECT_EQ(by_key.count("calibration.compute.software"), 0u) << "both run pytorch-2.1";
  const std::string table = RenderComparison(c, OutputFormat::kTable);
  EXPECT_NE(table.find("calibration.compute.attention_kernel"), std::string::npos) << table;

  const Comparison same = CompareReports("a", r[0], cal[0], "b", r[0], cal[0]);
  EXPECT_TRUE(same.inputs.empty()) << same.inputs[0].key;
}

// The software generation is a calibration value: A100 with PyTorch 2.1 against 1.13 differ in it.
TEST(Compare, ListsTheSoftwareGeneration) {
  const std::string dir = std::string(ZEROSIM_SOURCE_DIR) + "/kernels/calibration/";
  StatusOr<model::Calibration> a = io::LoadCalibration(io::DiskFileSource(), dir + "a100.json");
  ASSERT_TRUE(a.ok()) << a.status().message();
  model::Calibration b = *a;
  ASSERT_TRUE(model::SelectSoftware(&b, "pytorch-1.13"));
  const model::Report r = Evaluate({});
  const Comparison c = CompareReports("a", r, *a, "b", r, b);
  bool software = false, gemm = false;
  for (const InputDifference& d : c.inputs) {
    software = software || (d.key == "calibration.compute.software" && d.a == "\"pytorch-2.1\"" &&
                            d.b == "\"pytorch-1.13\"");
    gemm = gemm || d.key == "calibration.compute.gemm";
  }
  EXPECT_TRUE(software);
  EXPECT_TRUE(gemm);
}

}  // namespace
}  // namespace zerosim::study
