// Reproducers of issue 12 (loaders and sweeps): each input that crashed, hung, wrapped around or passed
// silently now fails with file:line and key, or becomes an infeasible row.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <string>

#include <fmt/format.h>

#include "model/io/loaders.h"
#include "model/io/report_json.h"
#include "model/io/sweep.h"
#include "scratch_dir.h"
#include "study/sweep_grid.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

std::map<std::string, std::string> Files() { return testing::InputFiles(); }

std::string Edit(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The error of loading s.toml after replacing `from` by `to` in `file` ("" if it loads).
std::string ErrorAfterEdit(const std::string& file, const std::string& from, const std::string& to) {
  auto files = Files();
  files[file] = Edit(files[file], from, to);
  StatusOr<Scenario> s = LoadScenario(MemoryFileSource(files), "s.toml");
  return s.ok() ? "" : s.status().message();
}

#define EXPECT_ERROR_HAS(error, text) EXPECT_NE((error).find(text), std::string::npos) << (error)

TEST(Trust, ZeroHpzPartitionIsAnErrorNotADivisionByZero) {
  const std::string e =
      ErrorAfterEdit("s.toml", "zero_hpz_partition_size = 8", "zero_hpz_partition_size = 0");
  EXPECT_ERROR_HAS(e, "s.toml:19:27: [variant.1] zero_hpz_partition_size: must be at least 1");
  const std::string big =
      ErrorAfterEdit("s.toml", "zero_hpz_partition_size = 8", "zero_hpz_partition_size = 4294967296");
  EXPECT_ERROR_HAS(big, "zero_hpz_partition_size: must be at most");
}

TEST(Trust, IntegersAreNotNarrowedTo32Bits) {
  // 4294967320 = 2^32 + 24 ran as 24 nodes.
  EXPECT_ERROR_HAS(ErrorAfterEdit("t.toml", "nodes = 4", "nodes = 4294967320"),
                   "t.toml:2:9: nodes: must be at most");
  // heads = 2^32 narrowed to 0 and divided.
  EXPECT_ERROR_HAS(ErrorAfterEdit("m.toml", "heads = 4", "heads = 4294967296"),
                   "m.toml:5:9: heads: must be at most");
  EXPECT_ERROR_HAS(ErrorAfterEdit("m.toml", "layers = 2", "layers = 2147483648"),
                   "m.toml:3:10: layers: must be at most");
  EXPECT_ERROR_HAS(ErrorAfterEdit("s.toml", "seq_len = 512", "seq_len = 4294967808"),
                   "seq_len: must be at most");
}

TEST(Trust, SizesBeyondTheLimitsAreErrorsWithAnEstimate) {
  // layers = 1e6 ended in std::bad_alloc, layers = 1e9 grew past 10 GB.
  const std::string layers = ErrorAfterEdit("m.toml", "layers = 2", "layers = 1000000");
  EXPECT_ERROR_HAS(layers,
                   "s.toml:3:9: model: m.toml: layers: must be between 1 and 100000");  // the file too
  const std::string gas =
      ErrorAfterEdit("s.toml", "activation_checkpointing = true",
                     "activation_checkpointing = true\ngradient_accumulation_steps = 100000");
  EXPECT_ERROR_HAS(gas, "gradient_accumulation_steps: must be at most 65536");
  const std::string ops =
      ErrorAfterEdit("s.toml", "activation_checkpointing = true",
                     "activation_checkpointing = true\ngradient_accumulation_steps = 60000");
  EXPECT_ERROR_HAS(ops, "GB to build");
  EXPECT_ERROR_HAS(ErrorAfterEdit("t.toml", "nodes = 4", "nodes = 100000"), "nodes: must be at most 65536");
}

TEST(Trust, QuantitiesStayFiniteAfterScaling) {
  EXPECT_ERROR_HAS(ErrorAfterEdit("t.toml", "bandwidth = \"100Gbps\"", "bandwidth = \"1e300TBps\""),
                   "t.toml:20:13: [nic] bandwidth: expected a bandwidth");
  EXPECT_ERROR_HAS(ErrorAfterEdit("t.toml", "bandwidth = \"100Gbps\"", "bandwidth = \"1e300TBps\""),
                   "too large");
}

TEST(Trust, AbsurdCalibrationsAreRefused) {
  // 1e300 s per kernel launch or 1e-300 B/s deadlocked the SimGrid replay, which then reported time 0.
  EXPECT_ERROR_HAS(ErrorAfterEdit("c.json", "\"alpha_s\": 4e-6", "\"alpha_s\": 1e300"),
                   "c.json: key 'kernels.quantize_int8.alpha_s': expected a number between 0 and 1");
  EXPECT_ERROR_HAS(ErrorAfterEdit("c.json", "\"copy_bandwidth_Bps\": 8e11", "\"copy_bandwidth_Bps\": 1e-300"),
                   "copy_bandwidth_Bps': expected a number between 1e+06 and 1e+15");
}

TEST(Trust, AnOverflowingJsonNumberIsAnError) {
  // Found by fuzz/loaders_fuzz.cc: nlohmann's out_of_range exception escaped the calibration loader.
  auto files = Files();
  files["c.json"] =
      "  8888888888888888888888888222222222222222222222222222222222222222222222222888888888e8888";
  StatusOr<Scenario> s = LoadScenario(MemoryFileSource(files), "s.toml");
  ASSERT_FALSE(s.ok());
  EXPECT_ERROR_HAS(s.status().message(), "c.json: invalid JSON");
}

TEST(Trust, PodsThatDoNotFillAreReportedAtTheirKey) {
  const std::string e = ErrorAfterEdit("t.toml", "kind = \"single_switch\"",
                                       "kind = \"fat_tree\"\nnodes_per_leaf = 2\nleaves_per_pod = 4");
  EXPECT_ERROR_HAS(e, "[fabric] leaves_per_pod: 4 nodes do not fill pods of 8 nodes");
}

class TrustFiles : public testing::ScratchDirTest {
 protected:
  TrustFiles() : ScratchDirTest("trust_files") {}
};

TEST_F(TrustFiles, NonRegularFilesAreRefused) {
  const DiskFileSource disk;
  StatusOr<std::string> r = disk.Read("/dev/zero");  // used to read forever
  ASSERT_FALSE(r.ok());
  EXPECT_ERROR_HAS(r.status().message(), "not a regular file");
  r = disk.Read(dir_.string());  // said "missing key 'name'"
  ASSERT_FALSE(r.ok());
  EXPECT_ERROR_HAS(r.status().message(), "is a directory");
  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  r = disk.Read(fifo);  // used to hang
  ASSERT_FALSE(r.ok());
  EXPECT_ERROR_HAS(r.status().message(), "not a regular file");
  Write("big.toml", std::string(kMaxInputBytes + 1, '#'));
  r = disk.Read(Path("big.toml"));
  ASSERT_FALSE(r.ok());
  EXPECT_ERROR_HAS(r.status().message(), "larger than any ZeroSim input");
}

TEST(Trust, NonUtf8NamesDoNotAbortTheJsonWriter) {
  auto files = Files();
  files["t.toml"] = Edit(files["t.toml"], "name = \"G\"", "name = \"G\\u00e9\"");
  StatusOr<Scenario> s = LoadScenario(MemoryFileSource(files), "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  model::Report r;
  r.scenario_name = "bad \xff\xfe bytes";
  r.cluster = s->cluster;
  r.provenance.scenario.path = "/tmp/\xc3(/s.toml";
  const std::string json = ReportJsonText(r);
  EXPECT_NE(json.find("bad \xef\xbf\xbd"), std::string::npos) << json;  // U+FFFD
}

// --- sweeps ---

const char* kSweepHead = R"(name = "trust sweep"
base = "s.toml"
[axes]
)";

std::string SweepError(const std::string& axes_and_more) {
  auto files = Files();
  files["x.toml"] = std::string(kSweepHead) + axes_and_more;
  StatusOr<SweepSpec> s = study::LoadSweep(MemoryFileSource(files), "x.toml");
  return s.ok() ? "" : s.status().message();
}

TEST(Trust, SweepAxesAreValidatedLikeTheScenarioLoader) {
  // gpus: -16, negative tokens/s and memory, feasible: true.
  EXPECT_ERROR_HAS(SweepError("nodes = [2147483647]\n"),
                   "x.toml:4:10: [axes] nodes: must be between 1 and 65536");
  EXPECT_ERROR_HAS(SweepError("reduce_bucket_size = [0]\n"),
                   "[axes] reduce_bucket_size: must be between 1 and");
  EXPECT_ERROR_HAS(SweepError("reduce_bucket_size = [0.5]\n"), "expected a whole number");
  EXPECT_ERROR_HAS(SweepError("stage3_prefetch_bucket_size = [inf]\n"), "expected a whole number");
  EXPECT_ERROR_HAS(SweepError("\"fabric.oversubscription\" = [inf]\n"), "must be between 1 and");
  EXPECT_ERROR_HAS(SweepError("\"nic.bandwidth\" = [\"1e300TBps\"]\n"), "too large");
  EXPECT_ERROR_HAS(SweepError("tokens_per_gpu = [9223372036854775807]\n"),
                   "[axes] tokens_per_gpu: must be between");
}

TEST(Trust, AHugeGridIsAnErrorNotZeroPoints) {
  // 2^64 points wrapped around to 0.
  std::string axes;
  std::string values = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]";
  for (const char* key : {"nodes", "seq_len", "tokens_per_gpu", "reduce_bucket_size"}) {
    axes += fmt::format("{} = {}\n", key, values);
  }
  for (const char* key : {"stage3_prefetch_bucket_size", "stage3_max_live_parameters",
                          "fabric.oversubscription", "nic.count"}) {
    axes += fmt::format("\"{}\" = {}\n", key, values);
  }
  EXPECT_ERROR_HAS(SweepError(axes), "more than 1e+07 points");
}

TEST(Trust, NegativePricesAreRefused) {
  const std::string cost = R"(nodes = [4]
[cost]
capex_per_gpu_usd = 30000
amortization = "4y"
[cost.nic_usd]
"100Gbps" = -800
[cost.switch_port_usd]
"100Gbps" = 300
)";
  EXPECT_ERROR_HAS(SweepError(cost),
                   "x.toml:9:13: [cost.nic_usd] 100Gbps: expected a price in USD between 0 and");
  EXPECT_ERROR_HAS(SweepError("nodes = [4]\n[cost]\ngpu_hour_usd = -2\n"),
                   "gpu_hour_usd: must be between 0 and");
}

TEST(Trust, CombinationsThatCannotRunAreInfeasibleRows) {
  auto files = Files();
  files["t.toml"] = Edit(files["t.toml"], "kind = \"single_switch\"",
                         "kind = \"fat_tree\"\nnodes_per_leaf = 2\nleaves_per_pod = 2");
  // 12 nodes fill leaves of 2 but not pods of 4: the sim platform aborted on it.
  files["x.toml"] = std::string(kSweepHead) + "nodes = [4, 6, 8]\n";
  StatusOr<SweepSpec> s = study::LoadSweep(MemoryFileSource(files), "x.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(study::PointCount(*s), 3u);
  EXPECT_EQ(study::MakePoint(*s, 0).infeasible, "");
  // A cluster problem: every variant's row carries it (each variant is checked on its own, item 22).
  EXPECT_ERROR_HAS(study::MakePoint(*s, 1).variant_infeasible.front(),
                   "fabric.leaves_per_pod: 6 nodes do not fill pods of 4 nodes");
  EXPECT_EQ(study::MakePoint(*s, 2).infeasible, "");
}

}  // namespace
}  // namespace zerosim::io

namespace zerosim::io {
namespace {

// Issue 20 item 23: [gpu] hbm_bandwidth was parsed and used nowhere; a calibration copying faster than the GPU's
// memory can move describes another GPU, and a scenario's nodes beyond its topology's were accepted.
TEST(Trust, HbmBandwidthBoundsTheCalibrationAndNodesTheTopology) {
  EXPECT_EQ(ErrorAfterEdit("t.toml", "hbm_bandwidth = \"900GBps\"", "hbm_bandwidth = \"900GBps\""), "");
  EXPECT_ERROR_HAS(ErrorAfterEdit("t.toml", "hbm_bandwidth = \"900GBps\"", "hbm_bandwidth = \"500GBps\""),
                   "more than the [gpu] hbm_bandwidth");
  EXPECT_EQ(ErrorAfterEdit("s.toml", "model = \"m.toml\"", "model = \"m.toml\"\nnodes = 2"), "");
  EXPECT_ERROR_HAS(ErrorAfterEdit("s.toml", "model = \"m.toml\"", "model = \"m.toml\"\nnodes = 8"),
                   "8 nodes: more than the 4 nodes");
}

}  // namespace
}  // namespace zerosim::io
