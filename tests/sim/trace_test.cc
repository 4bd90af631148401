// The Chrome/Perfetto trace: valid JSON, one complete event per op that takes time for each chosen rank,
// queues as threads, events inside the simulated iteration.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>

#include "model/schedule_builder.h"
#include "sim/chrome_trace.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

TEST(Trace, ChosenRanksOnSimulatedTime) {
  const model::ClusterSpec c = PaperCluster(1, 4, 8);
  model::ZeroConfig z = ZeroPlusPlus(8);
  z.stage3_max_reuse_distance = 0;  // release after use, so the backward pass gathers again (over hpZ)
  z.stage3_prefetch_bucket_size = 1e6;
  const model::Schedule s = model::BuildSchedule(Gpt(2, 1024, 16), z, c);
  for (sim::Reduction reduction : {sim::Reduction::kSymmetric, sim::Reduction::kFull}) {
    sim::SimOptions o;
    o.reduction = reduction;
    o.trace_ranks = {0, 9};
    StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const nlohmann::json j = nlohmann::json::parse(sim::ChromeTraceJson({{"ZeRO++", &s, &*r}}));
    std::set<int> pids;
    std::set<std::string> categories, threads;
    int complete = 0;
    for (const auto& e : j["traceEvents"]) {
      if (e["ph"] == "X") {
        ++complete;
        pids.insert(e["pid"].get<int>());
        categories.insert(e["cat"].get<std::string>());
        EXPECT_LE((e["ts"].get<double>() + e["dur"].get<double>()) * 1e-6, r->timing.iteration_s + 2e-9);  // microseconds printed to 3 decimals
      } else if (e["name"] == "thread_name") {
        threads.insert(e["args"]["name"].get<std::string>());
      }
    }
    EXPECT_EQ(pids, (std::set<int>{0, 9}));
    EXPECT_GT(complete, 100);
    for (const char* cat : {"compute", "collective", "quantization"}) EXPECT_TRUE(categories.count(cat)) << cat;
    for (const char* q : {"compute", "nccl_hpz", "nccl_cross_node"}) EXPECT_TRUE(threads.count(q)) << q;
  }
}

}  // namespace
}  // namespace zerosim::testing
