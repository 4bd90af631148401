// The size that meets the target (issue 38 item 3; study/plan_target.h): when no cluster of a plan trains within
// the target, each candidate gets the smallest size that would, from the plan's own search at larger sizes, or
// the days at the largest size searched.
#include <gtest/gtest.h>

#include "scratch_dir.h"
#include "study/plan_search.h"
#include "study/plan_target.h"
#include "study/sweep_grid.h"

namespace zerosim::study {
namespace {

const std::string kSource = ZEROSIM_SOURCE_DIR;

class PlanTargetTest : public testing::ScratchDirTest {
 protected:
  PlanTargetTest() : ScratchDirTest("plan_target") {}
  // Llama-3.1-8B with ZeRO-3 on 2 DGX H100 or DGX B200 nodes, 1T tokens.
  io::SweepSpec Load() {
    Write("s.toml", "name = \"t\"\ntopology = \"" + kSource + "/topologies/dgx_h100_8x400g.toml\"\nnodes = 2\n" +
                        "model = \"" + kSource + "/scenarios/models/llama3.1_8b.toml\"\n[training]\nseq_len = 4096\n" +
                        "tokens_per_gpu = 4096\nactivation_checkpointing = true\n[zero]\nstrategy = \"zero3\"\n" +
                        "[[variant]]\nname = \"ZeRO-3\"\n");
    Write("p.sweep.toml", "name = \"t\"\nbase = \"s.toml\"\ntrain_tokens = 1e12\n[axes]\nnodes = [1, 2]\n"
                          "topology = [\"" + kSource + "/topologies/dgx_h100_8x400g.toml\", \"" + kSource +
                          "/topologies/dgx_b200_8x400g.toml\"]\n[cost]\nprices = \"" + kSource +
                          "/prices/gpu_prices.toml\"\n");
    StatusOr<io::SweepSpec> s = LoadSweep(io::DiskFileSource(), Path("p.sweep.toml"));
    EXPECT_TRUE(s.ok()) << s.status().message();
    return *s;
  }
};

TEST_F(PlanTargetTest, EachCandidateGetsTheSmallestSizeThatMeetsTheTarget) {
  const io::SweepSpec spec = Load();
  PlanOptions o;
  o.target_days = 10;
  StatusOr<Plan> plan = PlanSweep(spec, o);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->choices.size(), 4u);
  ASSERT_TRUE(plan->ranked.empty());  // 16 GPUs train 1T tokens of 8B in months, not 10 days
  StatusOr<std::vector<TargetAnswer>> answers = SizesForTarget(spec, *plan, o);
  ASSERT_TRUE(answers.ok()) << answers.status().message();
  ASSERT_EQ(answers->size(), 2u);  // H100 and B200
  for (const TargetAnswer& a : *answers) {
    ASSERT_TRUE(a.meets) << a.candidate;
    EXPECT_GT(a.choice.nodes, 2) << a.candidate;
    EXPECT_LE(a.choice.cost.time_to_train_s, 10 * 86400.0) << a.candidate;
    // Smallest within the search: the size below it searched misses, a quarter of the way from the last miss.
    ASSERT_GE(a.missing_nodes, 2) << a.candidate;
    EXPECT_LE(a.choice.nodes - a.missing_nodes, std::max(1, a.choice.nodes / 4)) << a.candidate;
    io::SweepSpec below = spec;
    for (io::Axis& axis : below.axes) {
      if (axis.key != "nodes") continue;
      axis.values.resize(1);
      axis.values[0].number = a.missing_nodes;
      axis.values[0].text = std::to_string(a.missing_nodes);
    }
    ASSERT_TRUE(ExpandSweep(&below).ok());
    StatusOr<Plan> smaller = PlanSweep(below, {});
    ASSERT_TRUE(smaller.ok()) << smaller.status().message();
    for (const PlanChoice& c : smaller->choices) {
      if (c.gpu == a.choice.gpu) {
        EXPECT_GT(c.cost.time_to_train_s, 10 * 86400.0) << c.label;
      }
    }
  }
  // B200 is faster per GPU: it needs fewer nodes.
  EXPECT_LT((*answers)[1].choice.nodes, (*answers)[0].choice.nodes);
  const std::string text = FormatTargetAnswers(*answers, 10);
  EXPECT_NE(text.find("B200-SXM-180GB x8 [dgx_b200_8x400g]: "), std::string::npos) << text;
  EXPECT_NE(text.find(" nodes ("), std::string::npos) << text;
}

TEST_F(PlanTargetTest, ATargetNoSizeMeetsGivesTheDaysAtTheLargestSize) {
  const io::SweepSpec spec = Load();
  PlanOptions o;
  o.target_days = 0.01;
  StatusOr<Plan> plan = PlanSweep(spec, o);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  StatusOr<std::vector<TargetAnswer>> answers = SizesForTarget(spec, *plan, o);
  ASSERT_TRUE(answers.ok()) << answers.status().message();
  for (const TargetAnswer& a : *answers) {
    EXPECT_FALSE(a.meets) << a.candidate;
    EXPECT_EQ(a.largest_nodes_searched, 128);  // 64 times the sweep's largest
    EXPECT_GT(a.choice.cost.time_to_train_s, 0.01 * 86400);
  }
  EXPECT_NE(FormatTargetAnswers(*answers, 0.01).find("no size up to 128 nodes meets it"), std::string::npos);
}

}  // namespace
}  // namespace zerosim::study
