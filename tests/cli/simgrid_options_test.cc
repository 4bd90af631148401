// SimGrid options pass through (--cfg, --log): they reach SimGrid (network/crosstraffic:1, which ZeroSim
// turns off, puts 0.05 of every flow's rate on its reverse route: the iteration gets slower), are recorded in
// the report, are refused with the analytic engine and, when SimGrid refuses them, fail with SimGrid's
// reason. (network/model:LV08 changes nothing here: the replay's links have no latency, NCCL's latencies are
// delays, and the bandwidth-factor callback replaces LV08's 0.97.)
#include <gtest/gtest.h>

#include "cli/options.h"
#include "study/scenario_runner.h"
#include "model/io/embedded.h"

namespace zerosim::cli {
namespace {

io::Scenario Default() {
  StatusOr<io::Scenario> s =
      io::LoadScenario(io::MemoryFileSource(io::EmbeddedFiles()), io::kDefaultScenario);
  EXPECT_TRUE(s.ok()) << s.status().message();
  s.value().variants.resize(1);  // ZeRO-3 alone is enough
  return *s;
}

TEST(SimGridOptions, ReachSimGridAndTheReport) {
  const io::Scenario s = Default();
  sim::SimOptions plain;
  StatusOr<model::Report> base = study::EvaluateScenario(s, study::Engine::kSim, plain);
  ASSERT_TRUE(base.ok()) << base.status().message();
  EXPECT_TRUE(base->provenance.simgrid_options.empty());
  sim::SimOptions cross;
  cross.simgrid_cfg = {"network/crosstraffic:1"};
  cross.simgrid_log = {"root.thres:critical"};
  StatusOr<model::Report> r = study::EvaluateScenario(s, study::Engine::kSim, cross);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->variants[0].iteration_time_s, base->variants[0].iteration_time_s);
  EXPECT_EQ(r->provenance.simgrid_options,
            (std::vector<std::string>{"--cfg=network/crosstraffic:1", "--log=root.thres:critical"}));
  EXPECT_NE(r->provenance.network_model.find("--cfg=network/crosstraffic:1"), std::string::npos);
}

TEST(SimGridOptions, AKeySimGridDoesNotKnowIsAnError) {
  sim::SimOptions o;
  o.simgrid_cfg = {"network/no-such-key:1"};
  StatusOr<model::Report> r = study::EvaluateScenario(Default(), study::Engine::kSim, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--cfg network/no-such-key:1"), std::string::npos)
      << r.status().message();
}

TEST(SimGridOptions, RefusedWithTheAnalyticEngineAndMalformed) {
  study::Engine engine = study::Engine::kAnalytic;
  sim::SimOptions o;
  EngineArgs a;
  a.simgrid_cfg = {"network/model:LV08"};
  Status st = ResolveEngine(a, true, &engine, &o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--cfg applies to the sim engine only"), std::string::npos) << st.message();
  a.engine = "sim";
  a.simgrid_cfg = {"network/model"};
  st = ResolveEngine(a, true, &engine, &o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("want KEY:VALUE"), std::string::npos) << st.message();
  a.simgrid_cfg = {"network/model:CM02"};
  a.simgrid_log = {"root.thres:info"};
  ASSERT_TRUE(ResolveEngine(a, true, &engine, &o).ok());
  EXPECT_EQ(o.simgrid_cfg, a.simgrid_cfg);
  EXPECT_EQ(o.simgrid_log, a.simgrid_log);
}

}  // namespace
}  // namespace zerosim::cli
