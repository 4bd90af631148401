// `[intra_node] fabric = "pcie"` and `"nvlink_mesh"` (docs/inputs.md): their keys load and derive the per-GPU
// ring bandwidth, the shipped topologies of each load, the report names the fabric, and bad input is refused
// with file, line and key.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/io/loaders.h"
#include "model/io/report_json.h"
#include "model/report/report.h"
#include "model/spec/intra_fabric.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

// The test topology's intra-node table (t.toml lines 14-16), and PCIe and mesh tables to put there.
constexpr const char* kNvSwitch = "fabric = \"nvswitch\"\nbandwidth = \"150GBps\"";
// Line 15 fabric, 16 gpu_link, 17 gpus_per_switch, 18 switch_uplink, 19 sockets, 20 socket_link.
constexpr const char* kPcie =
    "fabric = \"pcie\"\ngpu_link = \"32GBps\"\ngpus_per_switch = 2\nswitch_uplink = \"64GBps\"\nsockets = 2\n"
    "socket_link = \"128GBps\"";

// Loads s.toml after replacing `from` by `to` in `file` (each edit in order).
StatusOr<Scenario> LoadEdited(const std::vector<std::pair<std::string, std::string>>& edits,
                              const std::string& file = "t.toml") {
  std::map<std::string, std::string> files = testing::InputFiles();
  std::string& text = files[file];
  for (const auto& [from, to] : edits) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return LoadScenario(MemoryFileSource(files), "s.toml");
}

// The topology alone, edited as LoadEdited does (its scenario's hpZ variant needs 8 GPUs a node).
StatusOr<TopologyFile> LoadTopologyEdited(const std::vector<std::pair<std::string, std::string>>& edits) {
  std::map<std::string, std::string> files = testing::InputFiles();
  std::string& text = files["t.toml"];
  for (const auto& [from, to] : edits) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return LoadTopology(MemoryFileSource(files), "t.toml");
}

void ExpectRefused(const StatusOr<Scenario>& s, const std::vector<std::string>& expect) {
  ASSERT_FALSE(s.ok());
  for (const std::string& e : expect) {
    EXPECT_NE(s.status().message().find(e), std::string::npos) << "'" << e << "' not in: " << s.status().message();
  }
}

TEST(IntraFabricLoader, APcieNodeLoadsAndDerivesItsRingBandwidth) {
  // 8 GPUs on 4 switches over 2 sockets; the test topology's 2 NICs are refused (not one per switch), 4 load.
  StatusOr<Scenario> s = LoadEdited({{kNvSwitch, kPcie}, {"count = 2", "count = 4"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  const model::ClusterSpec& c = s->cluster;
  EXPECT_EQ(c.intra.fabric, model::IntraFabric::kPcie);
  EXPECT_EQ(model::PcieSwitches(c), 4);
  EXPECT_EQ(c.intra.pcie.nics_per_switch, 1);  // the default: the node's NICs spread over its switches
  EXPECT_DOUBLE_EQ(c.intra.bandwidth_Bps, 32e9);  // the Gen4 GPU link, slower than the uplinks and socket link
  EXPECT_DOUBLE_EQ(model::NcclRingBusBandwidthCap(c), 24e9);  // NCCL's PCIe rating of it

  // The report says which fabric and gives its links.
  model::Report r;
  r.cluster = c;
  const nlohmann::ordered_json j = ReportToJson(r);
  EXPECT_EQ(j["scenario"]["cluster"]["intra_node"]["fabric"], "pcie");
  EXPECT_EQ(j["scenario"]["cluster"]["intra_node"]["pcie"]["gpus_per_switch"], 2);
  EXPECT_DOUBLE_EQ(j["scenario"]["cluster"]["intra_node"]["bandwidth_Bps"].get<double>(), 32e9);

  // A slow socket link becomes the ring's bottleneck.
  StatusOr<Scenario> slow =
      LoadEdited({{kNvSwitch, kPcie}, {"count = 2", "count = 4"}, {"\"128GBps\"", "\"20GBps\""}});
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  EXPECT_DOUBLE_EQ(slow->cluster.intra.bandwidth_Bps, 20e9);
}

TEST(IntraFabricLoader, AnNvlinkMeshLoads) {
  StatusOr<TopologyFile> s = LoadTopologyEdited(
      {{"gpus_per_node = 8", "gpus_per_node = 4"}, {kNvSwitch, "fabric = \"nvlink_mesh\"\npair_bandwidth = \"100GBps\""}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->cluster.intra.fabric, model::IntraFabric::kNvLinkMesh);
  EXPECT_DOUBLE_EQ(s->cluster.intra.bandwidth_Bps, 200e9);  // two rings, each pair's 100 GB/s one way
  model::Report r;
  r.cluster = s->cluster;
  const nlohmann::ordered_json j = ReportToJson(r);
  EXPECT_EQ(j["scenario"]["cluster"]["intra_node"]["fabric"], "nvlink_mesh");
  EXPECT_DOUBLE_EQ(j["scenario"]["cluster"]["intra_node"]["pair_Bps"].get<double>(), 100e9);
}

TEST(IntraFabricLoader, TheShippedTopologiesLoad) {
  struct Shipped {
    const char* path;
    model::IntraFabric fabric;
    double ring_Bps;  // derived, per GPU and direction
    double bus_Bps;   // NCCL's ring bus bandwidth
  };
  for (const Shipped& t : {Shipped{"topologies/l40s_pcie_8x_4x200g.toml", model::IntraFabric::kPcie, 32e9, 24e9},
                           Shipped{"topologies/h100_pcie_8x_4x400g.toml", model::IntraFabric::kPcie, 64e9, 48e9},
                           Shipped{"topologies/hgx_a100_4gpu_4x200g.toml", model::IntraFabric::kNvLinkMesh, 200e9,
                                   160e9}}) {
    StatusOr<TopologyFile> f = LoadTopology(DiskFileSource(), std::string(ZEROSIM_SOURCE_DIR) + "/" + t.path);
    ASSERT_TRUE(f.ok()) << t.path << ": " << f.status().message();
    EXPECT_EQ(f->cluster.intra.fabric, t.fabric) << t.path;
    EXPECT_DOUBLE_EQ(f->cluster.intra.bandwidth_Bps, t.ring_Bps) << t.path;
    EXPECT_DOUBLE_EQ(model::NcclRingBusBandwidthCap(f->cluster), t.bus_Bps) << t.path;
  }
}

TEST(IntraFabricLoader, BadInputIsRefusedAtItsKey) {
  ExpectRefused(LoadEdited({{"fabric = \"nvswitch\"", "fabric = \"nvlink\""}}),
                {"t.toml:15", "[intra_node] fabric", "unknown fabric \"nvlink\"", "supported: nvswitch, pcie, nvlink_mesh"});
  // A key of another fabric.
  ExpectRefused(LoadEdited({{kNvSwitch, std::string(kNvSwitch) + "\ngpus_per_switch = 2"}}),
                {"t.toml:17", "[intra_node] gpus_per_switch", "belongs to fabric = \"pcie\""});
  ExpectRefused(LoadEdited({{kNvSwitch, std::string(kPcie) + "\npair_bandwidth = \"100GBps\""}, {"count = 2", "count = 4"}}),
                {"t.toml:21", "[intra_node] pair_bandwidth", "belongs to fabric = \"nvlink_mesh\""});
  ExpectRefused(LoadEdited({{kNvSwitch, std::string(kPcie) + "\ntrays = 2"}, {"count = 2", "count = 4"}}),
                {"t.toml:21", "[intra_node] trays", "belongs to fabric = \"nvswitch\""});
  // The bandwidth is derived on a PCIe node.
  ExpectRefused(LoadEdited({{kNvSwitch, std::string(kPcie) + "\nbandwidth = \"150GBps\""}, {"count = 2", "count = 4"}}),
                {"t.toml:21", "[intra_node] bandwidth", "derived from its links"});
  // Missing keys.
  ExpectRefused(LoadEdited({{kNvSwitch, "fabric = \"pcie\"\ngpus_per_switch = 2\nswitch_uplink = \"64GBps\""}}),
                {"missing key 'gpu_link' in [intra_node]"});
  ExpectRefused(LoadEdited({{kNvSwitch, "fabric = \"pcie\"\ngpu_link = \"32GBps\"\ngpus_per_switch = 2\n"
                                        "switch_uplink = \"64GBps\"\nsockets = 2"},
                            {"count = 2", "count = 4"}}),
                {"missing key 'socket_link' in [intra_node]"});
  // Structure.
  ExpectRefused(LoadEdited({{kNvSwitch, kPcie}, {"gpus_per_switch = 2", "gpus_per_switch = 3"}}),
                {"t.toml:17", "[intra_node] gpus_per_switch", "do not split the node's 8 GPUs"});
  ExpectRefused(LoadEdited({{kNvSwitch, kPcie}}),  // 2 NICs over 4 switches
                {"[intra_node] nics_per_switch", "is not the node's 2 NICs"});
  ExpectRefused(LoadEdited({{kNvSwitch, kPcie}, {"sockets = 2", "sockets = 3"}}), {"t.toml:19", "[intra_node] sockets"});
  ExpectRefused(LoadEdited({{kNvSwitch, "fabric = \"nvlink_mesh\"\npair_bandwidth = \"100GBps\""}}),
                {"gpus_per_node", "2 to 4 GPUs"});
}

}  // namespace
}  // namespace zerosim::io
