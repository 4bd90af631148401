// Every shipped topology's HBM is what the device reports (nvidia-smi's total, MiB), not the marketing label
// ("141GB" read as 131 GiB, "80GiB" above an H100's 81,559 MiB): memory headroom is planned on it (issue 20).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "model/io/file_source.h"
#include "model/io/loaders.h"

namespace zerosim::io {
namespace {

TEST(ShippedTopologies, HbmIsWhatTheDeviceReports) {
  // nvidia-smi totals: H100 80GB, A100 80GB/40GB (modal-labs/modal-client#2797), B200 (NVIDIA/TensorRT-LLM#10278),
  // H200 (issue 20).
  const std::map<std::string, double> reported_MiB = {{"H100-SXM5-80GB", 81559},  {"A100-SXM4-80GB", 81920},
                                                      {"A100-SXM4-40GB", 40960},  {"H200-SXM-141GB", 143771},
                                                      {"B200-SXM-180GB", 183359}};
  int checked = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(ZEROSIM_SOURCE_DIR) + "/topologies")) {
    if (e.path().extension() != ".toml") continue;
    StatusOr<TopologyFile> t = LoadTopology(DiskFileSource(), e.path().string());
    ASSERT_TRUE(t.ok()) << t.status().message();
    const auto it = reported_MiB.find(t->cluster.gpu.name);
    if (it == reported_MiB.end()) continue;
    EXPECT_DOUBLE_EQ(t->cluster.gpu.hbm_bytes, it->second * 1048576.0) << e.path();
    ++checked;
  }
  EXPECT_GE(checked, 20);  // not vacuous: the DGX, cloud, calibration and published topologies
}

}  // namespace
}  // namespace zerosim::io
