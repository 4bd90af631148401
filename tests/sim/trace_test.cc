// The Chrome/Perfetto trace: valid JSON, one complete event per op that takes time for each chosen rank,
// queues as threads, events inside the simulated iteration.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "model/builders/schedule_builder.h"
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
        EXPECT_LE((e["ts"].get<double>() + e["dur"].get<double>()) * 1e-6,
                  r->timing.iteration_s + 2e-9);  // microseconds printed to 3 decimals
      } else if (e["name"] == "thread_name") {
        threads.insert(e["args"]["name"].get<std::string>());
      }
    }
    EXPECT_EQ(pids, (std::set<int>{0, 9}));
    EXPECT_GT(complete, 100);
    for (const char* cat : {"compute", "collective", "quantization"})
      EXPECT_TRUE(categories.count(cat)) << cat;
    for (const char* q : {"compute", "nccl_hpz", "nccl_cross_node"}) EXPECT_TRUE(threads.count(q)) << q;
  }
}

// Perfetto's rules for complete events: on one thread, slices nest strictly (a slice that starts inside
// another ends inside it). Checked on whole nanoseconds, as the trace prints them. Also: every dependency
// arrow has both ends, no later than its target; counters never go negative; gathers name whose
// parameters they fetch.
TEST(Trace, SlicesNestPerThreadAndArrowsAndCountersAreWellFormed) {
  const model::ClusterSpec c = PaperCluster(1, 4, 8);
  model::ZeroConfig z = ZeroPlusPlus(8);
  z.stage3_prefetch_bucket_size = 1e6;
  const model::Schedule s = model::BuildSchedule(Gpt(2, 1024, 16), z, c);
  sim::SimOptions o;
  o.trace_ranks = {0};
  StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const nlohmann::json j = nlohmann::json::parse(sim::ChromeTraceJson({{"ZeRO++", &s, &*r}}));
  auto ns = [](const nlohmann::json& v) { return std::llround(v.get<double>() * 1000); };
  std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> slices;
  std::map<long long, long long> flow_start, flow_finish;
  int counters = 0, fetches = 0;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "X") {
      const long long t = ns(e["ts"]);
      slices[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back({t, t + ns(e["dur"])});
      if (e["name"].get<std::string>().rfind("fetch ", 0) == 0) ++fetches;
    } else if (ph == "s") {
      EXPECT_TRUE(flow_start.emplace(e["id"].get<long long>(), ns(e["ts"])).second);
    } else if (ph == "f") {
      EXPECT_EQ(e["bp"], "e");
      EXPECT_TRUE(flow_finish.emplace(e["id"].get<long long>(), ns(e["ts"])).second);
    } else if (ph == "C") {
      ++counters;
      for (const auto& [k, v] : e["args"].items()) EXPECT_GE(v.get<double>(), 0) << k;
    }
  }
  for (auto& [thread, list] : slices) {
    std::sort(list.begin(), list.end());
    std::vector<long long> open;  // ends of the enclosing slices
    for (const auto& [start, end] : list) {
      while (!open.empty() && open.back() <= start) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(end, open.back()) << "thread " << thread.second << ": a slice at " << start
                                    << " ns overlaps its neighbour without nesting";
      }
      open.push_back(end);
    }
  }
  EXPECT_FALSE(flow_start.empty());
  EXPECT_EQ(flow_start.size(), flow_finish.size());
  for (const auto& [id, t] : flow_start) {
    ASSERT_TRUE(flow_finish.count(id)) << id;
    EXPECT_LE(t, flow_finish[id]);
  }
  EXPECT_GT(counters, 10);
  EXPECT_GT(fetches, 0);
}

}  // namespace
}  // namespace zerosim::testing
