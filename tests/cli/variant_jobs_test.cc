// The sim engine's variants simulated several at once (SimOptions::variant_jobs, `--jobs`): the report is
// the same bytes for any number of simultaneous simulations, variants stay in scenario order with the
// infeasible one in its place, and each simulated variant equals its own serial replay (EvaluateSimVariant).
#include <gtest/gtest.h>

#include <string>

#include "cli/options.h"
#include "model/io/embedded.h"
#include "model/io/report_json.h"
#include "study/scenario_runner.h"

namespace zerosim::study {
namespace {

// The embedded default (ZeRO-3, ZeRO++ on 384 V100) with a third, feasible variant and a fourth that cannot
// fit in HBM.
io::Scenario FourVariants() {
  StatusOr<io::Scenario> s =
      io::LoadScenario(io::MemoryFileSource(io::EmbeddedFiles()), io::kDefaultScenario);
  EXPECT_TRUE(s.ok()) << s.status().message();
  io::Scenario out = *s;
  io::Variant third = out.variants[0];
  third.name = "ZeRO-3 micro-batch 4";
  third.zero.train_micro_batch_size_per_gpu = 4;  // the default runs 2
  io::Variant oom = out.variants[1];
  oom.name = "ZeRO++ micro-batch 4096";
  oom.zero.train_micro_batch_size_per_gpu = 4096;
  out.variants.push_back(third);
  out.variants.push_back(oom);
  return out;
}

TEST(VariantJobs, TheReportIsTheSameBytesForAnyNumberOfSimultaneousSimulations) {
  const io::Scenario s = FourVariants();
  sim::SimOptions one;
  one.variant_jobs = 1;
  sim::SimOptions three = one;
  three.variant_jobs = 3;
  StatusOr<model::Report> serial = EvaluateScenario(s, Engine::kBoth, one);
  ASSERT_TRUE(serial.ok()) << serial.status().message();
  StatusOr<model::Report> parallel = EvaluateScenario(s, Engine::kBoth, three);
  ASSERT_TRUE(parallel.ok()) << parallel.status().message();
  EXPECT_EQ(io::ReportJsonText(*serial), io::ReportJsonText(*parallel));

  // Scenario order, analytic column first; the infeasible variant keeps its place in both engines.
  ASSERT_EQ(parallel->variants.size(), 8U);
  for (size_t i = 0; i < s.variants.size(); ++i) {
    EXPECT_EQ(parallel->variants[2 * i].name, s.variants[i].name);
    EXPECT_EQ(parallel->variants[2 * i].engine, "analytic");
    EXPECT_EQ(parallel->variants[2 * i + 1].name, s.variants[i].name);
    EXPECT_EQ(parallel->variants[2 * i + 1].engine, "sim");
  }
  EXPECT_TRUE(parallel->variants[5].feasible);
  EXPECT_FALSE(parallel->variants[7].feasible);
  EXPECT_FALSE(parallel->variants[7].infeasible_reason.empty());

  // Each simulated variant is its own replay: the one-variant path gives the same iteration.
  for (size_t i = 0; i < 3; ++i) {
    const io::Variant& v = s.variants[i];
    StatusOr<model::VariantReport> alone =
        sim::EvaluateSimVariant(v.name, {v.model, v.zero, s.cluster, s.calibration}, one);
    ASSERT_TRUE(alone.ok()) << alone.status().message();
    EXPECT_EQ(alone->iteration_time_s, parallel->variants[2 * i + 1].iteration_time_s) << v.name;
    EXPECT_EQ(alone->exposed_comm_s, parallel->variants[2 * i + 1].exposed_comm_s) << v.name;
  }
  // Micro-batch 4 is a longer iteration than the default micro-batch 2: the replays are not mixed up.
  EXPECT_GT(parallel->variants[5].iteration_time_s, parallel->variants[1].iteration_time_s);
}

TEST(VariantJobs, AFailedSimulationNamesItsVariant) {
  sim::SimOptions o;
  o.variant_jobs = 2;
  o.simgrid_cfg = {"network/no-such-key:1"};
  StatusOr<model::Report> r = EvaluateScenario(FourVariants(), Engine::kSim, o);
  ASSERT_FALSE(r.ok());
  // Whichever simulation fails first stops the others; its message names it and gives SimGrid's reason.
  EXPECT_EQ(r.status().message().rfind("variant 'ZeRO", 0), 0U) << r.status().message();
  EXPECT_NE(r.status().message().find("network/no-such-key"), std::string::npos) << r.status().message();
}

TEST(VariantJobs, TheOptionTakesTheHardwareThreadsByDefaultAndRefusesNonsense) {
  sim::SimOptions o;
  ASSERT_TRUE(cli::ResolveVariantJobs(0, &o).ok());
  EXPECT_GE(o.variant_jobs, 1);
  ASSERT_TRUE(cli::ResolveVariantJobs(5, &o).ok());
  EXPECT_EQ(o.variant_jobs, 5);
  for (int bad : {-1, 1025}) {
    const Status st = cli::ResolveVariantJobs(bad, &o);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("--jobs"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace zerosim::study
