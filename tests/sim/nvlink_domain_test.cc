// A node that is an NVLink domain over several trays (GB200 NVL72, cluster_spec.h IntraNodeSpec::trays): a
// collective whose group lies inside the domain runs at the NVLink rate in both engines, and the same GPUs as
// separate one-tray nodes reach each other only over their NICs. The DES equals the closed form in both.
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace zerosim::testing {
namespace {

using model::CollectiveKind;
using model::GroupKind;

// `nodes` nodes of `gpus` GB200-like GPUs (NVLink5 900 GB/s per GPU and direction, one 400 Gbps NIC per GPU),
// each node an NVLink domain over `trays` trays.
model::ClusterSpec Blackwell(int nodes, int gpus, int trays) {
  model::ClusterSpec c = PaperCluster(gpus, nodes, gpus);
  c.gpu.name = "GB200";  // Blackwell: NCCL's ring runs at 0.8 of the NVLink line rate (NcclRingBusBandwidthCap)
  c.intra.bandwidth_Bps = 900e9;
  c.intra.trays = trays;
  c.nic.bandwidth_Bps = 400e9 / 8;
  return c;
}

TEST(NvlinkDomain, AGroupInsideTheDomainRunsAtNvlinkRateInBothEngines) {
  // 16 GPUs: one domain of 4 trays of 4 (2 such domains), against 4 one-tray nodes of 4.
  const model::ClusterSpec domain = Blackwell(2, 16, 4);
  const model::ClusterSpec trays = Blackwell(4, 4, 1);
  const double bytes = 1.5e9;
  const model::Op inside = CollectiveOp(domain, CollectiveKind::kAllGather, GroupKind::kLocal, bytes);
  const model::Op across = CollectiveOp(trays, CollectiveKind::kAllGather, GroupKind::kGlobal, bytes);
  ASSERT_EQ(inside.coll.group_size, 16);
  ASSERT_EQ(across.coll.group_size, 16);

  const model::CollectiveTime in =
      model::EstimateScheduledCollective(inside.coll, testing::PlacementFor(inside.coll, domain));
  const model::CollectiveTime out =
      model::EstimateScheduledCollective(across.coll, testing::PlacementFor(across.coll, trays));
  // Inside: each GPU sends 15/16 of the buffer at NCCL's ring bus bandwidth over NVLink5, 0.8 x 900 GB/s.
  EXPECT_NEAR(in.transfer_s / (bytes * 15 / 16 / (0.8 * 900e9)), 1.0, 1e-9) << in.protocol;
  // Across one-tray nodes each ring leaves a node once, through one of its 4 NICs (one ring a rail): the ring
  // bus bandwidth is the node's 4 x 50 GB/s, against 720 GB/s over NVLink inside the domain.
  EXPECT_NEAR(out.transfer_s / (bytes * 15 / 16 / (4 * 400e9 / 8)), 1.0, 1e-9) << out.protocol;
  EXPECT_GT(out.seconds, 3.5 * in.seconds);
  // The trays change nothing inside the domain: a one-tray 16-GPU NVSwitch node costs the same.
  const model::ClusterSpec board = Blackwell(2, 16, 1);
  EXPECT_DOUBLE_EQ(
      model::EstimateScheduledCollective(inside.coll, testing::PlacementFor(inside.coll, board)).seconds,
      in.seconds);

  // The SimGrid replay gives the same times.
  EXPECT_NEAR(SimulatedTime(ScheduleOf(domain, {inside}), domain) / AnalyticTime(inside, domain), 1.0, 1e-6);
  EXPECT_NEAR(SimulatedTime(ScheduleOf(trays, {across}), trays) / AnalyticTime(across, trays), 1.0, 1e-6);
}

TEST(NvlinkDomain, AcrossDomainsTheTraysNicsCarryTheTraffic) {
  // 2 domains of 8 trays of 4 GPUs, one NIC a GPU (4 a tray): the cross-domain group of one GPU per domain
  // leaves through that GPU's own NIC, as on one-tray nodes; the DES agrees.
  const model::ClusterSpec c = Blackwell(2, 32, 8);
  const model::Op op = CollectiveOp(c, CollectiveKind::kAllToAll, GroupKind::kCrossNode, 256e6);
  const model::ClusterSpec one_tray = Blackwell(2, 4, 1);
  const model::Op same = CollectiveOp(one_tray, CollectiveKind::kAllToAll, GroupKind::kCrossNode, 256e6);
  EXPECT_DOUBLE_EQ(AnalyticTime(op, c), AnalyticTime(same, one_tray));
  EXPECT_NEAR(SimulatedTime(ScheduleOf(c, {op}), c) / AnalyticTime(op, c), 1.0, 1e-6);
}

}  // namespace
}  // namespace zerosim::testing
