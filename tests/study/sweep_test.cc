// Sweeps: enumeration, constraints, infeasible points, sharding, resuming, parallel workers, costs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/spec/cost.h"
#include "scratch_dir.h"
#include "study/pareto.h"
#include "study/sweep_grid.h"
#include "study/sweep_point.h"
#include "study/sweep_resume.h"
#include "study/sweep_rows.h"
#include "study/sweep_runner.h"
#include "study/sweep_summary.h"
#include "test_inputs.h"

namespace zerosim::study {
namespace {

namespace fs = std::filesystem;


const char* kSweep = R"(name = "test sweep"
base = "s.toml"
train_tokens = 1e11
[axes]
nodes = [2, 4, 8]
"nic.bandwidth" = ["100Gbps", "200Gbps", "400Gbps"]
"nic.count" = [1, 3, 8]
[cost]
capex_per_gpu_usd = 30000
amortization = "4y"
power_per_gpu_w = 1000
pue = 1.2
energy_usd_per_kwh = 0.1
[cost.nic_usd]
"100Gbps" = 800
"200Gbps" = 1500
"400Gbps" = 2500
[cost.switch_port_usd]
"100Gbps" = 300
"200Gbps" = 600
"400Gbps" = 1000
)";

class SweepTest : public testing::InputFilesTest {
 protected:
  SweepTest() : InputFilesTest("sweep") {}
  void SetUp() override {
    InputFilesTest::SetUp();
    Write("x.sweep.toml", kSweep);
  }
  io::SweepSpec Spec() {
    StatusOr<io::SweepSpec> s = LoadSweep(io::DiskFileSource(), (dir_ / "x.sweep.toml").string());
    EXPECT_TRUE(s.ok()) << s.status().message();
    return *s;
  }
  std::string Run(const io::SweepSpec& spec, const std::string& out, int jobs = 1, int shard = 1, int shards = 1) {
    SweepOptions o;
    o.out = (dir_ / out).string();
    o.jobs = jobs;
    o.shard = shard;
    o.shards = shards;
    o.progress = false;
    StatusOr<SweepStats> st = RunSweep(spec, o);
    EXPECT_TRUE(st.ok()) << st.status().message();
    return Read(dir_ / out);
  }
};

TEST_F(SweepTest, EnumeratesTheProductInAFixedOrder) {
  const io::SweepSpec s = Spec();
  ASSERT_EQ(PointCount(s), 27u);
  // Schedule-shaping axes (nodes) vary slowest, bandwidth-only axes fastest, alphabetical within.
  ASSERT_EQ(s.axes.size(), 3u);
  EXPECT_EQ(s.axes[0].key, "nodes");
  EXPECT_EQ(s.axes[1].key, "nic.bandwidth");
  EXPECT_EQ(s.axes[2].key, "nic.count");
  const SweepPoint p = MakePoint(s, 10);  // nodes 4, 100Gbps, 3 NICs
  EXPECT_EQ(p.cluster.nodes, 4);
  EXPECT_DOUBLE_EQ(p.cluster.nic.bandwidth_Bps, 12.5e9);
  EXPECT_EQ(p.cluster.nic.count, 3);
  ASSERT_EQ(p.variant_infeasible.size(), 2u);
  EXPECT_NE(p.variant_infeasible[0].find("3 NICs do not divide 8 GPUs"), std::string::npos) << p.variant_infeasible[0];
}

// Issue 20 item 22: one variant's problem (ZeRO++'s hpZ 8 on 2 GPUs per node) leaves the others' rows feasible,
// each infeasible row with its own reason.
TEST_F(SweepTest, OneVariantsProblemLeavesTheOthersFeasible) {
  Write("x.sweep.toml", "name = \"gpn\"\nbase = \"s.toml\"\n[axes]\ngpus_per_node = [2, 8]\n");
  const io::SweepSpec s = Spec();
  ASSERT_EQ(PointCount(s), 2u);
  const SweepPoint two = MakePoint(s, 0);
  ASSERT_EQ(two.cluster.gpus_per_node, 2);
  EXPECT_TRUE(two.infeasible.empty()) << two.infeasible;
  ASSERT_EQ(two.variant_infeasible.size(), 2u);
  EXPECT_EQ(two.variant_infeasible[0], "");  // ZeRO-3
  EXPECT_NE(two.variant_infeasible[1].find("hpZ"), std::string::npos) << two.variant_infeasible[1];
  const std::string out = Run(s, "gpn.jsonl");
  const std::string first = out.substr(0, out.find('\n'));
  EXPECT_NE(first.find("\"variant\":\"ZeRO-3\""), std::string::npos) << first;
  EXPECT_NE(first.find("\"feasible\":true"), std::string::npos) << first;
}

TEST_F(SweepTest, InfeasiblePointsAreRowsWithAReason) {
  const std::string out = Run(Spec(), "all.jsonl");
  int rows = 0, infeasible = 0;
  size_t pos = 0;
  while ((pos = out.find('\n', pos)) != std::string::npos) {
    ++rows;
    ++pos;
  }
  for (size_t p = out.find("\"feasible\":false"); p != std::string::npos; p = out.find("\"feasible\":false", p + 1)) ++infeasible;
  EXPECT_EQ(rows, 27 * 2);
  EXPECT_EQ(infeasible, 9 * 2);  // every point with 3 NICs
}

TEST_F(SweepTest, ConstraintsDropPoints) {
  Write("x.sweep.toml", std::string(kSweep) + "\n[constraints]\ntotal_gpus = 32\n");
  const io::SweepSpec s = Spec();
  EXPECT_EQ(PointCount(s), 9u);  // only 4 nodes x 8 GPUs
  for (size_t i = 0; i < PointCount(s); ++i) EXPECT_EQ(MakePoint(s, i).cluster.total_gpus(), 32);
}

TEST_F(SweepTest, ThreeShardsConcatenateToTheUnshardedOutput) {
  const io::SweepSpec s = Spec();
  const std::string whole = Run(s, "whole.jsonl");
  const std::string merged = Run(s, "a.jsonl", 1, 1, 3) + Run(s, "b.jsonl", 1, 2, 3) + Run(s, "c.jsonl", 1, 3, 3);
  EXPECT_EQ(merged, whole);
}

TEST_F(SweepTest, ParallelWorkersWriteTheSameBytes) {
  const io::SweepSpec s = Spec();
  EXPECT_EQ(Run(s, "j1.jsonl", 1), Run(s, "j3.jsonl", 3));
}

// Points of very different cost (simulated clusters of 1 to 16 nodes, each variant replayed in its own
// child of a worker): the workers take points as they free up, and the rows are the same bytes as one job's.
TEST_F(SweepTest, PointsOfVeryDifferentCostFinishInPointOrderWithAnyJobs) {
  Write("x.sweep.toml", "name = \"uneven\"\nbase = \"s.toml\"\n[axes]\nnodes = [16, 1, 2, 3, 4, 5, 6]\n");
  const io::SweepSpec s = Spec();
  ASSERT_EQ(PointCount(s), 7u);
  auto run = [&](const std::string& out, int jobs) {
    SweepOptions o;
    o.sim = true;
    o.out = (dir_ / out).string();
    o.jobs = jobs;
    o.progress = false;
    StatusOr<SweepStats> st = RunSweep(s, o);
    EXPECT_TRUE(st.ok()) << st.status().message();
    return Read(dir_ / out);
  };
  const std::string one = run("j1.jsonl", 1);
  EXPECT_EQ(run("j3.jsonl", 3), one);
  size_t rows = 0;  // two variants a point: row k belongs to point k / 2
  for (size_t pos = 0, nl; (nl = one.find('\n', pos)) != std::string::npos; pos = nl + 1, ++rows) {
    const nlohmann::json row = nlohmann::json::parse(one.substr(pos, nl - pos));
    EXPECT_EQ(row.at("point").get<size_t>(), rows / 2) << "row " << rows;
  }
  EXPECT_EQ(rows, 14u);
}

// CSV rows hold the JSON rows' values under the JSON paths joined by dots, after one header record, and an
// interrupted CSV output resumes to the same bytes.
TEST_F(SweepTest, CsvRowsAreTheJsonRowsFlattenedAndResume) {
  const io::SweepSpec s = Spec();
  const std::string jsonl = Run(s, "rows.jsonl");
  SweepOptions o;
  o.out = (dir_ / "rows.csv").string();
  o.format = SweepFormat::kCsv;
  o.progress = false;
  ASSERT_TRUE(RunSweep(s, o).ok());
  const std::string csv = Read(dir_ / "rows.csv");
  ASSERT_EQ(csv.compare(0, SweepCsvHeader(s).size(), SweepCsvHeader(s)), 0);
  // Split into records (no cell of this sweep holds a quote or a line break; commas are quoted).
  auto cells_of = [](const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        cells.emplace_back();
      } else {
        cells.back() += ch;
      }
    }
    return cells;
  };
  std::vector<std::vector<std::string>> records;
  for (size_t pos = 0, end; (end = csv.find("\r\n", pos)) != std::string::npos; pos = end + 2) {
    records.push_back(cells_of(csv.substr(pos, end - pos)));
  }
  const std::vector<std::string>& header = records.at(0);
  std::vector<nlohmann::json> rows;
  for (size_t pos = 0, nl; (nl = jsonl.find('\n', pos)) != std::string::npos; pos = nl + 1) {
    rows.push_back(nlohmann::json::parse(jsonl.substr(pos, nl - pos)));
  }
  ASSERT_EQ(records.size(), rows.size() + 1);
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<size_t>(it - header.begin());
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::vector<std::string>& rec = records[r + 1];
    ASSERT_EQ(rec.size(), header.size()) << "record " << r;
    EXPECT_EQ(rec[column("point")], rows[r]["point"].dump());
    EXPECT_EQ(rec[column("axes.nic.bandwidth")], rows[r]["axes"]["nic.bandwidth"].get<std::string>());
    EXPECT_EQ(rec[column("variant")], rows[r]["variant"].get<std::string>());
    EXPECT_EQ(rec[column("cluster.nodes")], rows[r]["cluster"]["nodes"].dump());
    EXPECT_EQ(rec[column("feasible")], rows[r]["feasible"].dump());
    if (rows[r]["feasible"].get<bool>()) {
      EXPECT_EQ(std::stod(rec[column("tflops_per_gpu")]), rows[r]["tflops_per_gpu"].get<double>());
      EXPECT_EQ(std::stod(rec[column("cost.usd_per_million_tokens")]),
                rows[r]["cost"]["usd_per_million_tokens"].get<double>());
    } else {
      EXPECT_EQ(rec[column("tflops_per_gpu")], "");
      EXPECT_EQ(rec[column("cost.usd_per_million_tokens")], "");
    }
    EXPECT_EQ(rec[column("provenance.model.hash")], rows[r]["provenance"]["model"]["hash"].get<std::string>());
  }
  // The end-of-run summary reads either format alike: the same table from the CSV as from the JSON lines
  // (27 points x 2 variants; the 9 points with 3 NICs are infeasible), and a CSV record cut short is an error.
  StatusOr<std::string> from_jsonl = SummarizeSweepRows(jsonl), from_csv = SummarizeSweepCsv(csv);
  ASSERT_TRUE(from_jsonl.ok()) << from_jsonl.status().message();
  ASSERT_TRUE(from_csv.ok()) << from_csv.status().message();
  EXPECT_EQ(*from_csv, *from_jsonl);
  EXPECT_NE(from_csv->find("summary: 54 rows, 27 clusters, 18 infeasible rows"), std::string::npos) << *from_csv;
  EXPECT_NE(from_csv->find("infeasible x"), std::string::npos) << *from_csv;
  EXPECT_FALSE(SummarizeSweepCsv(csv.substr(0, csv.size() - 5)).ok());
  EXPECT_FALSE(SummarizeSweepCsv("point,variant\r\n").ok());  // not a sweep's header
  // Cut in the middle of a record (and, once, inside the header): the rerun completes the same bytes.
  for (size_t cut : {csv.size() / 2, SweepCsvHeader(s).size() / 2}) {
    std::ofstream(dir_ / "cut.csv", std::ios::binary) << csv.substr(0, cut);
    o.out = (dir_ / "cut.csv").string();
    StatusOr<SweepStats> st = RunSweep(s, o);
    ASSERT_TRUE(st.ok()) << st.status().message();
    EXPECT_EQ(Read(dir_ / "cut.csv"), csv) << "cut at " << cut;
  }
  // A CSV output does not resume as JSON lines, nor JSON lines as CSV.
  o.out = (dir_ / "rows.jsonl").string();
  EXPECT_FALSE(RunSweep(s, o).ok());
  o.format = SweepFormat::kJsonl;
  o.out = (dir_ / "rows.csv").string();
  EXPECT_FALSE(RunSweep(s, o).ok());
}

TEST_F(SweepTest, AnInterruptedOutputIsResumed) {
  const io::SweepSpec s = Spec();
  const std::string whole = Run(s, "whole.jsonl");
  // Keep the first 7 rows and half of the 8th, as a killed run would leave them.
  size_t cut = 0;
  for (int i = 0; i < 7; ++i) cut = whole.find('\n', cut) + 1;
  Write("partial.jsonl", whole.substr(0, cut + 40));
  EXPECT_EQ(Run(s, "partial.jsonl"), whole);
}

// An output is the prefix of one shard's rows: a run of another shard, or an unsharded run, refuses a file
// written by a shard it is not (appending would mix the shards' points out of order), and the shards'
// outputs concatenated in k order resume as the unsharded output.
TEST_F(SweepTest, ResumeRefusesAnOutputOfAnotherShard) {
  const io::SweepSpec s = Spec();
  const std::string whole = Run(s, "whole.jsonl");
  const std::string first = Run(s, "one.jsonl", 1, 1, 2);
  const std::string second = Run(s, "two.jsonl", 1, 2, 2);
  auto resume = [&](const std::string& file, int shard, int shards) {
    SweepOptions o;
    o.out = (dir_ / file).string();
    o.shard = shard;
    o.shards = shards;
    o.progress = false;
    return RunSweep(s, o);
  };
  // Shard 1 into shard 2's output, and shard 2 into shard 1's: refused, the file untouched.
  StatusOr<SweepStats> st = resume("two.jsonl", 1, 2);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("shard 1/2"), std::string::npos) << st.status().message();
  EXPECT_NE(st.status().message().find("another shard"), std::string::npos) << st.status().message();
  EXPECT_EQ(Read(dir_ / "two.jsonl"), second);
  EXPECT_FALSE(resume("one.jsonl", 2, 2).ok());
  EXPECT_EQ(Read(dir_ / "one.jsonl"), first);
  // An unsharded run over one shard's output that is not its start, or over the shards out of order.
  EXPECT_FALSE(resume("two.jsonl", 1, 1).ok());
  Write("mixed.jsonl", second + first);
  EXPECT_FALSE(resume("mixed.jsonl", 1, 1).ok());
  EXPECT_EQ(Read(dir_ / "mixed.jsonl"), second + first);
  // Shard 1 cut after its first point, then shard 2: a hole the rerun would fill at the end.
  Write("holed.jsonl", first.substr(0, first.find('\n', first.find('\n') + 1) + 1) + second);
  EXPECT_FALSE(resume("holed.jsonl", 1, 1).ok());
  // Shard 1's output is the start of the unsharded one: resumed to the whole; the shards concatenated in
  // order are the whole.
  Write("resumed.jsonl", first);
  EXPECT_EQ(Run(s, "resumed.jsonl"), whole);
  Write("concatenated.jsonl", first + second);
  EXPECT_EQ(Run(s, "concatenated.jsonl"), whole);
}

TEST_F(SweepTest, UnknownAxisAndMissingPriceAreReported) {
  Write("x.sweep.toml", std::string(kSweep).replace(std::string(kSweep).find("\"nic.count\""), 11, "\"nic.cuont\""));
  StatusOr<io::SweepSpec> s = LoadSweep(io::DiskFileSource(), (dir_ / "x.sweep.toml").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("did you mean 'nic.count'"), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("x.sweep.toml:7"), std::string::npos) << s.status().message();

  std::string text = kSweep;
  text.replace(text.find("\"400Gbps\" = 2500"), 16, "");
  Write("x.sweep.toml", text);
  s = LoadSweep(io::DiskFileSource(), (dir_ / "x.sweep.toml").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("no NIC or switch-port price for 400 Gbps"), std::string::npos)
      << s.status().message();
}

// A value given twice on one axis (issue 39 item 7: nodes = [2, 2] ran every point twice) is refused at its
// line.
TEST_F(SweepTest, AnAxisValueGivenTwiceIsRefused) {
  std::string text = kSweep;
  text.replace(text.find("nodes = [2, 4, 8]"), 17, "nodes = [2, 4, 2]");
  Write("x.sweep.toml", text);
  const StatusOr<io::SweepSpec> s = LoadSweep(io::DiskFileSource(), (dir_ / "x.sweep.toml").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("x.sweep.toml:5"), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("[axes] nodes: 2 is given twice"), std::string::npos)
      << s.status().message();
}

// Constraints that keep no point name their keys and line, with the GPUs the points have.
TEST_F(SweepTest, ConstraintsThatKeepNoPointNameTheirKeyAndLine) {
  const std::string text = std::string(kSweep) + "[constraints]\ntotal_gpus = 7\n";
  Write("x.sweep.toml", text);
  const StatusOr<io::SweepSpec> s = LoadSweep(io::DiskFileSource(), (dir_ / "x.sweep.toml").string());
  ASSERT_FALSE(s.ok());
  const size_t line = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) - 1;
  EXPECT_NE(s.status().message().find(
                fmt::format("x.sweep.toml:{}:1: [constraints] total_gpus = 7: no point", line)),
            std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find("its points have 16 to 64 GPUs"), std::string::npos) << s.status().message();
}

TEST(Cost, OwnedClusterAmortisesCapexAndPaysPower) {
  model::ClusterSpec c;
  c.nodes = 4;
  c.gpus_per_node = 8;
  c.nic = {8, 50e9};
  c.fabric.kind = model::FabricKind::kFatTree;
  c.fabric.oversubscription = 2;
  model::PriceModel p;
  p.capex_per_gpu_usd = 30000;
  p.nic_usd_by_Bps[50e9] = 2500;
  p.switch_port_usd_by_Bps[50e9] = 1000;
  p.amortization_s = 4 * 365 * 86400.0;
  p.power_per_gpu_w = 1000;
  p.pue = 1.5;
  p.energy_usd_per_kwh = 0.1;
  // 32 NICs on leaves; 2:1 leaves have 16 uplinks, each a leaf and a spine port: 64 ports.
  EXPECT_DOUBLE_EQ(model::SwitchPorts(c), 64);
  const double capex = 32 * 30000.0 + 32 * 2500.0 + 64 * 1000.0;
  const model::CostResult r = model::EstimateCost(c, p, 1e5, 1e12);
  EXPECT_DOUBLE_EQ(r.capex_usd, capex);
  const double hourly = capex / (4 * 365 * 24.0) + 32 * 1000 * 1.5 / 1000 * 0.1;
  EXPECT_NEAR(r.usd_per_hour / hourly, 1.0, 1e-12);
  EXPECT_NEAR(r.time_to_train_s, 1e7, 1e-3);
  EXPECT_NEAR(r.cost_to_train_usd / (hourly * 1e7 / 3600), 1.0, 1e-12);
  EXPECT_NEAR(r.usd_per_million_tokens / (hourly / 3600 / 1e5 * 1e6), 1.0, 1e-12);
}

TEST(Pareto, KeepsExactlyTheUndominatedPoints) {
  const std::vector<study::TradeOff> pts = {{10, 5}, {12, 5}, {8, 3}, {20, 9}, {15, 10}, {7, 4}, {20, 8}};
  const std::vector<int> front = study::ParetoFront(pts);
  // Brute force: i is on the front iff no j is at least as good on both and better on one.
  std::vector<int> expected;
  for (size_t i = 0; i < pts.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < pts.size(); ++j) {
      const bool ge = pts[j].throughput >= pts[i].throughput && pts[j].cost <= pts[i].cost;
      const bool gt = pts[j].throughput > pts[i].throughput || pts[j].cost < pts[i].cost;
      dominated = dominated || (ge && gt);
    }
    if (!dominated) expected.push_back(static_cast<int>(i));
  }
  std::vector<int> sorted = front;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, expected);  // {8,3}, {12,5}, {20,8}
  EXPECT_EQ(front, (std::vector<int>{2, 1, 6}));
}

// Sweep rows carry the point's provenance: the files it used (a topology axis picks other files than the
// base) with their hashes and the calibration's kinds; editing the calibration a topology axis value names
// changes the sweep's fingerprint, so a resume does not mix rows of the two calibrations.
TEST_F(SweepTest, RowsCarryTheFilesOfTheirPointAndTheirCalibrationsKinds) {
  std::string topo2 = testing::kTopology;
  topo2.replace(topo2.find("c.json"), 6, "c2.json");
  Write("t2.toml", topo2);
  Write("c2.json", testing::Calibration());
  Write("y.sweep.toml", "name = \"y\"\nbase = \"s.toml\"\n[axes]\ntopology = [\"t.toml\", \"t2.toml\"]\n");
  auto spec = [&] {
    StatusOr<io::SweepSpec> s = LoadSweep(io::DiskFileSource(), (dir_ / "y.sweep.toml").string());
    EXPECT_TRUE(s.ok()) << s.status().message();
    return *s;
  };
  const std::string out = Run(spec(), "y.jsonl");
  std::set<std::string> topologies, calibrations;
  size_t pos = 0;
  while (pos < out.size()) {
    const size_t nl = out.find('\n', pos);
    const nlohmann::json row = nlohmann::json::parse(out.substr(pos, nl - pos));
    pos = nl + 1;
    const nlohmann::json& p = row.at("provenance");
    topologies.insert(fs::path(p["topology"]["path"].get<std::string>()).filename().string());
    calibrations.insert(fs::path(p["calibration"]["path"].get<std::string>()).filename().string());
    EXPECT_EQ(p["calibration"]["hash"].get<std::string>().rfind("fnv1a64:", 0), 0u);
    EXPECT_EQ(p["calibration_source"], "derived");
    EXPECT_EQ(p["kernels_source"], "derived");
    EXPECT_EQ(p["compute_source"], "derived");
    EXPECT_FALSE(p["zerosim_version"].get<std::string>().empty());
  }
  EXPECT_EQ(topologies, (std::set<std::string>{"t.toml", "t2.toml"}));
  EXPECT_EQ(calibrations, (std::set<std::string>{"c.json", "c2.json"}));
  SweepOptions o;
  const std::string before = SweepFingerprint(spec(), o);
  Write("c2.json", testing::Calibration() + " ");
  EXPECT_NE(SweepFingerprint(spec(), o), before);
}

}  // namespace
}  // namespace zerosim::study
