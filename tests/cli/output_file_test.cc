// Whole-file outputs and the commands' refusals (issue 39 items 5 to 7): run --json, plan --jsonl and
// validate's files are written to a temporary file and renamed (a failure leaves no cut-off file), under the
// lock a sweep's output takes (a second writer is refused, not silently overwritten); write errors start with
// "error:" and carry the system's reason; --global-batch 0 and an unreachable --global-batch are refused
// saying so; compare refuses a scenario against a topology.
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_captured.h"
#include "cli/options.h"
#include "scratch_dir.h"
#include "test_inputs.h"

namespace zerosim::cli {
namespace {

namespace fs = std::filesystem;

const char* kSweep = R"(name = "plan sweep"
base = "s.toml"
train_tokens = 1e9
[axes]
nodes = [2, 4]
[cost]
gpu_hour_usd = 2.5
)";

using Result = testing::CommandResult;

class OutputFileTest : public testing::InputFilesTest {
 protected:
  OutputFileTest() : InputFilesTest("output_file") {}
  void SetUp() override {
    InputFilesTest::SetUp();
    Write("p.sweep.toml", kSweep);
  }
  // Runs `command` with `args`, capturing stdout and stderr (run_captured.h).
  Result Run(int (*command)(int, char**), std::vector<std::string> args) {
    return testing::RunCaptured(command, std::move(args));
  }
  // The names in the scratch directory.
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const fs::directory_entry& e : fs::directory_iterator(Path(""))) out.push_back(e.path().filename());
    return out;
  }
};

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(OutputFileTest, AFileIsReplacedWholeAndNoTemporaryFileStays) {
  const std::vector<std::string> before = Names();
  Write("out.json", "old contents that are longer than the new ones\n");
  ASSERT_TRUE(WriteOutputFile(Path("out.json"), "new\n").ok());
  EXPECT_EQ(Read(Path("out.json")), "new\n");
  ASSERT_TRUE(WriteOutputFile(Path("fresh.json"), "fresh\n").ok());
  EXPECT_EQ(Read(Path("fresh.json")), "fresh\n");
  EXPECT_EQ(Names().size(), before.size() + 2);  // out.json and fresh.json, nothing else
}

// A write that fails half-way (here: a file-size limit of 1 KiB, as a full disk would) leaves the old file as
// it was and no temporary file (WriteOutputFile wrote in place and left a cut-off file).
TEST_F(OutputFileTest, AFailedWriteLeavesTheOldFileAndNoTemporaryFile) {
  Write("out.json", "old\n");
  const size_t names = Names().size();
  void (*previous)(int) = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &limit), 0);
  const rlimit small{1024, limit.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status st = WriteOutputFile(Path("out.json"), std::string(64 * 1024, 'x'));
  const Status fresh = WriteOutputFile(Path("fresh.json"), std::string(64 * 1024, 'x'));
  setrlimit(RLIMIT_FSIZE, &limit);
  std::signal(SIGXFSZ, previous);
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st.message(), "cannot write ");
  EXPECT_HAS(st.message(), "File too large");
  EXPECT_EQ(Read(Path("out.json")), "old\n");
  EXPECT_FALSE(fresh.ok());
  EXPECT_FALSE(fs::exists(Path("fresh.json")));  // not even an empty one
  EXPECT_EQ(Names().size(), names);
}

TEST_F(OutputFileTest, ASecondWriterOfOneFileIsRefused) {
  Write("rows.jsonl", "");
  std::FILE* other = std::fopen(Path("rows.jsonl").c_str(), "ab");
  ASSERT_NE(other, nullptr);
  ASSERT_EQ(flock(fileno(other), LOCK_EX | LOCK_NB), 0);  // what a running sweep, plan or run holds
  const Status st = WriteOutputFile(Path("rows.jsonl"), "{}\n");
  EXPECT_FALSE(st.ok());
  EXPECT_HAS(st.message(), "is being written by another zerosim process");
  const Result plan = Run(PlanCommand, {"plan", Path("p.sweep.toml"), "--jsonl", Path("rows.jsonl")});
  EXPECT_EQ(plan.rc, kExitFailed);
  EXPECT_HAS(plan.err, "zerosim plan: error: ");
  EXPECT_HAS(plan.err, "is being written by another zerosim process");
  const Result run = Run(RunCommand, {"run", Path("s.toml"), "--json", Path("rows.jsonl")});
  EXPECT_EQ(run.rc, kExitFailed);
  EXPECT_HAS(run.err, "is being written by another zerosim process");
  EXPECT_EQ(Read(Path("rows.jsonl")), "");  // neither wrote over the locked file
  std::fclose(other);
  EXPECT_EQ(Run(PlanCommand, {"plan", Path("p.sweep.toml"), "--jsonl", Path("rows.jsonl")}).rc, kExitOk);
  EXPECT_NE(Read(Path("rows.jsonl")), "");
}

TEST_F(OutputFileTest, WriteErrorsStartWithErrorAndGiveTheSystemsReason) {
  const Result plan =
      Run(PlanCommand, {"plan", Path("p.sweep.toml"), "--jsonl", Path("no/such/dir/rows.jsonl")});
  EXPECT_EQ(plan.rc, kExitFailed);
  EXPECT_HAS(plan.err, "zerosim plan: error: cannot open ");
  EXPECT_HAS(plan.err, "No such file or directory");
  const Result dir = Run(PlanCommand, {"plan", Path("p.sweep.toml"), "--jsonl", Path("")});
  EXPECT_EQ(dir.rc, kExitFailed);
  EXPECT_HAS(dir.err, "is a directory");
}

TEST_F(OutputFileTest, GlobalBatchZeroAndAnUnreachableGlobalBatchAreRefusedSayingSo) {
  for (int (*command)(int, char**) : {RunCommand, PlanCommand}) {
    const std::string file = command == RunCommand ? Path("s.toml") : Path("p.sweep.toml");
    const Result zero = Run(command, {"zerosim", file, "--search-batch", "--global-batch", "0"});
    EXPECT_EQ(zero.rc, kExitUsage);
    EXPECT_HAS(zero.err, "--global-batch needs --search-batch and a positive number of sequences (got 0)");
    // A prime number of sequences is no micro-batch x accumulation x data-parallel size of these clusters.
    const Result prime = Run(command, {"zerosim", file, "--search-batch", "--global-batch", "1000000007"});
    EXPECT_NE(prime.rc, kExitOk);
    EXPECT_HAS(prime.err, "error: ");
    EXPECT_HAS(prime.err, "1000000007");
  }
}

TEST_F(OutputFileTest, CompareRefusesAScenarioAgainstATopology) {
  const Result r = Run(CompareCommand, {"compare", Path("s.toml"), Path("t.toml")});
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_HAS(r.err, "is a scenario and ");
  EXPECT_HAS(r.err, "t.toml a topology");
  const Result base =
      Run(CompareCommand, {"compare", Path("s.toml"), Path("s.toml"), "--scenario", Path("s.toml")});
  EXPECT_EQ(base.rc, kExitUsage);
  EXPECT_HAS(base.err, "--scenario");
}

}  // namespace
}  // namespace zerosim::cli
