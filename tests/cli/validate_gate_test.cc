// The regression gate (`zerosim validate --baseline`, study/validation.h CompareWithBaseline): a point of the
// baseline that the run lacks fails the gate when its scenario was part of the run (a renamed variant, a
// removed expectation) or when its scenario file is gone from a directory the run covers (a deleted
// scenario); a run of some of the baseline's files does not flag the points of the others.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_captured.h"
#include "scratch_dir.h"
#include "test_inputs.h"

namespace zerosim::cli {
namespace {

// Two expectations on the shared scenario, tolerances wide enough that the ungated run passes.
std::string WithExpectations(const std::string& name, const std::string& zeropp = "ZeRO++") {
  std::string s = testing::kScenario;
  s.replace(s.find("name = \"test\""), 13, "name = \"" + name + "\"");
  s.replace(s.find("name = \"ZeRO++\""), 15, "name = \"" + zeropp + "\"");
  return s + "\n[[expect]]\nvariant = \"ZeRO-3\"\nmetric = \"tflops_per_gpu\"\nvalue = 20\ntolerance = 10\n"
             "source = \"test\"\n"
             "\n[[expect]]\nvariant = \"" + zeropp + "\"\nbaseline = \"ZeRO-3\"\nmetric = \"speedup\"\nvalue = 1.2\n"
             "tolerance = 10\nsource = \"test\"\n";
}

class ValidateGateTest : public testing::InputFilesTest {
 protected:
  ValidateGateTest() : InputFilesTest("validate_gate") {}
  struct Result {
    int rc = 0;
    std::string out;  // stdout and stderr
  };
  Result Validate(std::vector<std::string> args) {
    args.insert(args.begin(), "validate");
    const testing::CommandResult c = testing::RunCaptured(ValidateCommand, std::move(args));
    return {c.rc, c.out + c.err};
  }
  void SetUp() override {
    InputFilesTest::SetUp();
    Write("a.toml", WithExpectations("a"));
    Write("b.toml", WithExpectations("b"));
    const Result r = Validate({Path("a.toml"), Path("b.toml"), "--write-baseline", Path("base.json")});
    ASSERT_EQ(r.rc, kExitOk) << r.out;
  }
};

TEST_F(ValidateGateTest, TheUnchangedRunPasses) {
  const Result r = Validate({Path("a.toml"), Path("b.toml"), "--baseline", Path("base.json")});
  EXPECT_EQ(r.rc, kExitOk) << r.out;
}

TEST_F(ValidateGateTest, ARenamedVariantOfAScenarioOfTheRunFailsNamingTheMissingPoint) {
  Write("a.toml", WithExpectations("a", "ZeRO++ renamed"));
  const Result r = Validate({Path("a.toml"), Path("b.toml"), "--baseline", Path("base.json")});
  EXPECT_EQ(r.rc, kExitFailed) << r.out;
  const std::string key = Path("a.toml") + "|ZeRO++|speedup|ZeRO-3";
  EXPECT_NE(r.out.find(key), std::string::npos) << r.out;
  // The renamed variant's own point is new: listed, not gated.
  EXPECT_NE(r.out.find("not in the baseline (not gated): " + Path("a.toml") + "|ZeRO++ renamed|speedup|ZeRO-3"),
            std::string::npos)
      << r.out;
  // b's points are all there.
  EXPECT_EQ(r.out.find(Path("b.toml") + "|ZeRO++|speedup"), std::string::npos) << r.out;
}

TEST_F(ValidateGateTest, ARunOfSomeOfTheBaselinesFilesDoesNotFlagTheOthers) {
  const Result r = Validate({Path("b.toml"), "--baseline", Path("base.json")});
  EXPECT_EQ(r.rc, kExitOk) << r.out;
}

TEST_F(ValidateGateTest, ADeletedScenarioOfADirectoryOfTheRunFails) {
  std::filesystem::remove(dir_ / "a.toml");
  const Result r = Validate({Path("b.toml"), "--baseline", Path("base.json")});
  EXPECT_EQ(r.rc, kExitFailed) << r.out;
  EXPECT_NE(r.out.find(Path("a.toml") + "|ZeRO-3|tflops_per_gpu|"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(Path("a.toml") + "|ZeRO++|speedup|ZeRO-3"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace zerosim::cli
