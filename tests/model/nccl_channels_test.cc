// NCCL's channel counts (model/cost/nccl_channels.h) against what NCCL's search, connect and enqueue code
// gives at the release tags ZeroSim carries, worked by hand in each test's comment.
#include "model/cost/nccl_channels.h"

#include <gtest/gtest.h>

#include "model/placement/placement.h"
#include "model/placement/traffic.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

using testing::PaperCluster;

CollectiveSpec Spec(CollectiveKind kind, GroupKind group, const ClusterSpec& c, double buffer_bytes,
                    int hpz = 16) {
  CollectiveSpec s;
  s.kind = kind;
  s.group = group;
  s.group_size = GroupSize(group, GridOf(c, hpz));
  s.buffer_bytes = buffer_bytes;
  return s;
}

TEST(NcclChannels, DgxTwoRunsTwoChannelsPerNicAndTwelveInsideTheNode) {
  // v2.8.4-1 on 16 V100 over NVSwitch (6 links x SM70_NVLINK_WIDTH 21 = 126 GB/s), 100 Gbps NICs (12.5 GB/s):
  // the ring search finds one channel per NIC at 12 GB/s (12.5 - 12 leaves no room for a second one);
  // connect.cc doubles them. Inside the node: 3 rings at 42 (126 = the GPU's total width), doubled at >= 25
  // to 6 x 21, and again by connect.cc: 12. (docs/fitted_parameters.md reads the same from the code.)
  for (int nics : {1, 2, 4, 8}) {
    const ClusterSpec c = PaperCluster(nics);
    EXPECT_EQ(NcclChannels(c), 2 * nics) << nics;
    EXPECT_DOUBLE_EQ(NcclSmShare(c), 2.0 * nics / 80) << nics;
    const NcclCommChannels local =
        CommChannels(c, CommShapeOf(GroupKind::kHpz, 16, PlacementOfGroup(c, GroupKind::kHpz, 16)));
    EXPECT_EQ(local.graph_channels, 6);
    EXPECT_DOUBLE_EQ(local.graph_speed_GBps, 21);
    EXPECT_EQ(local.channels, 12) << nics;
  }
}

TEST(NcclChannels, ChannelsFollowTheBandwidthZeroSimsLinksDeliver) {
  // The paper cluster's fitted efficiencies (intra 0.1479 of 150 GB/s = 22.2 GB/s, inter 0.7608 of 12.5 =
  // 9.5 GB/s): the global ring fits one channel per NIC at 9 GB/s up to 2 NICs, and at most 3 (at 7) through
  // 22.2 GB/s of NVLink, so 4 and 8 NICs run the same 6 CTAs; hpZ's group one channel at 21, doubled: 2.
  std::vector<int> counts;
  for (int nics : {1, 2, 4, 8}) {
    ClusterSpec c = PaperCluster(nics);
    c.nccl.intra_bandwidth_efficiency = 0.1479;
    c.nccl.inter_bandwidth_efficiency = 0.7608;
    counts.push_back(NcclChannels(c));
    EXPECT_EQ(
        CommChannels(c, CommShapeOf(GroupKind::kHpz, 16, PlacementOfGroup(c, GroupKind::kHpz, 16))).channels,
        2);
  }
  EXPECT_EQ(counts, (std::vector<int>{2, 4, 6, 6}));
}

TEST(NcclChannels, ChannelsStopAtTheBandwidthTheRingGets) {
  // Issue 39 item 1: 8 A100 at NCCL 2.8 whose ring NcclRingBusBandwidthCap holds at 235 GB/s. 450 GB/s of
  // NVLink (18 links x 21 = 378 GB/s to NCCL): 9 rings at 42, doubled at >= 25 to 16 x 21 (maxChannels);
  // 235 / 21 needs 12 of them, doubled by connect.cc: 24 (before: 32). 900 GB/s (756 GB/s, 16 rings at 42
  // already): 6 at 42 carry the 235, doubled: 12 (before: 32, so twice the NVLink bandwidth held twice the
  // SMs for a ring no faster, 7.5% slower on an HSDP step).
  ClusterSpec c = PaperCluster(1, 1, 8);
  c.gpu.name = "A100-SXM4-80GB";
  c.intra.bandwidth_Bps = 450e9;
  EXPECT_EQ(NcclChannels(c), 24);
  c.intra.bandwidth_Bps = 900e9;
  EXPECT_EQ(NcclChannels(c), 12);
  // A fat tree's leaves at 4:1 over 2 nodes each (2 x 8 x 12.5 GB/s / 4 = 50 GB/s of uplinks): NCCL's search
  // finds 8 rings at 12 GB/s (one per 100 Gbps NIC), a ring of all 4 nodes gets 50 GB/s, which 5 of them
  // carry; doubled: 10 (before: 8, doubled: 16).
  ClusterSpec f = PaperCluster(8, 4, 8);
  f.fabric.kind = FabricKind::kFatTree;
  f.fabric.nodes_per_leaf = 2;
  f.fabric.oversubscription = 4;
  const NcclCommChannels ring = CommChannels(f, {8, 4});
  EXPECT_DOUBLE_EQ(ring.graph_speed_GBps, 12);
  EXPECT_EQ(ring.graph_channels, 5);
  EXPECT_EQ(ring.channels, 10);
}

TEST(NcclChannels, HopperAtTwoTwentySeven) {
  // v2.27.7-1, 8 H100 (18 x SM90_NVLINK_BW 20.6 = 370.8, ZeroSim's ring cap 370), 8 x 400 Gbps (50 GB/s):
  // sm90SpeedArrayInter from 48: 7 channels at 48 (NVLink), 8 at 45 (360, the best); no duplication (ccMin >
  // 80, bwIntra < 50, more than 4 channels); connect.cc doubles to 16 (bwIntra 45 is not > 45); NVLS's 16.
  ClusterSpec c = PaperCluster(8, 4, 8);
  c.gpu = {"H100-SXM5-80GB", 989e12, 80e9, 3.35e12, 132};
  c.intra.bandwidth_Bps = 450e9;
  c.nic.bandwidth_Bps = 50e9;
  ASSERT_TRUE(NcclLibraryForRelease("2.27.7", &c.nccl));
  const NcclCommChannels global = CommChannels(c, {8, 4});
  EXPECT_EQ(global.graph_channels, 8);
  EXPECT_DOUBLE_EQ(global.graph_speed_GBps, 45);
  EXPECT_EQ(global.channels, 16);
  EXPECT_EQ(global.nvls_channels, 16);
  // One GPU per node (qgZ's cross-node group): its NIC alone, one channel at 48, duplicated (one channel is
  // not more than 4) to 2 x 24, doubled by connect.cc: 4; no NVLS for a single GPU.
  const NcclCommChannels cross =
      CommChannels(c, CommShapeOf(GroupKind::kCrossNode, 4, PlacementOfGroup(c, GroupKind::kCrossNode, 4)));
  EXPECT_EQ(cross.channels, 4);
  EXPECT_EQ(cross.nvls_channels, 0);
  // NCCL_MAX_NCHANNELS caps the count, but 2.25 on raises it again to the NVLS channels (connect.cc).
  c.nccl.max_channels = 4;
  EXPECT_EQ(CommChannels(c, {8, 4}).channels, 16);
  EXPECT_EQ(
      CommChannels(c, CommShapeOf(GroupKind::kCrossNode, 4, PlacementOfGroup(c, GroupKind::kCrossNode, 4)))
          .channels,
      4);
  c.nccl.max_channels = 2;
  EXPECT_EQ(
      CommChannels(c, CommShapeOf(GroupKind::kCrossNode, 4, PlacementOfGroup(c, GroupKind::kCrossNode, 4)))
          .channels,
      2);
}

TEST(NcclChannels, SmallCollectivesLaunchFewerChannels) {
  // enqueue.cc: one channel fewer while bytes < channels x threads x threshold. On 8 x 100 Gbps (16 channels)
  // Simple (512 threads, 64 bytes each) needs 32 KiB per channel; LL on a ring 8 x ranks bytes per thread.
  const ClusterSpec c = PaperCluster(8);
  const CollectiveSpec big = Spec(CollectiveKind::kAllGather, GroupKind::kGlobal, c, 1e9);
  CollectiveTime simple;
  simple.protocol = "Simple";
  EXPECT_EQ(CollectiveChannels(big, simple, testing::PlacementFor(big, c)), 16);
  const CollectiveSpec small = Spec(CollectiveKind::kAllGather, GroupKind::kGlobal, c, 100e3);
  EXPECT_EQ(CollectiveChannels(small, simple, testing::PlacementFor(small, c)),
            3);  // 100e3 / 32768 = 3.05: 3 x 32768 <= 1e5 < 4 x 32768
  CollectiveTime ll;
  ll.protocol = "LL";
  const CollectiveSpec mid = Spec(CollectiveKind::kAllGather, GroupKind::kGlobal, c, 10e6);
  EXPECT_EQ(CollectiveChannels(mid, ll, testing::PlacementFor(mid, c)),
            6);  // 512 x 8 x 384 = 1.57 MB per channel
  EXPECT_DOUBLE_EQ(CollectiveSmShare(mid, ll, testing::PlacementFor(mid, c)), 6.0 / 80);
  // All-to-all: grouped send/recv on the p2p channels, the communicator's rounded up to a power of two.
  const CollectiveSpec a2a = Spec(CollectiveKind::kAllToAll, GroupKind::kLocal, c, 1e3);
  EXPECT_EQ(CollectiveChannels(a2a, simple, testing::PlacementFor(a2a, c)), 16);
}

TEST(NcclChannels, TheChannelsSettingFixesEveryCount) {
  ClusterSpec c = PaperCluster(4);
  c.nccl.channels = 3;
  EXPECT_EQ(NcclChannels(c), 3);
  const NcclCommChannels local =
      CommChannels(c, CommShapeOf(GroupKind::kHpz, 16, PlacementOfGroup(c, GroupKind::kHpz, 16)));
  EXPECT_EQ(local.channels, 3);
  EXPECT_EQ(local.p2p_channels, 3);
}

}  // namespace
}  // namespace zerosim::model

namespace zerosim::model {
namespace {

// A communicator's NICs are its members' rails (placement.h), not the contiguous share: replica groups of
// shard groups of 2 ranks on 2 nodes of 8 GPUs with 4 NICs hold local ranks 0, 2, 4, 6 of each node, one on
// every NIC (rails of GPU pairs), so the ring search finds a channel on each of the 4 NICs (100 Gbps: one
// channel at 12 GB/s per NIC, DgxTwoRuns... above) where the share nic.count x 4 / 8 would give 2.
TEST(NcclChannels, StridedMembersUseEveryRailTheySitOn) {
  const ClusterSpec c = PaperCluster(4, 2, 8);
  const NcclCommShape replica = CommShapeOf(GroupKind::kReplica, c.total_gpus() / 2,
                                            PlacementOfGroup(c, GroupKind::kReplica, c.total_gpus() / 2));
  EXPECT_EQ(replica.gpus_per_node, 4);
  EXPECT_EQ(replica.nodes, 2);
  EXPECT_EQ(replica.rails, 4);
  EXPECT_EQ(CommChannels(c, replica).graph_channels, 4);
  NcclCommShape contiguous_share = replica;
  contiguous_share.rails = 0;  // what the share rule gives: 4 x 4 / 8 = 2 NICs
  EXPECT_EQ(CommChannels(c, contiguous_share).graph_channels, 2);
  // Consecutive members: the share is their rails (hpZ of 4 ranks: GPUs 0-3 on NICs 0 and 1).
  EXPECT_EQ(CommShapeOf(GroupKind::kHpz, 4, PlacementOfGroup(c, GroupKind::kHpz, 4)).rails, 0);
  EXPECT_EQ(CommShapeOf(GroupKind::kCrossNode, 2, PlacementOfGroup(c, GroupKind::kCrossNode, 2)).rails,
            1);  // one GPU per node, one NIC
}

// With tensor parallelism a TP rank's data-parallel communicator is strided by t (placement.h, tp-dp-pp order):
// on 4 nodes of 8 GPUs with 4 NICs and t = 2, the DP group's 16 ranks sit 4 a node on all 4 nodes (GPUs 0, 2,
// 4, 6), leaving through all 4 NICs (rails 0, 1, 2, 3), so NCCL's ring search finds a channel per NIC: 4. The
// t = 1 shape of a 16-rank group counted the contiguous share of the NICs (4 x 4 / 8 = 2 rails) and 2 channels,
// as StridedMembersUseEveryRailTheySitOn shows for replica groups.
TEST(NcclChannels, ATensorRanksDataParallelCommunicatorIsStridedByT) {
  const ClusterSpec c = PaperCluster(4, 4, 8);
  CollectiveSpec dp;
  dp.kind = CollectiveKind::kReduceScatter;
  dp.group = GroupKind::kGlobal;
  dp.group_size = 16;
  dp.buffer_bytes = 1e9;
  const Placement t2 = testing::PlacementFor(dp, c, /*tensor=*/2);
  const NcclCommShape shape = CommShapeOf(dp, t2);
  EXPECT_EQ(shape.gpus_per_node, 4);
  EXPECT_EQ(shape.nodes, 4);
  EXPECT_EQ(shape.rails, 4);
  EXPECT_EQ(CommChannels(c, shape).graph_channels, 4);
  const NcclCommShape flat = CommShapeOf(GroupKind::kGlobal, 16, PlacementOfGroup(c, GroupKind::kGlobal, 16));
  EXPECT_EQ(flat.rails, 0);
  EXPECT_EQ(CommChannels(c, flat).graph_channels, 2);
  // The tensor-parallel communicator itself: t = 2 consecutive GPUs of one node.
  CollectiveSpec tp = dp;
  tp.kind = CollectiveKind::kAllReduce;
  tp.group = GroupKind::kTensor;
  tp.group_size = 2;
  const NcclCommShape tensor = CommShapeOf(tp, t2);
  EXPECT_EQ(tensor.gpus_per_node, 2);
  EXPECT_EQ(tensor.nodes, 1);
}

}  // namespace
}  // namespace zerosim::model
