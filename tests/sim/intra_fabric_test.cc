// PCIe-only nodes and NVLink meshes (cluster_spec.h IntraFabric, model/spec/intra_fabric.h): a ring over the
// node runs at the ring's bottleneck link in the analytic engine, and the SimGrid replay, which builds the PCIe
// links, switch uplinks and socket link (or the mesh's pair links), gives the same time where nothing
// contends; where an intra-node all-to-all shares the socket link, the replay shows the contention the
// analytic engine's per-GPU port does not see.
#include <gtest/gtest.h>

#include "model/spec/intra_fabric.h"
#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::GroupKind;

// `nodes` nodes of 8 L40S-like GPUs behind 4 PCIe switches (2 GPUs and 1 NIC each) over 2 sockets: Gen4 x16
// GPU links (32 GB/s per direction), Gen5 x16 switch uplinks (64 GB/s), a socket link of `socket_Bps`, one
// 200 Gbps NIC per switch.
model::ClusterSpec Pcie(int nodes, double socket_Bps) {
  model::ClusterSpec c = PaperCluster(4, nodes, 8);
  c.gpu.name = "L40S";
  c.intra.fabric = model::IntraFabric::kPcie;
  c.intra.pcie = {.gpu_link_Bps = 32e9,
                  .gpus_per_switch = 2,
                  .switch_uplink_Bps = 64e9,
                  .sockets = 2,
                  .socket_link_Bps = socket_Bps,
                  .nics_per_switch = 1};
  c.intra.bandwidth_Bps = model::IntraRingLineBps(c);
  c.nic.bandwidth_Bps = 200e9 / 8;
  return c;
}

// One HGX A100 4-GPU board per node: each GPU pair joined by 4 NVLink3 links, 100 GB/s per direction.
model::ClusterSpec Mesh(int nodes) {
  model::ClusterSpec c = PaperCluster(4, nodes, 4);
  c.gpu.name = "A100-SXM4-80GB";
  c.intra.fabric = model::IntraFabric::kNvLinkMesh;
  c.intra.pair_Bps = 100e9;
  c.intra.bandwidth_Bps = model::IntraRingLineBps(c);
  c.nic.bandwidth_Bps = 200e9 / 8;
  return c;
}

// The replay of `op` alone agrees with the analytic time within 2% and puts the schedule's bytes on each tier.
void ExpectReplayAgreesAndKeepsTheBytes(const model::ClusterSpec& c, const model::Op& op) {
  const model::Schedule s = ScheduleOf(c, {op});
  StatusOr<sim::SimResult> r = sim::SimulateIsolated(s, c, TestCalibration(), sim::SimOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->timing.iteration_s / AnalyticTime(op, c), 1.0, 0.02);
  const model::TierVolumes expected = model::SumTraffic(s, c);
  EXPECT_NEAR(r->volumes.intra_total(), expected.intra_total(), 1e-9 * expected.intra_total());
  EXPECT_NEAR(r->volumes.cross_total(), expected.cross_total(), 1e-9 * expected.cross_total());
}

TEST(IntraFabric, PcieRingRunsAtItsBottleneckInBothEngines) {
  // A fast socket link: the GPU's Gen4 link is the ring's bottleneck, at NCCL's PCIe rating (0.75 x 32 GB/s).
  const model::ClusterSpec fast = Pcie(1, 128e9);
  EXPECT_DOUBLE_EQ(fast.intra.bandwidth_Bps, 32e9);
  const double bytes = 1e9;
  const model::Op op = CollectiveOp(fast, CollectiveKind::kAllGather, GroupKind::kLocal, bytes);
  const model::CollectiveTime t =
      model::EstimateScheduledCollective(op.coll, testing::PlacementFor(op.coll, fast));
  EXPECT_NEAR(t.transfer_s / (bytes * 7 / 8 / (0.75 * 32e9)), 1.0, 1e-9) << t.protocol;
  EXPECT_NEAR(SimulatedTime(ScheduleOf(fast, {op}), fast) / AnalyticTime(op, fast), 1.0, 0.02);

  // A slow socket link (16 GB/s) is the ring's bottleneck: the ring crosses it once each way.
  const model::ClusterSpec slow = Pcie(1, 16e9);
  EXPECT_DOUBLE_EQ(slow.intra.bandwidth_Bps, 16e9);
  const model::Op op_slow = CollectiveOp(slow, CollectiveKind::kReduceScatter, GroupKind::kLocal, bytes);
  EXPECT_NEAR(
      model::EstimateScheduledCollective(op_slow.coll, testing::PlacementFor(op_slow.coll, slow)).transfer_s /
          (bytes * 7 / 8 / (0.75 * 16e9)),
      1.0, 1e-9);
  EXPECT_NEAR(SimulatedTime(ScheduleOf(slow, {op_slow}), slow) / AnalyticTime(op_slow, slow), 1.0, 0.02);
}

TEST(IntraFabric, PcieAcrossNodesAgreesAndCountsTheSchedulesBytes) {
  // Two PCIe nodes, a global all-gather: the NICs sit on the GPUs' switches, the replay agrees with the
  // analytic time and puts the schedule's bytes on each tier (a GPU's PCIe link also carries its NIC's
  // traffic, which is not intra-node).
  const model::ClusterSpec c = Pcie(2, 128e9);
  ExpectReplayAgreesAndKeepsTheBytes(c, CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kGlobal, 1e9));
}

TEST(IntraFabric, PcieAllToAllSharesTheSocketLinkInTheReplay) {
  // qgZ's intra-node all-to-all over 8 GPUs: each GPU sends 1/8 of the buffer to each peer, 4 x 4 pairs cross
  // the socket link each way, 2 buffers per direction. With a 32 GB/s socket link that takes 2 B / 32 GB/s,
  // against the GPU link's 7/8 B / 32 GB/s the analytic engine's port sees: the replay is 16/7 as slow.
  const model::ClusterSpec c = Pcie(1, 32e9);
  const double bytes = 1e9;
  const model::Op op = CollectiveOp(c, CollectiveKind::kAllToAll, GroupKind::kLocal, bytes);
  const double analytic = AnalyticTime(op, c);
  const double simulated = SimulatedTime(ScheduleOf(c, {op}), c);
  const double latency =
      model::EstimateScheduledCollective(op.coll, testing::PlacementFor(op.coll, c)).latency_s;
  EXPECT_NEAR((analytic - latency) / (bytes * 7 / 8 / 32e9), 1.0, 1e-9);
  EXPECT_NEAR((simulated - latency) / (2 * bytes / 32e9), 1.0, 1e-6);
}

TEST(IntraFabric, MeshRingsUseBothDirectionsOfEveryPair) {
  // HGX A100 4-GPU: NCCL's two rings (one and its reverse) give 200 GB/s of line rate per GPU; the ring's bus
  // bandwidth is the protocol's 0.8 of it, below Ampere's 235 GB/s cap.
  const model::ClusterSpec c = Mesh(1);
  EXPECT_EQ(model::MeshRings(4), 2);
  EXPECT_DOUBLE_EQ(c.intra.bandwidth_Bps, 200e9);
  EXPECT_DOUBLE_EQ(model::NcclRingBusBandwidthCap(c), 160e9);
  const double bytes = 2e9;
  const model::Op op = CollectiveOp(c, CollectiveKind::kAllGather, GroupKind::kLocal, bytes);
  EXPECT_NEAR(model::EstimateScheduledCollective(op.coll, testing::PlacementFor(op.coll, c)).transfer_s /
                  (bytes * 3 / 4 / 160e9),
              1.0, 1e-9);
  const model::Schedule s = ScheduleOf(c, {op});
  EXPECT_NEAR(SimulatedTime(s, c) / AnalyticTime(op, c), 1.0, 0.02);

  // Without the cap the links govern: the replay's two half-rings each run at the pair's 100 GB/s.
  model::ClusterSpec uncapped = c;
  uncapped.nccl.ring_bus_bandwidth_cap_Bps = 1e15;
  EXPECT_NEAR(SimulatedTime(s, uncapped) / AnalyticTime(op, uncapped), 1.0, 0.02);
  EXPECT_NEAR(
      model::EstimateScheduledCollective(op.coll, testing::PlacementFor(op.coll, uncapped)).transfer_s /
          (bytes * 3 / 4 / 200e9),
      1.0, 1e-9);
}

TEST(IntraFabric, MeshAcrossNodesAgrees) {
  const model::ClusterSpec c = Mesh(2);
  ExpectReplayAgreesAndKeepsTheBytes(c, CollectiveOp(c, CollectiveKind::kReduceScatter, GroupKind::kGlobal, 1e9));
}

TEST(IntraFabric, NoNvlsOffNvSwitch) {
  // NVLS is the NVSwitch's multicast: a PCIe or mesh node of Hopper GPUs has none.
  model::ClusterSpec c = Pcie(1, 128e9);
  c.gpu.name = "H100-PCIe";
  EXPECT_EQ(model::NvlsEfficiency(c), 0.0);
  EXPECT_EQ(model::NvlsAllReduceSeconds(1e9, 8, c), 0.0);
}

}  // namespace
}  // namespace zerosim::testing
