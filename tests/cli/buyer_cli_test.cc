// The buyer's commands end to end (issue 38), through the command handlers as `zerosim` runs them: what they
// print, and their exit statuses.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "scratch_dir.h"
#include "test_inputs.h"

namespace zerosim::cli {
namespace {

struct Result {
  int rc = 0;
  std::string out;
  std::string err;
};

class BuyerCliTest : public testing::InputFilesTest {
 protected:
  BuyerCliTest() : InputFilesTest("buyer_cli") {}
  Result Run(int (*command)(int, char**), std::vector<std::string> args) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    Result r;
    r.rc = command(static_cast<int>(args.size()), argv.data());
    std::fflush(stdout);
    r.out = ::testing::internal::GetCapturedStdout();
    r.err = ::testing::internal::GetCapturedStderr();
    return r;
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

}  // namespace
}  // namespace zerosim::cli
