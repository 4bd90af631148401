#include "model/cost/collective_time.h"

#include <gtest/gtest.h>

#include "model/cost/nccl_allreduce.h"
#include "model/placement/traffic.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

TEST(CollectiveTime, RingAllGatherEqualsTheClosedForm) {
  const ClusterSpec c = testing::PaperCluster(4);
  const int p = c.total_gpus(), k = c.nodes;
  const double bytes = 906e6;  // one 18B block in fp16
  const Traffic t = LoneCollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, p, bytes, c);
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
  const Traffic t = LoneCollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kHpz, 16, bytes, c);
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
  const Traffic t = LoneCollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, 8, bytes, c);
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
  const Traffic a = LoneCollectiveTraffic(CollectiveKind::kAllToAll, GroupKind::kLocal, 8, bytes, c);
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
  const Traffic t =
      LoneCollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, c.total_gpus(), 64, c);
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
  const Traffic t =
      LoneCollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, c.total_gpus(), 4096, c);
  EXPECT_STREQ(EstimateCollective(t, c).protocol, "LL");
}

TEST(CollectiveTime, CrossNodeAllToAllSharesTheNodesNics) {
  const ClusterSpec c = testing::PaperCluster(2);
  const double buffer = 64e6;  // per GPU
  const Traffic t =
      LoneCollectiveTraffic(CollectiveKind::kAllToAll, GroupKind::kCrossNode, c.nodes, buffer, c);
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
  const Traffic a2a =
      LoneCollectiveTraffic(CollectiveKind::kAllToAll, GroupKind::kCrossNode, c.nodes, bytes, c);
  // 4 nodes under a leaf send 12/15 of their traffic out of it, over uplinks of 4 NICs / 4.
  EXPECT_GT(EstimateCollective(a2a, c).seconds, 3 * EstimateCollective(a2a, flat).seconds);
  const Traffic ring =
      LoneCollectiveTraffic(CollectiveKind::kAllGather, GroupKind::kGlobal, c.total_gpus(), bytes, c);
  EXPECT_DOUBLE_EQ(EstimateCollective(ring, c).seconds, EstimateCollective(ring, flat).seconds);
}

// NVLS (NVLink SHARP) all-reduce on one node, the closed form of NCCL's single-node NVLS kernel: every GPU sends
// its buffer once into the multicast buffer and receives the reduced buffer once, plus its 1/n slice each way
// (bytes * (1 + 1/n) per direction), at 275 * 9/8 / 450 of the NVLink line rate on Hopper (the maintainer's
// 8-GPU figure, nccl-tests #212: algbw ~275 GB/s), after NCCL's 25 us NVLS latency (tuning.cc, 2.21 on).
TEST(CollectiveTime, NvlsAllReduceEqualsTheClosedForm) {
  ClusterSpec c = testing::PaperCluster(1, 1, 8);
  c.gpu.name = "H100-SXM-80GB";
  c.intra.bandwidth_Bps = 450e9;
  ASSERT_TRUE(NcclLibraryForRelease("2.27.7", &c.nccl));
  const double bytes = 16.0 * (1 << 30);
  const double nvls = 25e-6 + bytes * (1 + 1.0 / 8) / (275e9 * 9 / 8);
  EXPECT_NEAR(NvlsAllReduceSeconds(bytes, 8, c) / nvls, 1.0, 1e-12);
  // nccl-tests' busbw of it, 2 (n-1)/n * bytes / time, tends to the maintainer's ~480 GB/s.
  EXPECT_NEAR(1.75 * bytes / nvls / 1e9, 481.25, 1.0);
  // NCCL's tuner takes NVLS over the ring (370 GB/s busbw) for large buffers ...
  const Traffic ring = LoneCollectiveTraffic(CollectiveKind::kAllReduce, GroupKind::kGlobal, 8, bytes, c);
  const CollectiveTime big = EstimateAllReduce(ring, bytes, c);
  EXPECT_STREQ(big.algorithm, "NVLS");
  EXPECT_NEAR(big.seconds / nvls, 1.0, 1e-12);
  // ... but not when forced to the ring (NCCL_ALGO=Ring): 2 (n-1)/n of the buffer at 370 GB/s plus the ring's
  // Simple latency, 2.18+ tables: 8.4 us + 14 NVLink steps of 3.4 us.
  const CollectiveTime forced = EstimateAllReduce(ring, bytes, c, kNcclRing);
  EXPECT_NEAR(forced.seconds, 8.4e-6 + 14 * 3.4e-6 + 1.75 * bytes / 370e9, 1e-9);
  // Small buffers stay on the ring (LL): NVLS's 25 us latency alone exceeds it.
  const double small = 64 * 1024;
  const Traffic small_ring =
      LoneCollectiveTraffic(CollectiveKind::kAllReduce, GroupKind::kGlobal, 8, small, c);
  EXPECT_STRNE(EstimateAllReduce(small_ring, small, c).algorithm, "NVLS");
}

TEST(CollectiveTime, NvlsOnlyWhereNcclHasIt) {
  ClusterSpec c = testing::PaperCluster(1, 1, 8);
  c.intra.bandwidth_Bps = 450e9;
  ASSERT_TRUE(NcclLibraryForRelease("2.27.7", &c.nccl));
  c.gpu.name = "A100-SXM4-80GB";  // Ampere: no NVLS (search.cc: ccMin < 90)
  EXPECT_EQ(NvlsAllReduceSeconds(1e9, 8, c), 0.0);
  c.gpu.name = "H100-SXM-80GB";
  EXPECT_GT(NvlsAllReduceSeconds(1e9, 8, c), 0.0);
  EXPECT_EQ(NvlsAllReduceSeconds(1e9, 1, c), 0.0);
  EXPECT_EQ(NvlsAllReduceSeconds(1e9, 2, c), 0.0);  // transport/nvls.cc: no NVLS on two GPUs
  EXPECT_GT(NvlsAllReduceSeconds(1e9, 3, c), 0.0);
  ASSERT_TRUE(NcclLibraryForRelease("2.16.5", &c.nccl));  // before NVLS
  EXPECT_EQ(NvlsAllReduceSeconds(1e9, 8, c), 0.0);
  // Release latencies (tuning.cc): 2.17 none, 2.18-2.20 23 us, 2.21 on 25 us.
  ASSERT_TRUE(NcclLibraryForRelease("2.17.1", &c.nccl));
  EXPECT_EQ(NvlsLatencySeconds(c), 0.0);
  ASSERT_TRUE(NcclLibraryForRelease("2.19.3", &c.nccl));
  EXPECT_DOUBLE_EQ(NvlsLatencySeconds(c), 23e-6);
  ASSERT_TRUE(NcclLibraryForRelease("2.21.5", &c.nccl));
  EXPECT_DOUBLE_EQ(NvlsLatencySeconds(c), 25e-6);
  // Across nodes NCCL disables NVLS without CollNet.
  ClusterSpec two = testing::PaperCluster(1, 2, 8);
  two.gpu.name = "H100-SXM-80GB";
  ASSERT_TRUE(NcclLibraryForRelease("2.27.7", &two.nccl));
  EXPECT_EQ(NvlsAllReduceSeconds(1e9, 16, two), 0.0);
  // Blackwell: Hopper's efficiency times NCCL's nvlsEfficiency ratio 0.74 / 0.85 (tuning.cc, 2.28 on).
  c.gpu.name = "B200";
  EXPECT_NEAR(NvlsEfficiency(c), 275.0 * 9 / 8 / 450 * 0.74 / 0.85, 1e-12);
}

// With fewer GPUs NVLS's (1 + 1/n) wire bytes grow and the ring's 2 (n-1)/n shrink: at 4 GPUs the two tie
// (0.6875 * 450 * 4/5 = 247.5 GB/s of algbw for NVLS against 370 * 4/6 = 246.7 for the ring); at 3 GPUs
// 0.6875 * 450 * 3/4 = 232 against 370 * 3/4 = 277.5: the ring.
TEST(CollectiveTime, NvlsLosesToTheRingOnFewGpus) {
  ClusterSpec c = testing::PaperCluster(1, 1, 3);
  c.gpu.name = "H100-SXM-80GB";
  c.intra.bandwidth_Bps = 450e9;
  ASSERT_TRUE(NcclLibraryForRelease("2.27.7", &c.nccl));
  const double bytes = 8e9;
  const Traffic ring = LoneCollectiveTraffic(CollectiveKind::kAllReduce, GroupKind::kGlobal, 3, bytes, c);
  EXPECT_STRNE(EstimateAllReduce(ring, bytes, c).algorithm, "NVLS");
}

}  // namespace
}  // namespace zerosim::model
