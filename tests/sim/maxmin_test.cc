// Max-min sharing on the platform itself: k flows through one link each get 1/k of it; flows on disjoint
// links do not slow each other; the bandwidth factors of each tier apply.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sstream>

#include "sim/isolation.h"
#include "sim/simgrid_platform.h"
#include "sim_test_util.h"

namespace zerosim::sim {
namespace {

PlatformSpec TwoNodes(int nics = 1) {
  PlatformSpec p;
  p.nodes = 2;
  p.gpus_per_node = 8;
  p.nics_per_node = nics;
  p.gpu_flops = 1e12;
  p.nvlink_Bps = 100e9;
  p.nic_Bps = 10e9;
  return p;
}

// Runs `transfers` at time 0 (each in its own actor) and returns their arrival times.
std::vector<double> ArrivalTimes(const PlatformSpec& spec, const std::vector<Transfer>& transfers) {
  std::vector<std::vector<Transfer>> groups;
  for (const Transfer& t : transfers) groups.push_back({t});
  return testing::GroupArrivalTimes(spec, groups);
}

TEST(MaxMin, KFlowsThroughOneNicEachGetOneKth) {
  for (int k : {1, 2, 3, 5, 8}) {
    std::vector<Transfer> flows;
    for (int i = 0; i < k; ++i) flows.push_back({i, 8 + i, 1'000'000'000});  // node 0 -> node 1, one NIC each
    for (double t : ArrivalTimes(TwoNodes(), flows)) EXPECT_NEAR(t, k * 1e9 / 10e9, 1e-9) << k << " flows";
  }
}

TEST(MaxMin, IncastOnOneNvSwitchPortSharesIt) {
  std::vector<Transfer> flows;
  for (int i = 1; i <= 4; ++i) flows.push_back({i, 0, 1'000'000'000});
  for (double t : ArrivalTimes(TwoNodes(), flows)) EXPECT_NEAR(t, 4 * 1e9 / 100e9, 1e-9);
}

TEST(MaxMin, DisjointPathsDoNotInterfere) {
  // Four NICs (two GPUs per rail): one flow per rail runs at a full NIC each; ring neighbours inside a
  // node use distinct NVSwitch ports.
  const std::vector<Transfer> flows = {{0, 8, 1'000'000'000},  {2, 10, 1'000'000'000}, {4, 12, 1'000'000'000},
                                       {6, 14, 1'000'000'000}, {1, 3, 1'000'000'000},  {3, 5, 1'000'000'000}};
  const std::vector<double> t = ArrivalTimes(TwoNodes(4), flows);
  ASSERT_EQ(t.size(), 6u);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(t[static_cast<size_t>(i)], 0.1, 1e-9);
  EXPECT_NEAR(t[4], 0.01, 1e-9);
  EXPECT_NEAR(t[5], 0.01, 1e-9);
}

TEST(MaxMin, TierEfficienciesScaleThroughput) {
  PlatformSpec spec = TwoNodes();
  spec.intra_efficiency = 0.8;
  spec.inter_efficiency = 0.5;
  const std::vector<double> t = ArrivalTimes(spec, {{0, 8, 1'000'000'000}, {1, 2, 1'000'000'000}});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 1e9 / (0.5 * 10e9), 1e-9);
  EXPECT_NEAR(t[1], 1e9 / (0.8 * 100e9), 1e-9);
}

TEST(MaxMin, RoutesKeepTiersApart) {
  StatusOr<std::string> out = RunInChild([]() -> StatusOr<std::string> {
    StatusOr<std::unique_ptr<Platform>> p = Platform::Create(TwoNodes(2));
    if (!p.ok()) return p.status();
    std::string text;
    for (auto [src, dst] : {std::pair{0, 1}, std::pair{7, 8}, std::pair{0, 15}}) {
      for (int l : (*p)->Route(src, dst)) text += (*p)->links()[static_cast<size_t>(l)].name + " ";
      text += "| ";
    }
    return text;
  });
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(
      *out,
      "node0-nvl0_UP node0-nvl1_DOWN | node0-nic1_UP node1-nic0_DOWN | node0-nic0_UP node1-nic1_DOWN | ");
}

TEST(MaxMin, ThreeLevelRoutesCrossTheirOwnUplinksOnly) {
  // Pods of 2 leaves of 2 one-GPU nodes: a flow between pods crosses its own leaf's and pod's uplinks and
  // the destination's, from any leaf (up<level>-<group>), and a flow between leaves of a pod no pod uplink.
  StatusOr<std::string> out = RunInChild([]() -> StatusOr<std::string> {
    PlatformSpec spec = TwoNodes();
    spec.nodes = 8;
    spec.gpus_per_node = 1;
    spec.levels = {{2, 10e9}, {2, 10e9}};
    StatusOr<std::unique_ptr<Platform>> p = Platform::Create(spec);
    if (!p.ok()) return p.status();
    std::string text;
    for (auto [src, dst] : {std::pair{2, 6}, std::pair{0, 4}, std::pair{1, 3}}) {
      for (int l : (*p)->Route(src, dst)) text += (*p)->links()[static_cast<size_t>(l)].name + " ";
      text += "| ";
    }
    return text;
  });
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "node2-nic0_UP up0-1_UP up1-0_UP up1-1_DOWN up0-3_DOWN node6-nic0_DOWN | "
            "node0-nic0_UP up0-0_UP up1-0_UP up1-1_DOWN up0-2_DOWN node4-nic0_DOWN | "
            "node1-nic0_UP up0-0_UP up0-1_DOWN node3-nic0_DOWN | ");
}

TEST(MaxMin, OneEnginePerProcess) {
  StatusOr<std::string> out = RunInChild([]() -> StatusOr<std::string> {
    StatusOr<std::unique_ptr<Platform>> first = Platform::Create(TwoNodes());
    if (!first.ok()) return first.status();
    StatusOr<std::unique_ptr<Platform>> second = Platform::Create(TwoNodes());
    return second.ok() ? std::string("second engine created") : second.status().message();
  });
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->find("already created"), std::string::npos) << *out;
}

}  // namespace
}  // namespace zerosim::sim
