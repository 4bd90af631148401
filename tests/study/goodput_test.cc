// Goodput (issue 38 item 2; model/spec/goodput.h): the share of a run's time that trains once interruptions,
// restarts and checkpoints are paid, from the Llama 3 paper's published rates, applied by plan to days,
// GPU-hours and cost beside the ideal figures, and switchable off.
#include <gtest/gtest.h>

#include "model/io/loaders.h"
#include "model/spec/goodput.h"
#include "scratch_dir.h"
#include "study/plan_output.h"
#include "study/plan_search.h"
#include "study/sweep_grid.h"

namespace zerosim::study {
namespace {

const std::string kSource = ZEROSIM_SOURCE_DIR;

model::ModelSpec Llama(const std::string& file) {
  StatusOr<io::ModelFile> m = io::LoadModel(io::DiskFileSource(), kSource + "/scenarios/models/" + file);
  EXPECT_TRUE(m.ok()) << m.status().message();
  model::ModelSpec spec = m->model;
  spec.seq_len = 8192;
  return spec;
}

// The Llama 3 paper (sec. 3.3.4): 466 interruptions in 54 days on 16,384 H100 and "higher than 90% effective
// training time"; the defaults give 405B on that cluster just above 90%.
TEST(GoodputTest, TheDefaultsGiveLlama3sEffectiveTrainingTime) {
  const model::ModelSpec m = Llama("llama3.1_405b.toml");
  const model::GoodputResult r = model::EstimateGoodput(m, {}, 16384, {});
  EXPECT_NEAR(r.mean_time_between_interruptions_s / 3600, 54.0 * 24 / 466, 1e-9);
  // 16-bit weights and fp32 master weights and Adam moments: 14 bytes a parameter.
  EXPECT_NEAR(r.checkpoint_bytes / model::TotalParams(m), 14.0, 1e-12);
  EXPECT_GT(r.goodput, 0.90);
  EXPECT_LT(r.goodput, 0.93);
  // Young's interval: the checkpoint share equals the share of half an interval lost per interruption.
  EXPECT_NEAR(r.checkpoint_write_s / r.checkpoint_interval_s,
              r.checkpoint_interval_s / 2 / r.mean_time_between_interruptions_s, 1e-12);
}

TEST(GoodputTest, MoreGpusLoseMoreAndOffIsIdeal) {
  const model::ModelSpec m = Llama("llama3.1_70b.toml");
  const double small = model::EstimateGoodput(m, {}, 512, {}).goodput;
  const double large = model::EstimateGoodput(m, {}, 8192, {}).goodput;
  EXPECT_GT(small, large);
  EXPECT_LT(small, 1.0);
  model::GoodputOptions off;
  off.enabled = false;
  EXPECT_EQ(model::EstimateGoodput(m, {}, 8192, off).goodput, 1.0);
  model::GoodputOptions none;
  none.interruptions_per_gpu_hour = 0;
  EXPECT_EQ(model::EstimateGoodput(m, {}, 8192, none).goodput, 1.0);
  // A faster checkpoint write loses less; DeepSpeed's bf16 master weights and states halve the checkpoint.
  model::GoodputOptions fast;
  fast.checkpoint_write_Bps_per_gpu *= 10;
  EXPECT_GT(model::EstimateGoodput(m, {}, 8192, fast).goodput, large);
  model::Precision bf16;
  bf16.bf16_master_weights_and_grads = true;
  bf16.bf16_optimizer_states = true;
  EXPECT_NEAR(model::CheckpointBytes(m, bf16) / model::TotalParams(m), 8.0, 1e-12);
}

class GoodputPlanTest : public testing::ScratchDirTest {
 protected:
  GoodputPlanTest() : ScratchDirTest("goodput_plan") {}
  StatusOr<io::SweepSpec> Load(const std::string& goodput) {
    Write("s.toml", "name = \"g\"\ntopology = \"" + kSource + "/topologies/dgx_h100_8x400g.toml\"\nnodes = 2\n" +
                        "model = \"" + kSource + "/scenarios/models/llama3.1_8b.toml\"\n[training]\nseq_len = 4096\n" +
                        "tokens_per_gpu = 4096\nactivation_checkpointing = true\n[zero]\nstrategy = \"zero3\"\n" +
                        "[[variant]]\nname = \"ZeRO-3\"\n");
    Write("p.sweep.toml", "name = \"g\"\nbase = \"s.toml\"\ntrain_tokens = 1e12\n[axes]\nnodes = [4, 64]\n"
                          "[cost]\ngpu_hour_usd = 2\n" + goodput);
    return LoadSweep(io::DiskFileSource(), Path("p.sweep.toml"));
  }
};

TEST_F(GoodputPlanTest, DaysGpuHoursAndCostCarryTheGoodputBesideTheIdeal) {
  StatusOr<io::SweepSpec> s = Load("");
  ASSERT_TRUE(s.ok()) << s.status().message();
  StatusOr<Plan> plan = PlanSweep(*s, {});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->choices.size(), 2u);
  for (const PlanChoice& c : plan->choices) {
    EXPECT_LT(c.goodput.goodput, 1.0) << c.label;
    EXPECT_NEAR(c.cost.time_to_train_s * c.goodput.goodput, c.ideal_cost.time_to_train_s,
                1e-9 * c.ideal_cost.time_to_train_s);
    EXPECT_NEAR(c.cost.cost_to_train_usd * c.goodput.goodput, c.ideal_cost.cost_to_train_usd,
                1e-9 * c.ideal_cost.cost_to_train_usd);
    EXPECT_NEAR(c.gpu_hours, c.cost.time_to_train_s / 3600 * static_cast<double>(c.gpus), 1e-6 * c.gpu_hours);
    EXPECT_LE(c.time_to_train_s_low, c.cost.time_to_train_s);
    EXPECT_GE(c.time_to_train_s_high, c.cost.time_to_train_s);
  }
  // 512 GPUs are interrupted 16 times as often as 32.
  EXPECT_GT(plan->choices[0].goodput.goodput, plan->choices[1].goodput.goodput);
  const std::string table = FormatPlan(*s, *plan, {}, 20);
  EXPECT_NE(table.find("goodput"), std::string::npos) << table;
  EXPECT_NE(table.find("ideal"), std::string::npos) << table;

  // Off, from the command line or from the sweep: the ideal figures.
  PlanOptions off;
  off.goodput = false;
  StatusOr<Plan> ideal = PlanSweep(*s, off);
  ASSERT_TRUE(ideal.ok());
  StatusOr<io::SweepSpec> s_off = Load("[goodput]\nenabled = false\n");
  ASSERT_TRUE(s_off.ok()) << s_off.status().message();
  StatusOr<Plan> ideal_by_key = PlanSweep(*s_off, {});
  ASSERT_TRUE(ideal_by_key.ok());
  for (const Plan* p : {&ideal.value(), &ideal_by_key.value()}) {
    for (size_t i = 0; i < p->choices.size(); ++i) {
      EXPECT_EQ(p->choices[i].goodput.goodput, 1.0);
      EXPECT_DOUBLE_EQ(p->choices[i].cost.time_to_train_s, plan->choices[i].ideal_cost.time_to_train_s);
    }
  }
  EXPECT_NE(FormatPlan(*s, *ideal, off, 20).find("goodput off"), std::string::npos);
}

TEST_F(GoodputPlanTest, BadGoodputKeysAreErrorsNamingTheKey) {
  for (const std::string bad : {"interruptions_per_gpu_hour = -1e-5", "restart = \"-5min\"",
                                 "checkpoint_write_bandwidth = \"0GBps\"", "restarts = \"5min\""}) {
    StatusOr<io::SweepSpec> s = Load("[goodput]\n" + bad + "\n");
    ASSERT_FALSE(s.ok()) << bad;
    const std::string key = bad.substr(0, bad.find(' '));
    EXPECT_NE(s.status().message().find(key), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find("p.sweep.toml:"), std::string::npos) << s.status().message();
  }
  StatusOr<io::SweepSpec> s = Load("[goodput]\ninterruptions_per_gpu_hour = 1e-4\nrestart = \"30min\"\n"
                                   "checkpoint_write_bandwidth = \"1GBps\"\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_DOUBLE_EQ(s->goodput.interruptions_per_gpu_hour, 1e-4);
  EXPECT_DOUBLE_EQ(s->goodput.restart_s, 1800);
  EXPECT_DOUBLE_EQ(s->goodput.checkpoint_write_Bps_per_gpu, 1e9);
}

}  // namespace
}  // namespace zerosim::study
