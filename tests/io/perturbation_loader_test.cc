// The [perturbations] section of a scenario: valid tables load into model::Perturbations; bad indices, factors
// and kinds get a message naming file, line and key (test_inputs.h: 4 nodes x 8 GPUs, 2 NICs, one switch).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/io/loaders.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

StatusOr<Scenario> LoadWith(const std::string& perturbations) {
  return LoadScenario(
      MemoryFileSource(testing::InputFiles(std::string(testing::kScenario) + "\n" + perturbations)),
      "s.toml");
}

void ExpectError(const std::string& perturbations, const std::string& fragment) {
  StatusOr<Scenario> s = LoadWith(perturbations);
  ASSERT_FALSE(s.ok()) << perturbations;
  EXPECT_NE(s.status().message().find(fragment), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("s.toml:"), std::string::npos) << s.status().message();
}

TEST(PerturbationLoader, NoneByDefault) {
  StatusOr<Scenario> s = LoadWith("");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->perturbations.empty());
}

TEST(PerturbationLoader, EveryKindLoads) {
  StatusOr<Scenario> s = LoadWith(R"(
[[perturbations.slow_node]]
node = 3
slowdown = 1.1

[[perturbations.degraded_link]]
link = "nic"
node = 1
rail = 1
bandwidth_factor = 0.5

[[perturbations.background_flow]]
from_node = 0
to_node = 2
gpu = 7
rate = "25Gbps"
)");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const model::Perturbations& p = s->perturbations;
  ASSERT_EQ(p.slow_nodes.size(), 1u);
  EXPECT_EQ(p.slow_nodes[0].node, 3);
  EXPECT_DOUBLE_EQ(p.slow_nodes[0].slowdown, 1.1);
  ASSERT_EQ(p.links.size(), 1u);
  EXPECT_EQ(p.links[0].kind, model::DegradedLink::Kind::kNic);
  EXPECT_EQ(p.links[0].rail, 1);
  EXPECT_DOUBLE_EQ(p.links[0].bandwidth_factor, 0.5);
  ASSERT_EQ(p.background.size(), 1u);
  EXPECT_EQ(p.background[0].gpu, 7);
  EXPECT_DOUBLE_EQ(p.background[0].rate_Bps, 25e9 / 8);
}

TEST(PerturbationLoader, LeafUplinksNeedAFatTree) {
  const std::string up =
      "[[perturbations.degraded_link]]\nlink = \"leaf_uplink\"\nleaf = 1\nbandwidth_factor = 0.75\n";
  ExpectError(up, "the fabric has no leaf uplinks");
  // The same table on a fat tree of two leaves of two nodes.
  std::map<std::string, std::string> files = testing::InputFiles(std::string(testing::kScenario) + "\n" + up);
  std::string& t = files["t.toml"];
  const size_t at = t.find("kind = \"single_switch\"");
  ASSERT_NE(at, std::string::npos);
  t.replace(at, 22, "kind = \"fat_tree\"\nnodes_per_leaf = 2\noversubscription = 2");
  StatusOr<Scenario> s = LoadScenario(MemoryFileSource(files), "s.toml");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->perturbations.links.size(), 1u);
  EXPECT_EQ(s->perturbations.links[0].kind, model::DegradedLink::Kind::kUplink);
  EXPECT_EQ(s->perturbations.links[0].group, 1);
}

TEST(PerturbationLoader, BadInputNamesTheKey) {
  ExpectError("[[perturbations.slow_node]]\nnode = 4\nslowdown = 1.1\n", "node 4 does not exist");
  ExpectError("[[perturbations.slow_node]]\nnode = 1\n", "slowdown");
  ExpectError("[[perturbations.degraded_link]]\nlink = \"nic\"\nnode = 0\nrail = 2\nbandwidth_factor = 0.5\n",
              "NIC 2 does not exist");
  ExpectError("[[perturbations.degraded_link]]\nlink = \"nic\"\nnode = 0\nrail = 0\nbandwidth_factor = 1.5\n",
              "bandwidth_factor");
  ExpectError("[[perturbations.degraded_link]]\nlink = \"cable\"\nbandwidth_factor = 0.5\n", "unknown link");
  ExpectError("[[perturbations.background_flow]]\nfrom_node = 1\nto_node = 1\ngpu = 0\nrate = \"1Gbps\"\n",
              "two different nodes");
  ExpectError("[[perturbations.background_flow]]\nfrom_node = 1\nto_node = 2\ngpu = 0\nrate = \"1\"\n",
              "rate");
  ExpectError("[[perturbations.slow_nodes]]\nnode = 1\nslowdown = 1.1\n", "slow_node");
  ExpectError("[perturbations]\nslow_node = 3\n", "[[perturbations.slow_node]]");
}

}  // namespace
}  // namespace zerosim::io
