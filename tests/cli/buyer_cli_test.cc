// The buyer's commands end to end (issue 38), through the command handlers as `zerosim` runs them: what they
// print, and their exit statuses.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_captured.h"
#include "scratch_dir.h"
#include "test_inputs.h"

namespace zerosim::cli {
namespace {

using Result = testing::CommandResult;

class BuyerCliTest : public testing::InputFilesTest {
 protected:
  BuyerCliTest() : InputFilesTest("buyer_cli") {}
  // Runs `command` with `args`, capturing stdout and stderr (run_captured.h).
  Result Run(int (*command)(int, char**), std::vector<std::string> args) {
    return testing::RunCaptured(command, std::move(args));
  }
  // The line of `text` that starts with `prefix` ("" when none).
  static std::string LineStarting(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(prefix, 0) == 0) return line;
    }
    return "";
  }
};

// Issue 36: `run --search-batch` printed the global batch as micro x accumulation x every GPU, t p times too
// large for a tensor- or pipeline-parallel variant; it is micro x accumulation x the data-parallel ranks.
TEST_F(BuyerCliTest, RunSearchBatchPrintsTheGlobalBatchOverTheDataParallelRanks) {
  Write("tp.toml", R"(name = "tp"
topology = "t.toml"
model = "m.toml"
[training]
seq_len = 512
tokens_per_gpu = 512
activation_checkpointing = true
[zero]
strategy = "zero1"
[[variant]]
name = "TP4"
tensor = 4
sequence_parallel = true
)");
  // 32 GPUs, t = 4: 8 data-parallel ranks.
  const Result r = Run(RunCommand, {"run", Path("tp.toml"), "--search-batch", "--global-batch", "64"});
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  std::istringstream row(LineStarting(r.out, "  TP4"));
  std::vector<std::string> cells;
  for (std::string cell; row >> cell;) cells.push_back(cell);
  // variant, largest fit, memory GiB, at +1 GiB, micro, accum., global
  ASSERT_GE(cells.size(), 7u) << r.out;
  EXPECT_EQ(std::stoll(cells[4]) * std::stoll(cells[5]) * 8, 64) << r.out;
  EXPECT_EQ(cells[6], "64") << r.out;
}

// Issue 38 item 3: a target no cluster of the sweep meets is answered (exit 0) with the size per candidate that
// would meet it, or the days at the largest size searched; a GPU without a price is bad input (exit 2).
TEST_F(BuyerCliTest, PlanAnswersATargetNobodyMeetsAndRefusesAnUnpricedGpu) {
  Write("p.sweep.toml", "name = \"p\"\nbase = \"s.toml\"\ntrain_tokens = 1e15\n[axes]\nnodes = [2, 4]\n"
                        "[cost]\ngpu_hour_usd = 2\n");
  Result r = Run(PlanCommand, {"plan", Path("p.sweep.toml"), "--target-days", "1"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("no cluster of the sweep trains within 1 days; per candidate, the smallest size"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("G x8: "), std::string::npos) << r.out;

  Write("prices.toml", "[gpu.\"H100-SXM5-80GB\"]\ngpu_hour_usd = 3\ngpu_hour_source = \"a quote, 2026\"\n");
  Write("q.sweep.toml", "name = \"q\"\nbase = \"s.toml\"\n[axes]\nnodes = [2]\n[cost]\nprices = \"prices.toml\"\n");
  r = Run(PlanCommand, {"plan", Path("q.sweep.toml")});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("GPU \"G\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("q.sweep.toml:"), std::string::npos) << r.err;
}

// Issue 38 item 5: `compare TOPO_A TOPO_B --scenario S` runs S on as many nodes as S's `nodes` (it ran on the
// topologies' whole clusters), prints each side's cluster size, and bytes in GB: a 2-node scenario on 4-node
// topologies is 16 GPUs, with S's own numbers on its own topology.
TEST_F(BuyerCliTest, CompareRunsTheScenarioOnItsOwnNodeCount) {
  std::string two_nodes = testing::kScenario;
  two_nodes.insert(two_nodes.find("model ="), "nodes = 2\n");
  Write("s2.toml", two_nodes);
  std::string other = testing::kTopology;
  other.replace(other.find("count = 2"), 9, "count = 4");
  other.replace(other.find("test cluster"), 12, "other cluster");
  Write("t2.toml", other);
  Result r = Run(CompareCommand, {"compare", Path("t.toml"), Path("t2.toml"), "--scenario", Path("s2.toml")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("cluster test cluster, 2 of its nodes: 2 nodes x 8 GPUs = 16 GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cluster other cluster, 2 of its nodes: 2 nodes x 8 GPUs = 16 GPUs"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("32 GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory_per_gpu_bytes                            GiB"), std::string::npos) << r.out;
  // A's numbers are S's: its tokens/s as `run` gives them.
  const Result rows =
      Run(CompareCommand, {"compare", Path("t.toml"), Path("t2.toml"), "--scenario", Path("s2.toml"), "--format", "jsonl"});
  const Result run = Run(RunCommand, {"run", Path("s2.toml"), "--format", "jsonl"});
  ASSERT_EQ(rows.rc, 0) << rows.err;
  ASSERT_EQ(run.rc, 0) << run.err;
  const std::string key = "\"tokens_per_s\":";
  const size_t at = run.out.find(key);
  ASSERT_NE(at, std::string::npos) << run.out;
  const std::string value = run.out.substr(at + key.size(), run.out.find_first_of(",}", at) - at - key.size());
  EXPECT_NE(rows.out.find("\"field\":\"tokens_per_s\",\"unit\":\"1/s\",\"a\":" + value + ","), std::string::npos)
      << value << "\n" << rows.out.substr(0, 2000);
}

// Issue 38 item 7, rough edges: the launcher can be set with --set (the same names as [runtime] launcher, with the
// hardware queues it implies); --set nodes takes the range the scenario's `nodes` key takes; the help texts name
// what the commands do today.
TEST_F(BuyerCliTest, SetTakesTheLauncherAndTheNodesRangeOfTheFileKey) {
  Result r = Run(RunCommand, {"run", Path("s.toml"), "--set", "launcher=megatron-deepspeed", "--format", "jsonl"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"launcher\":\"megatron-deepspeed\",\"launcher_origin\":\"stated\""), std::string::npos)
      << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("\"cuda_device_max_connections\":1,"), std::string::npos) << r.out.substr(0, 3000);
  r = Run(RunCommand, {"run", Path("s.toml"), "--set", "launcher=slurm"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown launcher \"slurm\""), std::string::npos) << r.err;

  // t.toml has 4 nodes: the file key refuses 8, and so does --set.
  std::string eight = testing::kScenario;
  eight.insert(eight.find("model ="), "nodes = 8\n");
  Write("s8.toml", eight);
  const Result file = Run(RunCommand, {"run", Path("s8.toml")});
  EXPECT_EQ(file.rc, 2);
  EXPECT_NE(file.err.find("8 nodes: more than the 4 nodes"), std::string::npos) << file.err;
  r = Run(RunCommand, {"run", Path("s.toml"), "--set", "nodes=8"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("8 nodes: more than the 4 nodes"), std::string::npos) << r.err;
}

TEST_F(BuyerCliTest, HelpTextsNameWhatTheCommandsDo) {
  Result r = Run(RunCommand, {"run", "--help"});
  EXPECT_NE(r.out.find("ZeRO-1/2/3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FSDP"), std::string::npos) << r.out;
  r = Run(PlanCommand, {"plan", "--help"});
  EXPECT_NE(r.out.find("--no-goodput"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--quiet"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("smallest size"), std::string::npos) << r.out;
  r = Run(FitCommand, {"fit", "--help"});
  EXPECT_NE(r.out.find("up to six"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("three"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace zerosim::cli
