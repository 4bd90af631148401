// The all-reduce bus bandwidth ZeroSim models on PCIe-only nodes lies near the published figures, and an NVLink
// mesh's ring follows NCCL's behaviour (model/spec/intra_fabric.h).
//
// Published (validation evidence, ../shared/validation/nccl_points.json): NVIDIA GTC'24 S62129 gives the
// intra-node all-reduce bus bandwidth of PCIe nodes as 24 GB/s on PCIe Gen4 and 48 GB/s on Gen5
// (gtc-allreduce-intra-pcie-gen4, gtc-allreduce-intra-pcie-gen5: peak values over a sweep, no message size).
// ZeroSim is checked at 1 GiB, where NCCL's latency terms are below 0.1% of the time.
#include <gtest/gtest.h>

#include "model/cost/collective_time.h"
#include "model/cost/nccl_allreduce.h"
#include "model/placement/traffic.h"
#include "model/spec/intra_fabric.h"

namespace zerosim::model {
namespace {

// One 2-8-5 PCIe server (topologies/l40s_pcie_8x_4x200g.toml, h100_pcie_8x_4x400g.toml): 8 GPUs, 4 switches
// of 2 GPUs and 1 NIC, 2 sockets joined by 4 UPI links; GPU links of `gpu_link_Bps`, Gen5 x16 uplinks.
ClusterSpec PcieServer(const char* gpu, double gpu_link_Bps) {
  ClusterSpec c;
  c.name = "pcie";
  c.nodes = 1;
  c.gpus_per_node = 8;
  c.gpu.name = gpu;
  c.gpu.sms = 142;
  c.intra.fabric = IntraFabric::kPcie;
  c.intra.pcie = {.gpu_link_Bps = gpu_link_Bps,
                  .gpus_per_switch = 2,
                  .switch_uplink_Bps = 64e9,
                  .sockets = 2,
                  .socket_link_Bps = 128e9,
                  .nics_per_switch = 1};
  c.intra.bandwidth_Bps = IntraRingLineBps(c);
  c.nic = {4, 400e9 / 8};
  NcclLibraryForRelease("2.27.5", &c.nccl);
  return c;
}

// nccl-tests' all-reduce bus bandwidth (2 (n-1)/n of the buffer over the time) of NCCL's tuned all-reduce over
// the node, GB/s; `algorithm` receives the tuner's pick.
double AllReduceBusGBps(const ClusterSpec& c, double bytes, std::string* algorithm) {
  const int n = c.total_gpus();
  const Traffic ring = LoneCollectiveTraffic(CollectiveKind::kAllReduce, GroupKind::kGlobal, n, bytes, c);
  const CollectiveTime t = EstimateAllReduce(ring, bytes, c, kNcclAllAlgorithms);
  *algorithm = std::string(t.algorithm) + "/" + t.protocol;
  return bytes * 2.0 * (n - 1) / n / t.seconds / 1e9;
}

TEST(IntraFabricNccl, PcieAllReduceBusBandwidthIsNearThePublishedFigures) {
  const double gib = 1 << 30;
  std::string algorithm;
  // PCIe Gen4 (L40S, 32 GB/s per direction): GTC'24 S62129, 24 GB/s.
  const double gen4 = AllReduceBusGBps(PcieServer("L40S", 32e9), gib, &algorithm);
  EXPECT_NEAR(gen4 / 24.0, 1.0, 0.05) << algorithm << " " << gen4;
  // PCIe Gen5 (H100 PCIe, 64 GB/s per direction): GTC'24 S62129, 48 GB/s.
  const double gen5 = AllReduceBusGBps(PcieServer("H100-PCIe-80GB", 64e9), gib, &algorithm);
  EXPECT_NEAR(gen5 / 48.0, 1.0, 0.05) << algorithm << " " << gen5;
  // No NVLS without an NVSwitch, even on Hopper.
  EXPECT_EQ(algorithm.find("NVLS"), std::string::npos) << algorithm;
}

TEST(IntraFabricNccl, ThePcieRingIsItsSlowestLink) {
  ClusterSpec c = PcieServer("L40S", 32e9);
  EXPECT_DOUBLE_EQ(IntraRingLineBps(c), 32e9);
  c.intra.pcie.switch_uplink_Bps = 16e9;  // a Gen4 x8 uplink
  EXPECT_DOUBLE_EQ(IntraRingLineBps(c), 16e9);
  c.intra.pcie.socket_link_Bps = 10e9;
  EXPECT_DOUBLE_EQ(IntraRingLineBps(c), 10e9);
  c.intra.pcie.sockets = 1;  // no socket link crossed
  EXPECT_DOUBLE_EQ(IntraRingLineBps(c), 16e9);
  c.intra.pcie.gpus_per_switch = 8;  // one switch: no uplink crossed
  EXPECT_DOUBLE_EQ(IntraRingLineBps(c), 32e9);
}

TEST(IntraFabricNccl, MeshRingsAreTheRingAndItsReverse) {
  // Two GPUs have one ring over their pair's two directions; 3 and 4 GPUs a ring and its reverse.
  EXPECT_EQ(MeshRings(2), 1);
  EXPECT_EQ(MeshRings(3), 2);
  EXPECT_EQ(MeshRings(4), 2);
  ClusterSpec c;
  c.nodes = 1;
  c.gpus_per_node = 4;
  c.gpu.name = "A100-SXM4-80GB";
  c.intra.fabric = IntraFabric::kNvLinkMesh;
  c.intra.pair_Bps = 100e9;
  c.intra.bandwidth_Bps = IntraRingLineBps(c);
  EXPECT_DOUBLE_EQ(c.intra.bandwidth_Bps, 200e9);
  // NCCL's protocol overhead below Ampere's cap; with fatter pairs the cap governs.
  EXPECT_DOUBLE_EQ(NcclRingBusBandwidthCap(c), 160e9);
  c.intra.pair_Bps = 200e9;
  c.intra.bandwidth_Bps = IntraRingLineBps(c);
  EXPECT_DOUBLE_EQ(NcclRingBusBandwidthCap(c), 235e9);
  // An NVSwitch node keeps its architecture cap (unchanged by the fabrics).
  c.intra.fabric = IntraFabric::kNvSwitch;
  c.intra.bandwidth_Bps = 300e9;
  EXPECT_DOUBLE_EQ(NcclRingBusBandwidthCap(c), 235e9);
}

}  // namespace
}  // namespace zerosim::model
