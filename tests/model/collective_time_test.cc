#include "model/collective_time.h"

#include <gtest/gtest.h>

#include "model/traffic.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

TEST(CollectiveTime, RingAllGatherEqualsTheClosedForm) {
  const ClusterSpec c = testing::PaperCluster(4);
  const int p = c.total_gpus(), k = c.nodes;
  const double bytes = 906e6;  // one 18B block in fp16
  const Traffic t = CollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, p, bytes, c);
  EXPECT_EQ(t.inter_steps, k - 1);
  EXPECT_EQ(t.intra_steps, p - k);
  // NCCL Simple: base + (P-K) intra steps + (K-1) network steps; then (P-1)/P of the buffer through the
  // slower of a GPU's NVSwitch port (150 GB/s) and the node's NICs (4 x 12.5 GB/s).
  const NcclProtocol& s = c.nccl.simple;
  const double expected = s.base_latency_s + (p - k) * s.intra_step_latency_s + (k - 1) * s.inter_step_latency_s +
                          (p - 1.0) / p * bytes / (4 * 12.5e9);
  const CollectiveTime got = EstimateCollective(t, c);
  EXPECT_STREQ(got.protocol, "Simple");
  EXPECT_NEAR(got.seconds / expected, 1.0, 1e-12);
}

TEST(CollectiveTime, IntraNodeRingIsLimitedByNvSwitch) {
  const ClusterSpec c = testing::PaperCluster(1);
  const double bytes = 1e9;
  const Traffic t = CollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kHpz, 16, bytes, c);
  EXPECT_EQ(t.cross_total_bytes, 0.0);
  EXPECT_DOUBLE_EQ(t.intra_total_bytes, c.total_gpus() * 15.0 / 16.0 * bytes);
  const NcclProtocol& s = c.nccl.simple;
  // A V100 ring: NVSwitch's 150 GB/s less NCCL's ~20% protocol overhead (nccl-tests #212).
  const double expected = s.base_latency_s + 15 * s.intra_step_latency_s + 15.0 / 16.0 * bytes / (0.8 * 150e9);
  EXPECT_NEAR(EstimateCollective(t, c).seconds / expected, 1.0, 1e-12);
}

TEST(CollectiveTime, RingsStayBelowNcclsArchitectureCap) {
  // One node of 8 A100s: NVSwitch gives 300 GB/s per GPU, NCCL's model caps Ampere rings at 235 GB/s of bus
  // bandwidth (tuning.cc); Hopper at 370 of 450; a V100, which NCCL's table does not cap, at the line rate less
  // NCCL's ~20% protocol overhead (nccl-tests #212): 0.8 x 300 GB/s.
  ClusterSpec c = testing::PaperCluster(1, 1, 8);
  c.intra.bandwidth_Bps = 300e9;
  const double bytes = 8e9;
  const Traffic t = CollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, 8, bytes, c);
  EXPECT_DOUBLE_EQ(t.ring_rank_bytes, 7.0 / 8.0 * bytes);
  const NcclProtocol& s = c.nccl.simple;
  const double latency = s.base_latency_s + 7 * s.intra_step_latency_s;
  EXPECT_NEAR(EstimateCollective(t, c).seconds, latency + 7.0 / 8.0 * bytes / (0.8 * 300e9), 1e-12);  // "V100"
  c.gpu.name = "A100-SXM4-80GB";
  EXPECT_NEAR(EstimateCollective(t, c).seconds, latency + 7.0 / 8.0 * bytes / 235e9, 1e-12);
  c.gpu.name = "H200-SXM-141GB";
  c.intra.bandwidth_Bps = 450e9;
  EXPECT_NEAR(EstimateCollective(t, c).seconds, latency + 7.0 / 8.0 * bytes / 370e9, 1e-12);
  // All-to-all is not a ring: no cap.
  const Traffic a = CollectiveTraffic(CollectiveKind::kAllToAll, GroupKind::kLocal, 8, bytes, c);
  EXPECT_EQ(a.ring_rank_bytes, 0.0);
}

TEST(CollectiveTime, ReleaseTablesAreNcclsOwn) {
  // tuning.cc at v2.12.12-1: the network step of a Simple ring is 28 us (9.6 in 2.8); from v2.18 the LL base is
  // 6.6 us, its NVLink step 0.6 us, the Simple network step 14 us, and LL's 1.8x across nodes is gone.
  CollectiveLibrary lib = DefaultNcclLibrary();
  EXPECT_DOUBLE_EQ(lib.simple.inter_step_latency_s, 9.6e-6);
  ASSERT_TRUE(NcclLibraryForRelease("2.12.10", &lib));
  EXPECT_DOUBLE_EQ(lib.simple.inter_step_latency_s, 28e-6);
  EXPECT_DOUBLE_EQ(lib.ll_multi_node_intra_factor, 1.8);
  EXPECT_EQ(lib.release, "2.12.10");
  ASSERT_TRUE(NcclLibraryForRelease("2.21", &lib));
  EXPECT_DOUBLE_EQ(lib.simple.inter_step_latency_s, 14e-6);
  EXPECT_DOUBLE_EQ(lib.ll.base_latency_s, 6.6e-6);
  EXPECT_DOUBLE_EQ(lib.ll.intra_step_latency_s, 0.6e-6);
  EXPECT_DOUBLE_EQ(lib.ll_multi_node_intra_factor, 1.0);
  ASSERT_TRUE(NcclLibraryForRelease("2.16", &lib));
  EXPECT_DOUBLE_EQ(lib.simple.inter_step_latency_s, 9.6e-6);
  for (const char* bad : {"3.1", "2.", "2.x", "2.5", "2.12a", ""}) EXPECT_FALSE(NcclLibraryForRelease(bad, &lib)) << bad;
}

TEST(CollectiveTime, LowLatencyProtocolPaysMoreInsideNodesWhenTheRingSpansNodes) {
  // NCCL <= 2.17: LL's intra-node step latency x1.8 when nNodes > 1. A tiny all-gather over 2 nodes of 16.
  ClusterSpec c = testing::PaperCluster(2);
  const Traffic t = CollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, c.total_gpus(), 64, c);
  const CollectiveTime got = EstimateCollective(t, c);
  ASSERT_STREQ(got.protocol, "LL");
  const NcclProtocol& ll = c.nccl.ll;
  EXPECT_NEAR(got.latency_s,
              ll.base_latency_s + t.intra_steps * 1.8 * ll.intra_step_latency_s + t.inter_steps * ll.inter_step_latency_s,
              1e-15);
  EXPECT_NEAR(got.params.intra_step_latency_s, 1.8 * ll.intra_step_latency_s, 1e-18);  // what the replay applies
}

TEST(CollectiveTime, SmallMessagesUseALowLatencyProtocol) {
  const ClusterSpec c = testing::PaperCluster(1);
  const Traffic t = CollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, c.total_gpus(), 4096, c);
  EXPECT_STREQ(EstimateCollective(t, c).protocol, "LL");
}

TEST(CollectiveTime, CrossNodeAllToAllSharesTheNodesNics) {
  const ClusterSpec c = testing::PaperCluster(2);
  const double buffer = 64e6;  // per GPU
  const Traffic t = CollectiveTraffic(CollectiveKind::kAllToAll, GroupKind::kCrossNode, c.nodes, buffer, c);
  const double out_per_gpu = buffer * (c.nodes - 1.0) / c.nodes;
  EXPECT_DOUBLE_EQ(t.cross_total_bytes, c.total_gpus() * out_per_gpu);
  EXPECT_DOUBLE_EQ(t.max_node_nic_bytes, c.gpus_per_node * out_per_gpu);
  EXPECT_EQ(t.inter_steps, 1);
}

TEST(CollectiveTime, OversubscribedLeafUplinksSlowAllToAllButNotRings) {
  ClusterSpec c = testing::PaperCluster(1, 16, 8);
  c.fabric.kind = FabricKind::kFatTree;
  c.fabric.nodes_per_leaf = 4;
  c.fabric.oversubscription = 4;
  const double bytes = 1e9;
  ClusterSpec flat = c;
  flat.fabric.oversubscription = 1;
  const Traffic a2a = CollectiveTraffic(CollectiveKind::kAllToAll, GroupKind::kCrossNode, c.nodes, bytes, c);
  // 4 nodes under a leaf send 12/15 of their traffic out of it, over uplinks of 4 NICs / 4.
  EXPECT_GT(EstimateCollective(a2a, c).seconds, 3 * EstimateCollective(a2a, flat).seconds);
  const Traffic ring = CollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, c.total_gpus(), bytes, c);
  EXPECT_DOUBLE_EQ(EstimateCollective(ring, c).seconds, EstimateCollective(ring, flat).seconds);
}

}  // namespace
}  // namespace zerosim::model
