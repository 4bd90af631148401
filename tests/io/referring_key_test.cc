// Issue 20, item 28: an error in a file that another input names (a topology, its calibration, a model, a
// sweep's base scenario, a sweep axis value) names that file and also where it was named (file:line and
// key); an empty file name says so instead of ": cannot open file"; `compare` of two topology files
// without --scenario says that the embedded default scenario ran on them; a sweep over an RLHF base is refused
// at the base's [rlhf].
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/io/loaders.h"
#include "model/io/sweep.h"
#include "model/spec/feasibility.h"
#include "study/compare.h"
#include "study/sweep_grid.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

const char* kSweep = "name = \"x\"\nbase = \"s.toml\"\n[axes]\nnodes = [2]\n";

// The error of loading `load` (s.toml or x.sweep.toml) after replacing `from` by `to` in `file`.
std::string ErrorAfterEdit(const std::string& load, const std::string& file, const std::string& from,
                           const std::string& to) {
  std::map<std::string, std::string> files = testing::InputFiles();
  files["x.sweep.toml"] = kSweep;
  files[file] = Replace(files[file], from, to);
  const MemoryFileSource fs(files);
  const Status st = load == "s.toml" ? LoadScenario(fs, load).status() : study::LoadSweep(fs, load).status();
  EXPECT_FALSE(st.ok());
  return st.message();
}

TEST(ReferringKey, AMissingTopologyModelOrCalibrationNamesWhoNamedIt) {
  // s.toml: topology on line 2, model on line 3; t.toml: [gpu] calibration on line 11.
  EXPECT_HAS(ErrorAfterEdit("s.toml", "s.toml", "\"t.toml\"", "\"gone.toml\""),
             "s.toml:2:12: topology: gone.toml: no such file");
  EXPECT_HAS(ErrorAfterEdit("s.toml", "s.toml", "\"m.toml\"", "\"gone.toml\""),
             "s.toml:3:9: model: gone.toml: no such file");
  EXPECT_HAS(ErrorAfterEdit("s.toml", "t.toml", "\"c.json\"", "\"gone.json\""),
             "s.toml:2:12: topology: t.toml:12:15: [gpu] calibration: gone.json: no such file");
  // An error inside the named file: its own place, after the place that named it.
  EXPECT_HAS(ErrorAfterEdit("s.toml", "t.toml", "count = 2", "count = -1"), "s.toml:2:12: topology: t.toml:");
  // A variant's own model.
  EXPECT_HAS(ErrorAfterEdit("s.toml", "s.toml", "name = \"ZeRO-3\"", "name = \"ZeRO-3\"\nmodel = \"gone.toml\""),
             "[variant.0] model: gone.toml: no such file");
}

TEST(ReferringKey, ASweepsMissingBaseOrAxisFileNamesTheSweepsKey) {
  EXPECT_HAS(ErrorAfterEdit("x.sweep.toml", "x.sweep.toml", "\"s.toml\"", "\"gone.toml\""),
             "x.sweep.toml:2:8: base: gone.toml: no such file");
  EXPECT_HAS(ErrorAfterEdit("x.sweep.toml", "x.sweep.toml", "nodes = [2]", "model = [\"m.toml\", \"gone.toml\"]"),
             "x.sweep.toml:4:20: [axes] model: gone.toml: no such file");
  EXPECT_HAS(ErrorAfterEdit("x.sweep.toml", "x.sweep.toml", "nodes = [2]", "topology = [\"gone.toml\"]"),
             "x.sweep.toml:4:13: [axes] topology: gone.toml: no such file");
  // The base scenario's own references: the chain from the sweep.
  EXPECT_HAS(ErrorAfterEdit("x.sweep.toml", "s.toml", "\"t.toml\"", "\"gone.toml\""),
             "x.sweep.toml:2:8: base: s.toml:2:12: topology: gone.toml: no such file");
}

// Issue 39 (badinput n84, n85): a sweep or plan times training iterations; an RLHF base was timed as plain
// training, its [rlhf] dropped without a word. Refused at the base's [rlhf], from the sweep's base.
TEST(ReferringKey, ASweepOverAnRlhfBaseIsRefusedAtItsRlhf) {
  std::map<std::string, std::string> files = testing::InputFiles();
  files["x.sweep.toml"] = kSweep;
  files["s.toml"] += "\n[rlhf]\ncritic_model = \"m.toml\"\n";
  const MemoryFileSource fs(files);
  ASSERT_TRUE(LoadScenario(fs, "s.toml").ok()) << LoadScenario(fs, "s.toml").status().message();
  const Status st = study::LoadSweep(fs, "x.sweep.toml").status();
  ASSERT_FALSE(st.ok());
  EXPECT_HAS(st.message(), "s.toml:");
  EXPECT_HAS(st.message(), "[rlhf]: sweeps and plans time training iterations");
}

TEST(ReferringKey, AnEmptyFileNameSaysSo) {
  EXPECT_HAS(ErrorAfterEdit("s.toml", "s.toml", "\"m.toml\"", "\"\""),
             "s.toml:3:9: model: an empty string names no file");
  EXPECT_HAS(ErrorAfterEdit("s.toml", "s.toml", "\"t.toml\"", "\"\""),
             "s.toml:2:12: topology: an empty string names no file");
  EXPECT_HAS(ErrorAfterEdit("s.toml", "t.toml", "\"c.json\"", "\"\""),
             "t.toml:12:15: [gpu] calibration: an empty string names no file");
  EXPECT_HAS(ErrorAfterEdit("x.sweep.toml", "x.sweep.toml", "\"s.toml\"", "\"\""),
             "x.sweep.toml:2:8: base: an empty string names no file");
  EXPECT_HAS(ErrorAfterEdit("x.sweep.toml", "x.sweep.toml", "nodes = [2]", "model = [\"\"]"),
             "[axes] model: an empty string names no file");
}

TEST(ReferringKey, CompareOfTwoTopologiesWithoutAScenarioRunsTheDefaultsVariantsThatFit) {
  // The default scenario's hpZ 16 does not divide 8 GPUs per node: its ZeRO++ variant cannot run there, which is
  // that variant's infeasible result (issue 20 item 22), not an error that stops the comparison of ZeRO-3.
  const std::string topology = std::string(ZEROSIM_SOURCE_DIR) + "/topologies/dgx_h100_8x400g.toml";
  const StatusOr<Scenario> s = study::LoadComparedScenario(topology, "", {});
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->variants.size(), 2u);
  EXPECT_TRUE(ValidateVariant(*s, s->variants[0]).empty());
  EXPECT_HAS(model::DescribeProblems(ValidateVariant(*s, s->variants[1])), "hpZ partition size 16");
}

}  // namespace
}  // namespace zerosim::io
