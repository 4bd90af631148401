// One check on every path (model/spec/validate.h, issue 21 item 4): what the loader refuses as written, a
// what-if
// (`--set`), a sweep point and `plan` judge with the same rules on the configuration as it will run. Each
// test is a path that skipped a rule before Validate: perturbations judged only against the scenario's own
// cluster, `plan` without the calibration's compute rules, the RLHF phases' models never checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/spec/validate.h"
#include "study/plan_search.h"
#include "study/sweep_grid.h"
#include "test_inputs.h"
#include "test_util.h"

namespace zerosim::study {
namespace {

// The number of the line of `text` on which `fragment` first appears (1-based).
int LineOf(const std::string& text, const std::string& fragment) {
  const size_t at = text.find(fragment);
  EXPECT_NE(at, std::string::npos) << fragment;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

const std::string kSlowNode3 = "\n[[perturbations.slow_node]]\nnode = 3\nslowdown = 1.1\n";

TEST(ValidatePaths, APerturbationOfAMissingNodeIsAnErrorAtItsLine) {
  const std::string text =
      std::string(testing::kScenario) + "\n[[perturbations.slow_node]]\nnode = 4\nslowdown = 1.1\n";
  const StatusOr<io::Scenario> s =
      io::LoadScenario(io::MemoryFileSource(testing::InputFiles(text)), "s.toml");
  ASSERT_FALSE(s.ok());
  const std::string where = "s.toml:" + std::to_string(LineOf(text, "node = 4")) + ":";
  EXPECT_NE(s.status().message().find(where), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("node 4 does not exist: the cluster has nodes 0 to 3"),
            std::string::npos)
      << s.status().message();
}

TEST(ValidatePaths, FewerNodesThanAPerturbationNamesIsRefusedByTheWhatIf) {
  // Node 3 exists on the test cluster's 4 nodes: the scenario loads. With `--set nodes=2` it does not exist;
  // before Validate the perturbations were judged against the loaded cluster only, and reached the replay.
  const io::MemoryFileSource fs(testing::InputFiles(std::string(testing::kScenario) + kSlowNode3));
  const StatusOr<io::Scenario> base = io::LoadScenario(fs, "s.toml", {.check_configuration = false});
  ASSERT_TRUE(base.ok()) << base.status().message();
  ASSERT_TRUE(ApplySettings(fs, *base, {"nodes=4"}).ok());
  const StatusOr<io::Scenario> fewer = ApplySettings(fs, *base, {"nodes=2"});
  ASSERT_FALSE(fewer.ok());
  EXPECT_NE(fewer.status().message().find("perturbations.slow_node.0.node: node 3 does not exist"),
            std::string::npos)
      << fewer.status().message();
}

TEST(ValidatePaths, ASweepPointWithFewerNodesIsAnInfeasibleRowWithThePerturbationsReason) {
  std::map<std::string, std::string> files =
      testing::InputFiles(std::string(testing::kScenario) + kSlowNode3);
  files["p.sweep.toml"] = "name = \"p\"\nbase = \"s.toml\"\n[axes]\nnodes = [2, 4]\n";
  const io::MemoryFileSource fs(files);
  const StatusOr<io::SweepSpec> spec = LoadSweep(fs, "p.sweep.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(PointCount(*spec), 2u);
  const SweepPoint two = MakePoint(*spec, 0);
  const SweepPoint four = MakePoint(*spec, 1);
  ASSERT_EQ(two.cluster.nodes, 2);
  for (const std::string& why : two.variant_infeasible) {
    EXPECT_NE(why.find("perturbations.slow_node.0.node"), std::string::npos) << why;
  }
  for (const std::string& why : four.variant_infeasible) EXPECT_EQ(why, "");
}

TEST(ValidatePaths, PlanSkipsASettingTheCalibrationCannotTime) {
  // The test calibration has no FlashAttention v1 efficiencies: a flash_v1 variant cannot be timed (a zero
  // efficiency reached a division, and plan, which checked without the calibration, then failed on a
  // non-finite time). Plan now skips it and answers with the variant it can time.
  std::string text = testing::kScenario;
  text += "\n[[variant]]\nname = \"flash v1\"\nattention = \"flash_v1\"\n";
  std::map<std::string, std::string> files = testing::InputFiles(text);
  files["p.sweep.toml"] =
      "name = \"p\"\nbase = \"s.toml\"\ntrain_tokens = 1e9\n[axes]\nnodes = [2, 4]\n[cost]\ngpu_hour_usd = "
      "2\n";
  const io::MemoryFileSource fs(files);
  const StatusOr<io::SweepSpec> spec = LoadSweep(fs, "p.sweep.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  const io::Variant& flash = spec->base.variants.back();
  const std::vector<model::Problem> problems = io::ValidateVariant(spec->base, flash);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, model::ProblemKind::kCalibration);
  EXPECT_EQ(problems[0].key, "attention");
  const StatusOr<Plan> plan = PlanSweep(*spec, {});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->choices.size(), 2u);
  for (const PlanChoice& c : plan->choices) {
    EXPECT_EQ(c.best.name.find("flash v1"), std::string::npos) << c.best.name;
    EXPECT_TRUE(c.best.feasible) << c.best.name;
  }
}

TEST(ValidatePaths, FlashV1NeedsBothItsForwardAndItsBackwardEfficiency) {
  model::ModelSpec m = testing::Gpt18B();
  m.attention = model::AttentionImpl::kFlashV1;
  model::Calibration cal = testing::TestCalibration();
  const model::ZeroConfig z;
  const model::ClusterSpec c = testing::PaperCluster();
  const model::ParallelLayout l;
  EXPECT_TRUE(
      model::Validate({.model = m, .zero = z, .cluster = c, .calibration = cal, .layout = l}).empty());
  cal.compute.attention_v1_backward = 0;
  const std::vector<model::Problem> p =
      model::Validate({.model = m, .zero = z, .cluster = c, .calibration = cal, .layout = l});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(model::DescribeProblems(p),
            "attention: flash_v1: the calibration gives no gemm_efficiency.attention_v1_backward");
}

TEST(ValidatePaths, RlhfPhaseModelsAndLengthsAreValidated) {
  const model::ModelSpec actor = testing::Gpt(2, 256, 4);
  model::RlhfSpec r;
  r.critic = r.reward = r.reference = actor;
  EXPECT_TRUE(model::CheckRlhf(r, actor).empty());
  r.critic.heads = 3;  // does not divide the hidden size 256
  r.answer_len = actor.max_position_embeddings;
  const std::string why = model::DescribeProblems(model::CheckRlhf(r, actor));
  EXPECT_NE(why.find("rlhf.critic_model: heads: hidden size 256 is not divisible by 3 heads"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("rlhf.answer_len: prompt_len + answer_len"), std::string::npos) << why;
  // Part of the one check: a configuration with those phases is not evaluated.
  const model::ZeroConfig z;
  const model::ClusterSpec c = testing::PaperCluster();
  const model::Calibration cal = testing::TestCalibration();
  const model::ParallelLayout l;
  EXPECT_EQ(model::DescribeProblems(model::Validate(
                {.model = actor, .zero = z, .cluster = c, .calibration = cal, .layout = l, .rlhf = &r})),
            why);
}

}  // namespace
}  // namespace zerosim::study
