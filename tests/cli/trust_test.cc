// Reproducers of issue 12 (commands): options that did nothing, crashes on bad arguments, output that
// went to the wrong place or was cut off, resumes that trusted foreign rows, children that outlived
// their parent. Each command is driven through its handler, as main() calls it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/run_captured.h"
#include "model/report/evaluate.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/feasibility.h"
#include "scratch_dir.h"
#include "sim/isolation.h"
#include "study/pareto.h"
#include "study/sweep_grid.h"
#include "study/sweep_runner.h"
#include "study/sweep_summary.h"
#include "test_inputs.h"
#include "test_util.h"

namespace zerosim::cli {
namespace {

namespace fs = std::filesystem;

const char* kPlanSweep = R"(name = "plan sweep"
base = "s.toml"
train_tokens = 1e9
[axes]
tokens_per_gpu = [512, 1024, 2048]
nodes = [2, 4]
[cost]
gpu_hour_usd = 2.5
)";

using Result = testing::CommandResult;

class TrustTest : public testing::InputFilesTest {
 protected:
  TrustTest() : InputFilesTest("trust") {}
  void SetUp() override {
    InputFilesTest::SetUp();
    Write("p.sweep.toml", kPlanSweep);
  }
  // Runs `command` with `args`, capturing stdout and stderr (run_captured.h).
  Result Run(int (*command)(int, char**), std::vector<std::string> args) {
    return testing::RunCaptured(command, std::move(args));
  }
  io::SweepSpec Spec(const std::string& file) {
    StatusOr<io::SweepSpec> s = study::LoadSweep(io::DiskFileSource(), Path(file));
    EXPECT_TRUE(s.ok()) << s.status().message();
    return *s;
  }
};

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(TrustTest, JsonDashWritesTheReportToStdout) {
  const Result r = Run(RunCommand, {"run", Path("s.toml"), "--json", "-"});
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  EXPECT_FALSE(fs::exists("-"));
  const nlohmann::json j = nlohmann::json::parse(r.out);  // stdout holds the JSON alone
  EXPECT_EQ(j.at("variants").size(), 2u);
  EXPECT_HAS(r.err, "ZeRO++");  // the table went to stderr
}

TEST_F(TrustTest, HfConfigReplacesEveryVariantsModel) {
  const std::string config = std::string(ZEROSIM_SOURCE_DIR) + "/tests/data/hf/llama3.1_8b.json";
  Result r = Run(RunCommand, {"run", Path("s.toml"), "--hf-config", config, "--json", "-"});
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const nlohmann::json& v : j.at("variants")) {
    EXPECT_EQ(v.at("model").at("hidden"), 4096);  // Llama-3.1-8B's width, not the scenario's tiny model
    EXPECT_EQ(v.at("seq_len"), 512);              // the scenario's training settings still apply
  }
  r = Run(RunCommand, {"run", Path("s.toml"), "--hf-config", Path("missing.json")});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "missing.json");
}

TEST_F(TrustTest, SetAppliesAWhatIfLikeASweepAxis) {
  Result r = Run(RunCommand, {"run", Path("s.toml"), "--set", "nic.bandwidth=200Gbps", "--set", "nodes=2",
                              "--json", "-"});
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& cluster = j.at("scenario").at("cluster");
  EXPECT_EQ(cluster.at("nodes"), 2);
  EXPECT_DOUBLE_EQ(cluster.at("nic").at("bandwidth_Bps").get<double>(), 25e9);
  EXPECT_HAS(j.at("scenario").at("name").get<std::string>(), "(--set nic.bandwidth=200Gbps nodes=2)");
  r = Run(RunCommand, {"run", Path("s.toml"), "--set", "nic.bandwith=200Gbps"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "did you mean 'nic.bandwidth'");
  r = Run(RunCommand, {"run", Path("s.toml"), "--set", "nodes=0"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "nodes: must be between 1 and 65536");
  r = Run(RunCommand, {"run", Path("s.toml"), "--set", "nodes=2", "--set", "nodes=4"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "nodes is set twice");
  r = Run(RunCommand, {"run", Path("s.toml"), "--set", "nic.count=3"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "3 NICs do not divide 8 GPUs per node");
}

TEST_F(TrustTest, SimOnlyOptionsAreRejectedWithTheAnalyticEngine) {
  Result r = Run(RunCommand, {"run", Path("s.toml"), "--fidelity", "step"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "--fidelity applies to the sim engine only");
  r = Run(RunCommand, {"run", Path("s.toml"), "--reduction", "full"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "--reduction applies to the sim engine only");
  r = Run(SweepCommand, {"sweep", Path("p.sweep.toml"), "--fidelity", "macro"});
  EXPECT_EQ(r.rc, kExitUsage);
}

TEST_F(TrustTest, TraceRanksAreChecked) {
  const std::string trace = Path("trace.json");
  // Two identical timelines under the symmetric reduction.
  Result r =
      Run(RunCommand, {"run", Path("s.toml"), "--engine", "sim", "--trace", trace, "--trace-ranks", "0,15"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "under --reduction symmetric every rank replays the same timeline");
  r = Run(RunCommand, {"run", Path("s.toml"), "--engine", "sim", "--reduction", "full", "--trace", trace,
                       "--trace-ranks", "3,3"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "rank 3 is listed twice");
  r = Run(RunCommand, {"run", Path("s.toml"), "--engine", "sim", "--trace", trace, "--trace-ranks", "99999"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "rank 99999 does not exist: 'test cluster' has 32 GPUs");
  r = Run(RunCommand,
          {"run", Path("s.toml"), "--engine", "sim", "--trace", trace, "--trace-ranks", "99999999999"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "is not a rank number");
  r = Run(RunCommand, {"run", Path("s.toml"), "--trace-ranks", "1"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "--trace-ranks needs --trace");
  EXPECT_FALSE(fs::exists(trace));
}

TEST_F(TrustTest, FitRejectsAStartingValueThatIsNotANumber) {
  const std::string scenario = std::string(ZEROSIM_SOURCE_DIR) + "/scenarios/zeropp_paper/fig7_1x100g.toml";
  Result r = Run(FitCommand, {"fit", scenario, "--param",
                              "nccl.inter_bandwidth_efficiency=abc"});  // was std::stod, exit 134
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err,
             "--param nccl.inter_bandwidth_efficiency: the starting value must be a number between 0.05 and "
             "1, got 'abc'");
  r = Run(FitCommand, {"fit", scenario, "--param", "nccl.inter_bandwidth_efficiency=7"});
  EXPECT_EQ(r.rc, kExitUsage);
  r = Run(FitCommand, {"fit", scenario, "--param", "nccl.inter_bandwidth_efficiency", "--param",
                       "nccl.inter_bandwidth_efficiency"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "given twice");
}

TEST_F(TrustTest, PlanArgumentsAreChecked) {
  for (const char* bad : {"--budget-usd=-1", "--target-days=-5", "--top=-1", "--top=0", "--budget-usd=nan"}) {
    const Result r = Run(PlanCommand, {"plan", Path("p.sweep.toml"), bad});
    EXPECT_EQ(r.rc, kExitUsage) << bad << "\n" << r.out;
    EXPECT_HAS(r.err, "zerosim plan: --");
  }
}

TEST_F(TrustTest, SweepArgumentsAreChecked) {
  for (const char* bad :
       {"--shard=99999999999/99999999999", "--shard=0/3", "--shard=2/1", "--shard=1/2x", "-j0"}) {
    const Result r = Run(SweepCommand, {"sweep", Path("p.sweep.toml"), bad, "-q"});
    EXPECT_EQ(r.rc, kExitUsage) << bad << "\n" << r.err;
  }
}

// plan --jsonl: the notebooks plot plan's own choices (issue 12: the notebook's "best" differed from plan's).
TEST_F(TrustTest, PlanJsonlHoldsTheTablesChoicesRanksAndParetoFront) {
  const Result r = Run(PlanCommand, {"plan", Path("p.sweep.toml"), "--jsonl", Path("plan.jsonl")});
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  std::ifstream in(Path("plan.jsonl"));
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 6u);  // 3 micro-batches x 2 node counts, all trainable
  std::vector<study::TradeOff> trade;
  for (const nlohmann::json& j : rows) {
    trade.push_back({j["tokens_per_s"].get<double>(), j["usd_per_million_tokens"].get<double>()});
    EXPECT_EQ(j["axes"].size(), 2u);
    ASSERT_TRUE(j.contains("baseline_tokens_per_s")) << j;  // the first variant fits here
    EXPECT_GE(j["tokens_per_s"].get<double>(), j["baseline_tokens_per_s"].get<double>());  // it is a candidate
    // The table prints the same choice on the row of that cluster.
    EXPECT_HAS(r.out, j["best_setting"].get<std::string>());
  }
  std::vector<bool> front(rows.size(), false);
  for (int i : study::ParetoFront(trade)) front[static_cast<size_t>(i)] = true;
  int first = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["pareto"].get<bool>(), front[i]) << i;
    if (rows[i]["rank"].get<int>() == 1) first = static_cast<int>(i);
  }
  // Rank 1 is the cheapest per token (no budget or target given).
  ASSERT_GE(first, 0);
  for (const nlohmann::json& j : rows) {
    EXPECT_LE(rows[static_cast<size_t>(first)]["usd_per_million_tokens"].get<double>(),
              j["usd_per_million_tokens"].get<double>());
  }
}

// plan ranked first a point at 1559.9 TFLOPs per GPU on a 989-TFLOPs H200: its private schedule cache left
// the micro-batch out of the key, so a point reused the schedule of another tokens_per_gpu.
TEST_F(TrustTest, PlanNeverReusesTheScheduleOfAnotherMicroBatch) {
  const Result r = Run(PlanCommand, {"plan", Path("p.sweep.toml")});
  EXPECT_EQ(r.rc, kExitOk) << r.err;
  EXPECT_EQ(r.err.find("invariant"), std::string::npos) << r.err;
  EXPECT_HAS(r.out, "6 cluster configurations");
  // Every point's every setting, evaluated on its own, is below the GPU's peak, and the shared cache gives
  // each micro-batch its own schedule.
  const io::SweepSpec spec = Spec("p.sweep.toml");
  model::ScheduleCache cache;
  for (size_t i = 0; i < study::PointCount(spec); ++i) {
    const study::SweepPoint p = study::MakePoint(spec, i);
    for (const io::Variant& v : p.variants) {
      const model::Schedule& cached = cache.Get(v.model, v.zero, p.cluster);
      const model::Schedule fresh = model::BuildSchedule(v.model, v.zero, p.cluster);
      EXPECT_EQ(cached.tokens_per_micro_step, fresh.tokens_per_micro_step);
      EXPECT_EQ(cached.ops.size(), fresh.ops.size());
      const model::VariantReport rep =
          model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, p.cluster, p.calibration}, cached);
      EXPECT_LE(rep.tflops_per_gpu * 1e12, p.cluster.gpu.peak_flops);
      EXPECT_EQ(rep.invariant_violation, "");
    }
  }
}

TEST_F(TrustTest, ScheduleCacheReferencesSurviveLaterBuilds) {
  model::ScheduleCache cache(4);
  const model::ClusterSpec c = testing::PaperCluster(1, 2, 8);
  model::ModelSpec m = testing::Gpt(2, 256, 4);
  m.seq_len = 256;
  model::ZeroConfig z;
  const model::Schedule& first = cache.Get(m, z, c);
  const size_t ops = first.ops.size();
  for (int micro = 2; micro <= 4; ++micro) {  // three more entries: a vector would have reallocated
    z.train_micro_batch_size_per_gpu = micro;
    cache.Get(m, z, c);
  }
  EXPECT_EQ(cache.builds(), 4);
  EXPECT_EQ(first.ops.size(), ops);
  EXPECT_EQ(first.tokens_per_micro_step, 256);
}

TEST_F(TrustTest, SweepOutputErrorsAreReported) {
  const io::SweepSpec spec = Spec("p.sweep.toml");
  study::SweepOptions o;
  o.progress = false;
  o.out = dir_.string();  // a directory: was an uncaught exception
  StatusOr<study::SweepStats> st = study::RunSweep(spec, o);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st.status().message(), "is a directory");
  if (fs::exists("/dev/full")) {
    o.out = "/dev/full";  // a full disk: was exit 0 with a cut-off last row
    st = study::RunSweep(spec, o);
    ASSERT_FALSE(st.ok());
    EXPECT_HAS(st.status().message(), "cannot write /dev/full");
    o.jobs = 2;
    st = study::RunSweep(spec, o);
    ASSERT_FALSE(st.ok());
    EXPECT_HAS(st.status().message(), "cannot write /dev/full");
  }
}

TEST_F(TrustTest, ResumeRefusesRowsOfAnotherSweepOrEngine) {
  study::SweepOptions o;
  o.progress = false;
  o.out = Path("out.jsonl");
  ASSERT_TRUE(study::RunSweep(Spec("p.sweep.toml"), o).ok());
  const std::string rows = [&] {
    std::ifstream in(o.out);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();
  EXPECT_HAS(rows, "\"sweep_hash\":\"fnv1a64:");
  // The same sweep resumes (nothing left to do).
  StatusOr<study::SweepStats> st = study::RunSweep(Spec("p.sweep.toml"), o);
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->points_run, 0u);
  // Another engine: the rows are not its rows.
  study::SweepOptions sim = o;
  sim.sim = true;
  st = study::RunSweep(Spec("p.sweep.toml"), sim);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st.status().message(), "cannot resume: the row at byte 0 comes from another sweep");
  // Another sweep (other inputs) into the same file.
  Write("p.sweep.toml", std::string(kPlanSweep) + "# edited\n");
  st = study::RunSweep(Spec("p.sweep.toml"), o);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st.status().message(), "another sweep");
}

TEST_F(TrustTest, TwoSweepsCannotWriteOneOutput) {
  const std::string out = Path("locked.jsonl");
  Write("locked.jsonl", "");
  FILE* other = std::fopen(out.c_str(), "ab");
  ASSERT_NE(other, nullptr);
  ASSERT_EQ(flock(fileno(other), LOCK_EX | LOCK_NB), 0);  // what a running sweep holds
  study::SweepOptions o;
  o.progress = false;
  o.out = out;
  StatusOr<study::SweepStats> st = study::RunSweep(Spec("p.sweep.toml"), o);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st.status().message(), "is being written by another zerosim process");
  std::fclose(other);
  EXPECT_TRUE(study::RunSweep(Spec("p.sweep.toml"), o).ok());
}

TEST_F(TrustTest, SweepEndsWithASummaryOfTheBestVariantPerCluster) {
  Write("s.sweep.toml", R"(name = "summary"
base = "s.toml"
[axes]
nodes = [2, 4]
"nic.count" = [2, 3]
)");
  const Result r = Run(SweepCommand, {"sweep", Path("s.sweep.toml"), "-o", Path("s.jsonl"), "--quiet"});
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  EXPECT_EQ(r.err.find("summary:"), std::string::npos) << "--quiet prints no summary";
  const std::string rows = [&] {
    std::ifstream in(Path("s.jsonl"));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();
  StatusOr<std::string> summary = study::SummarizeSweepRows(rows);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_HAS(*summary, "summary: 8 rows, 4 clusters, 4 infeasible rows");
  EXPECT_HAS(*summary, "nodes=4 nic.count=2");
  EXPECT_HAS(*summary, "ZeRO");  // the faster of ZeRO-3 and ZeRO++
  EXPECT_HAS(*summary, "infeasible x4: nic.count: 3 NICs do not divide 8 GPUs per node into equal rails");
  // The fastest cluster comes first.
  EXPECT_LT(summary->find("nodes=4 nic.count=2"), summary->find("nodes=2 nic.count=2"));
  EXPECT_FALSE(study::SummarizeSweepRows("not json\n").ok());
}

// The summary's labels named file axes by their whole relative path, cut to 56 characters, so that every
// cluster of a topology sweep read "topology=../../topologies/z": they name the file's stem now.
TEST(SweepSummary, FileAxesShowTheFileStemAndLabelsAreNotCut) {
  const std::string rows =
      R"({"axes":{"topology":"../../topologies/zeropp_v100_8x100g.toml","model":"../models/gpt_138b.toml",)"
      R"("nodes":24},"feasible":true,"tokens_per_s":2,"variant":"ZeRO++ with a long variant name","tflops_per_gpu":1})"
      "\n"
      R"({"axes":{"topology":"../../topologies/zeropp_v100_1x100g.toml","model":"../models/gpt_138b.toml",)"
      R"("nodes":24},"feasible":true,"tokens_per_s":1,"variant":"ZeRO-3","tflops_per_gpu":0.5})"
      "\n";
  StatusOr<std::string> summary = study::SummarizeSweepRows(rows);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_HAS(*summary, "topology=zeropp_v100_8x100g model=gpt_138b nodes=24 ZeRO++ with a long variant name");
  EXPECT_HAS(*summary, "topology=zeropp_v100_1x100g model=gpt_138b nodes=24 ZeRO-3");
  EXPECT_EQ(summary->find("../"), std::string::npos) << *summary;
}

// kill -9 of zerosim left its simulation child running.
TEST(TrustChild, TheSimulationChildDiesWithItsParent) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    close(fds[0]);
    const int out = fds[1];
    (void)sim::RunInChild([out]() -> StatusOr<std::string> {
      const pid_t self = getpid();
      (void)!write(out, &self, sizeof self);
      sleep(60);
      return std::string("late");
    });
    _exit(0);
  }
  close(fds[1]);
  pid_t child = 0;
  ASSERT_EQ(read(fds[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  close(fds[0]);
  kill(middle, SIGKILL);
  waitpid(middle, nullptr, 0);
  // The child gets SIGKILL from the kernel when its parent dies; wait until it is gone (or a zombie).
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, name, state;
    gone = !(stat >> pid >> name >> state) || state == "Z" || state == "X";
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(gone) << "simulation child " << child << " outlived its parent";
  if (!gone) kill(child, SIGKILL);
}

TEST_F(TrustTest, SearchBatchRunsEachVariantAtTheMicroBatchFoundForTheTarget) {
  // 32 GPUs and a target of 256 sequences: 8 per GPU per step; the tiny model fits far more than 8 sequences,
  // so the search settles on a micro-batch of 8 and one step.
  Result r =
      Run(RunCommand, {"run", Path("s.toml"), "--search-batch", "--global-batch", "256", "--json", "-"});
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  EXPECT_HAS(r.err, "batch search: the largest micro-batch");
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const nlohmann::json& v : j.at("variants")) {
    EXPECT_EQ(v.at("zero").at("train_micro_batch_size_per_gpu"), 8);
    EXPECT_EQ(v.at("zero").at("gradient_accumulation_steps"), 1);
  }
  r = Run(RunCommand, {"run", Path("s.toml"), "--global-batch", "256"});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "--global-batch needs --search-batch");
}

TEST_F(TrustTest, DsConfigAppliesToEveryVariantAndItsIgnoredKeysReachTheReport) {
  Write("ds.json",
        R"({"communication_data_type": "fp32", "steps_per_print": 10, "zero_optimization": {"stage": 3}})");
  Result r = Run(RunCommand, {"run", Path("s.toml"), "--ds-config", Path("ds.json"), "--json", "-"});
  ASSERT_EQ(r.rc, kExitOk) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("provenance").at("ignored_config_keys"), nlohmann::json::array({"$.steps_per_print"}));
  for (const nlohmann::json& v : j.at("variants"))
    EXPECT_EQ(v.at("zero").at("communication_data_type"), "fp32");
  EXPECT_HAS(r.err, "ignored (not modelled): $.steps_per_print");
  Write("bad.json", R"({"communication_data_type": ["fp32"]})");
  r = Run(RunCommand, {"run", Path("s.toml"), "--ds-config", Path("bad.json")});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "$.communication_data_type: expected");
}

TEST_F(TrustTest, Fp8OnAGpuWithoutAnFp8PeakIsAnErrorAtTheKey) {
  Write("fp8.toml", std::string(testing::kScenario) + "\n[[variant]]\nname = \"FP8\"\nfp8_gemms = true\n");
  Result r = Run(RunCommand, {"run", Path("fp8.toml")});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "fp8_gemms");
  EXPECT_HAS(r.err, "no FP8 tensor cores");
}

}  // namespace
}  // namespace zerosim::cli
