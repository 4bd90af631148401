// `[gpu] compute_capability` (docs/inputs.md): the GPU's architecture is an input of the topology. Stated, it
// decides what NCCL's tuner and the runtime read whatever the GPU is called; absent, the name of a GPU family
// ZeroSim ships gives it; a GPU of any other name without the key is refused at file, line and key.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/io/loaders.h"
#include "model/spec/cluster_spec.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

// The test topology (tests/test_inputs.h, GPU "G" at compute capability 7.0) with `from` replaced by `to`.
StatusOr<TopologyFile> LoadWith(const std::string& from, const std::string& to) {
  std::map<std::string, std::string> files = testing::InputFiles();
  std::string& text = files["t.toml"];
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return LoadTopology(MemoryFileSource(files), "t.toml");
}

constexpr const char* kStated = "compute_capability = 7.0\n";

TEST(GpuArchitectureLoader, AStatedCapabilityIsKeptAndMappedToNcclsFamily) {
  StatusOr<TopologyFile> ada = LoadWith(kStated, "compute_capability = 8.9\n");
  ASSERT_TRUE(ada.ok()) << ada.status().message();
  EXPECT_EQ(ada->cluster.gpu.compute_capability, 89);
  // NCCL's tuner counts every 8.x as Ampere (tuning.cc compCapIndex).
  EXPECT_EQ(model::GpuComputeCapability(ada->cluster), 80);

  StatusOr<TopologyFile> blackwell = LoadWith(kStated, "compute_capability = 10\n");
  ASSERT_TRUE(blackwell.ok()) << blackwell.status().message();
  EXPECT_EQ(model::GpuComputeCapability(blackwell->cluster), 100);
}

TEST(GpuArchitectureLoader, TheStatedArchitectureDecidesNotTheName) {
  // The same GPU "G" (no family in its name) stated Volta and Hopper, on a 500 GB/s NVLink port: NCCL's ring
  // cap follows the statement (Hopper: tuning.cc's 370 GB/s; Volta, uncapped there: 0.8 of the line rate).
  for (const char* cc : {"7.0", "9.0"}) {
    StatusOr<TopologyFile> t = LoadWith(kStated, std::string("compute_capability = ") + cc + "\n");
    ASSERT_TRUE(t.ok()) << t.status().message();
    model::ClusterSpec c = t->cluster;
    c.intra.bandwidth_Bps = 500e9;
    const bool hopper = std::string(cc) == "9.0";
    EXPECT_EQ(model::GpuComputeCapability(c), hopper ? 90 : 70) << cc;
    EXPECT_DOUBLE_EQ(model::NcclRingBusBandwidthCap(c), hopper ? 370e9 : 400e9) << cc;
  }
}

TEST(GpuArchitectureLoader, AKnownNameNeedsNoKey) {
  std::map<std::string, std::string> files = testing::InputFiles();
  std::string& text = files["t.toml"];
  text.replace(text.find("name = \"G\""), 10, "name = \"H100-SXM5-80GB\"");
  text.erase(text.find(kStated), std::string(kStated).size());
  StatusOr<TopologyFile> t = LoadTopology(MemoryFileSource(files), "t.toml");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->cluster.gpu.compute_capability, 90);  // filled from the name: the JSON echo shows it
  EXPECT_EQ(model::GpuComputeCapability(t->cluster), 90);
}

TEST(GpuArchitectureLoader, AnUnknownGpuWithoutTheKeyIsRefusedAtItsTable) {
  StatusOr<TopologyFile> t = LoadWith(kStated, "");
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("t.toml:"), std::string::npos) << m;
  EXPECT_NE(m.find("[gpu] compute_capability"), std::string::npos) << m;
  EXPECT_NE(m.find("GPU \"G\" is not one ZeroSim knows by name"), std::string::npos) << m;
}

TEST(GpuArchitectureLoader, AnImplausibleCapabilityIsRefused) {
  StatusOr<TopologyFile> t = LoadWith(kStated, "compute_capability = 2.0\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("t.toml:11"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("[gpu] compute_capability"), std::string::npos) << t.status().message();
  StatusOr<TopologyFile> s = LoadWith(kStated, "compute_capability = \"9.0\"\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("expected a number"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace zerosim::io
