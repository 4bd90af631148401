#include "model/cost/nccl_allreduce.h"

#include <gtest/gtest.h>

#include <cstring>

#include "model/cost/placed_collectives.h"
#include "model/placement/traffic.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

// 4 nodes of 8 H100 (NVLink 450 GB/s per direction), 4 x 400 Gb/s NICs per node: a ring's bus bandwidth is
// the node's 200 GB/s of NICs (below NCCL's Hopper ring cap of 370 GB/s), NCCL 2.27 tables.
ClusterSpec FourHopperNodes() {
  ClusterSpec c = testing::PaperCluster(4, 4, 8);
  c.gpu.name = "H100-SXM-80GB";
  c.intra.bandwidth_Bps = 450e9;
  c.nic.bandwidth_Bps = 50e9;
  EXPECT_TRUE(NcclLibraryForRelease("2.27.7", &c.nccl));
  return c;
}

Traffic RingOf(double bytes, const ClusterSpec& c) {
  return LoneCollectiveTraffic(CollectiveKind::kAllReduce, GroupKind::kGlobal, c.total_gpus(), bytes, c);
}

// tuning.cc at v2.27.7-1, worked by hand for 1 MiB on 4 x 8 GPUs (ppn 8, floor(log2 4) = 2,
// treeCorrectionFactor index log2(1 MiB / 64) = 14: LL .5, LL128 .6, Simple .5; bus bandwidth B = 200 GB/s):
//   LL:     6.8 + 2 (7 x 0.6 + 2 x 5.0)  = 35.2 us, bus min(B x .92 / 3.8, llMaxBw 20.4) = 20.4, alg x .5 x
//   .5 LL128: 14.0 + 2 (7 x 1.25 + 2 x 8.5) = 65.5 us, bus B x .92 x 120/128 = 172.5, alg x .5 x .6 = 51.75
//   GB/s Simple: 8.4 + 2 (7 x 4.0 + 2 x 14)  = 120.4 us, bus B x .92 = 184, alg x .5 x .5 = 46 GB/s
TEST(NcclAllReduce, TreeEqualsTuningCcWorkedByHand) {
  const ClusterSpec c = FourHopperNodes();
  const double bytes = 1 << 20;
  const CollectiveTime tree = TreeAllReduce(RingOf(bytes, c), bytes, c);
  EXPECT_STREQ(tree.algorithm, "Tree");
  EXPECT_STREQ(tree.protocol, "LL128");
  EXPECT_NEAR(tree.latency_s, 65.5e-6, 1e-12);
  EXPECT_NEAR(tree.seconds, 65.5e-6 + bytes / 51.75e9, 1e-11);
  // The other two protocols are slower: LL 35.2 us + bytes / 5.1 GB/s, Simple 120.4 us + bytes / 46 GB/s.
  EXPECT_GT(35.2e-6 + bytes / 5.1e9, tree.seconds);
  EXPECT_GT(120.4e-6 + bytes / 46e9, tree.seconds);
}

// The ring, same cluster, 2.27: 62 steps of which 6 cross nodes. Simple: (8.4 + 56 x 3.4 + 6 x 14) us times
// the plateau factor 1.4 (Ampere and later, 2.18 on); LL: the intra-node steps at least NCCL's 1 us network
// overhead (2.18 on), bus bandwidth 1/2 (2.21 on) capped at llMaxBw 20.4 GB/s across 4+ nodes.
TEST(NcclAllReduce, RingCarriesThePlateauNetOverheadAndLlCap) {
  const ClusterSpec c = FourHopperNodes();
  const double big = 1 << 30;
  const CollectiveTime ring = RingAllReduce(RingOf(big, c), big, c);
  EXPECT_STREQ(ring.protocol, "Simple");
  EXPECT_NEAR(ring.latency_s, 1.4 * (8.4 + 56 * 3.4 + 6 * 14) * 1e-6, 1e-12);
  EXPECT_NEAR(ring.seconds, ring.latency_s + 2.0 * 31 / 32 * big / 200e9, 1e-9);
  // Where the ring keeps LL (tiny buffers): 6.6 + 56 x max(0.6, 1.0) + 6 x 2.7 us.
  const double tiny = 64;
  const CollectiveTime ll = RingAllReduce(RingOf(tiny, c), tiny, c);
  EXPECT_STREQ(ll.protocol, "LL");
  EXPECT_NEAR(ll.latency_s, (6.6 + 56 * 1.0 + 6 * 2.7) * 1e-6, 1e-12);
  EXPECT_NEAR(ll.transfer_s, 2.0 * 31 / 32 * tiny / 20.4e9, 1e-15);
  // NCCL 2.8: no overhead floor, plateau 1.9 (nBytes >= nRanks / 16 x 64 KiB), network Simple step 9.6 us.
  ClusterSpec old = c;
  ASSERT_TRUE(NcclLibraryForRelease("2.8.4", &old.nccl));
  const CollectiveTime ring28 = RingAllReduce(RingOf(big, old), big, old);
  EXPECT_NEAR(ring28.latency_s, 1.9 * (8.4 + 56 * 3.4 + 6 * 9.6) * 1e-6, 1e-12);
}

// NCCL's tuner takes the tree below a crossover and the ring above: at 1 MiB the tree's LL128 (65.5 us +
// 1 MiB / 51.75 GB/s = 85.8 us) beats NVLSTree (25 + 2 x 2 x 14 = 81 us + 2 MiB over 200 GB/s x 5/6 = 93.6
// us), the ring's LL128 (144.4 + 11.0 us) and Simple; at 1 GiB the ring's Simple (10.8 ms) beats the tree's
// Simple (index 24 is past the correction table: 1 GiB / 92 GB/s = 11.7 ms) and NVLSTree (12.9 ms).
TEST(NcclAllReduce, TunerTakesTheTreeBelowTheCrossoverAndTheRingAbove) {
  const ClusterSpec c = FourHopperNodes();
  const double small = 1 << 20, big = 1 << 30;
  const CollectiveTime s = EstimateAllReduce(RingOf(small, c), small, c);
  EXPECT_STREQ(s.algorithm, "Tree");
  EXPECT_STREQ(s.protocol, "LL128");
  EXPECT_NEAR(s.seconds, 65.5e-6 + small / 51.75e9, 1e-11);
  const CollectiveTime nvls_tree = NvlsTreeAllReduce(small, c);
  EXPECT_NEAR(nvls_tree.seconds, 81e-6 + 2 * small / (200e9 * 5 / 6), 1e-11);
  EXPECT_GT(nvls_tree.seconds, s.seconds);
  const CollectiveTime b = EstimateAllReduce(RingOf(big, c), big, c);
  EXPECT_STREQ(b.algorithm, "Ring");
  EXPECT_STREQ(b.protocol, "Simple");
  EXPECT_LT(b.seconds, 120.4e-6 + big / 92e9);
  // NCCL_ALGO=Ring keeps the ring at any size.
  EXPECT_STREQ(EstimateAllReduce(RingOf(small, c), small, c, kNcclRing).algorithm, "Ring");
}

TEST(NcclAllReduce, TreeCorrectionFactorIsNcclsTable) {
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(0, 64, 27), 1.0);  // index 0
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(2, 64, 27), 0.9);
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(0, 1 << 20, 27), 0.5);  // index 14
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(1, 1 << 19, 27), 0.6);  // index 13: 0.6 from 2.10 ...
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(1, 1 << 19, 8), 0.5);   // ... 0.5 in 2.8-2.9
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(1, 1 << 28, 8), 0.92);  // index 22
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(1, 1 << 28, 27), 1.0);
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(2, 1 << 29, 27), 1.0);  // past the table
  EXPECT_DOUBLE_EQ(TreeCorrectionFactor(2, 32, 27), 1.0);       // below it
}

// NVLSTree: across nodes only, from 2.18, on NVLS GPUs; on two nodes the NICs carry the buffer once
// (tuning.cc: bwInter unhalved for nNodes <= 2). 2.19: latency 23 (NVLink) + 2 x 1 x 14 (network) us.
TEST(NcclAllReduce, NvlsTreeOnlyWhereNcclHasIt) {
  ClusterSpec c = FourHopperNodes();
  c.nodes = 2;
  ASSERT_TRUE(NcclLibraryForRelease("2.19.3", &c.nccl));
  const double bytes = 1 << 30;
  const CollectiveTime t = NvlsTreeAllReduce(bytes, c);
  EXPECT_NEAR(t.latency_s, (23 + 2 * 14) * 1e-6, 1e-12);
  EXPECT_NEAR(t.transfer_s, bytes / (200e9 * 5 / 6), 1e-9);
  ASSERT_TRUE(NcclLibraryForRelease("2.17.1", &c.nccl));
  EXPECT_EQ(NvlsTreeAllReduce(bytes, c).seconds, 0.0);
  ASSERT_TRUE(NcclLibraryForRelease("2.27.7", &c.nccl));
  c.gpu.name = "A100-SXM4-80GB";
  EXPECT_EQ(NvlsTreeAllReduce(bytes, c).seconds, 0.0);
  c.gpu.name = "H100-SXM-80GB";
  c.nodes = 1;
  EXPECT_EQ(NvlsTreeAllReduce(bytes, c).seconds, 0.0);
}

// The network plugin's latency (aws-ofi-nccl: 35 us on p6-b200) on each network step, by release.
TEST(NcclAllReduce, PluginNetworkLatencyByRelease) {
  CollectiveLibrary lib = DefaultNcclLibrary();
  ASSERT_TRUE(NcclLibraryForRelease("2.27.7", &lib));
  EXPECT_DOUBLE_EQ(NetworkStepLatencySeconds(14e-6, true, lib), 14e-6);  // not set
  lib.net_latency_s = 35e-6;
  EXPECT_DOUBLE_EQ(NetworkStepLatencySeconds(14e-6, true, lib), 14e-6 + 70e-6);  // Simple: twice
  EXPECT_DOUBLE_EQ(NetworkStepLatencySeconds(4e-6, false, lib), 4e-6 + 35e-6);
  ASSERT_TRUE(NcclLibraryForRelease("2.16.5", &lib));
  EXPECT_DOUBLE_EQ(NetworkStepLatencySeconds(9.6e-6, true, lib), 35e-6);  // replaces the table
  ASSERT_TRUE(NcclLibraryForRelease("2.8.4", &lib));
  EXPECT_DOUBLE_EQ(NetworkStepLatencySeconds(9.6e-6, true, lib), 9.6e-6);  // ignored before 2.12
  // The tree of the 4-node cluster with it: LL128's network step 8.5 + 35 us.
  ClusterSpec c = FourHopperNodes();
  c.nccl.net_latency_s = 35e-6;
  const double bytes = 1 << 20;
  const CollectiveTime tree = TreeAllReduce(RingOf(bytes, c), bytes, c);
  EXPECT_NEAR(tree.latency_s, (14.0 + 2 * (7 * 1.25 + 2 * (8.5 + 35))) * 1e-6, 1e-12);
}

// Training's whole-cluster all-reduce (FSDP NO_SHARD, GroupKind::kGlobal) is the tuner's pick: at 1 MiB
// NCCL's tree, LL128, 65.5 us + 1 MiB / 51.75 GB/s (TreeEqualsTuningCcWorkedByHand), carried on the ring's
// steps for the replay (latencies summing to 65.5 us, bandwidth factor = the tree's wire bytes, 2 x 1 MiB per
// node, / 200 GB/s over the tree's transfer); at 1 GiB the ring's Simple with the plateau, 1.4 (8.4 + 56
// x 3.4 + 6 x 14) us + 2 x 31/32 x 1 GiB / 200 GB/s. A reduce-scatter and an all-reduce over a replica group
// keep EstimateCollective.
TEST(NcclAllReduce, TrainingAllReduceIsTheTunersPick) {
  const ClusterSpec c = FourHopperNodes();
  CollectiveSpec s;
  s.kind = CollectiveKind::kAllReduce;
  s.group = GroupKind::kGlobal;
  s.group_size = c.total_gpus();
  s.buffer_bytes = 1 << 20;
  const CollectiveTime small = EstimateScheduledCollective(s, testing::PlacementFor(s, c));
  EXPECT_STREQ(small.algorithm, "Tree");
  EXPECT_STREQ(small.protocol, "LL128");
  const double tree_transfer_s = s.buffer_bytes / 51.75e9;
  EXPECT_NEAR(small.seconds, 65.5e-6 + tree_transfer_s, 1e-11);
  const NcclProtocol& p = small.params;
  EXPECT_EQ(CollectiveTraffic(s, testing::PlacementFor(s, c)).intra_steps, 56);
  EXPECT_EQ(CollectiveTraffic(s, testing::PlacementFor(s, c)).inter_steps, 6);
  EXPECT_NEAR(p.base_latency_s + 56 * p.intra_step_latency_s + 6 * p.inter_step_latency_s, 65.5e-6, 1e-12);
  EXPECT_NEAR(p.bandwidth_factor, 2.0 * s.buffer_bytes / 200e9 / tree_transfer_s, 1e-9);

  s.buffer_bytes = 1 << 30;
  const CollectiveTime big = EstimateScheduledCollective(s, testing::PlacementFor(s, c));
  EXPECT_STREQ(big.algorithm, "Ring");
  EXPECT_STREQ(big.protocol, "Simple");
  EXPECT_NEAR(big.seconds, 1.4 * (8.4 + 56 * 3.4 + 6 * 14) * 1e-6 + 2.0 * 31 / 32 * s.buffer_bytes / 200e9,
              1e-9);

  CollectiveSpec rs = s;
  rs.kind = CollectiveKind::kReduceScatter;
  EXPECT_EQ(EstimateScheduledCollective(rs, testing::PlacementFor(rs, c)).seconds,
            EstimateCollective(CollectiveTraffic(rs, testing::PlacementFor(rs, c)), c).seconds);
  CollectiveSpec replica = s;
  replica.group = GroupKind::kReplica;
  replica.group_size = 4;
  replica.buffer_bytes = 1 << 20;
  EXPECT_EQ(EstimateScheduledCollective(replica, testing::PlacementFor(replica, c)).seconds,
            EstimateCollective(CollectiveTraffic(replica, testing::PlacementFor(replica, c)), c).seconds);
}

// What a tuned all-reduce puts on the links is its algorithm's bytes (AllReduceTierScale), so that no
// algorithm moves its bytes faster than the line rate: the busiest link's bytes over its line rate are at
// most the tuner's transfer time, and the replay's bandwidth factor is at most 1.
void ExpectNoFasterThanTheLinks(const CollectiveSpec& s, const ClusterSpec& c) {
  const CollectiveTime t = EstimateScheduledCollective(s, testing::PlacementFor(s, c));
  const Traffic wire = WireTraffic(s, t, testing::PlacementFor(s, c));
  EXPECT_LE(wire.max_node_nic_bytes / c.node_nic_Bps(), t.transfer_s * (1 + 1e-12)) << t.algorithm;
  EXPECT_LE(wire.max_gpu_port_bytes / c.intra.bandwidth_Bps, t.transfer_s * (1 + 1e-12)) << t.algorithm;
  EXPECT_GT(t.params.bandwidth_factor, 0) << t.algorithm;
  EXPECT_LE(t.params.bandwidth_factor, 1 + 1e-12) << t.algorithm;
}

CollectiveSpec WholeClusterAllReduce(double bytes, const ClusterSpec& c) {
  CollectiveSpec s;
  s.kind = CollectiveKind::kAllReduce;
  s.group = GroupKind::kGlobal;
  s.group_size = c.total_gpus();
  s.buffer_bytes = bytes;
  return s;
}

// A TP group inside a node is its own communicator (ncclTopoGetSystem builds it from its ranks): NCCL's tuner
// times it as one node of t GPUs, so TP8 and TP4 on Hopper take NVLS for large activations (the single-node
// NVLS kernel over t ranks), TP2 cannot (transport/nvls.cc: two GPUs or fewer), and a TP group spanning
// nodes stays the placement's ring.
TEST(NcclAllReduce, TensorGroupInsideANodeIsTunedAsOneNode) {
  const ClusterSpec c = FourHopperNodes();
  CollectiveSpec s;
  s.kind = CollectiveKind::kAllReduce;
  s.group = GroupKind::kTensor;
  s.group_size = 8;
  s.buffer_bytes = 64.0 * 1024 * 1024;  // one block's activations, b s h x 2 bytes, order of magnitude
  ASSERT_TRUE(IsTunedAllReduce(s, c));
  const ClusterSpec view = TunerView(s, c);
  EXPECT_EQ(view.nodes, 1);
  EXPECT_EQ(view.gpus_per_node, 8);
  const CollectiveTime t8 = EstimateScheduledCollective(s, testing::PlacementFor(s, c));
  EXPECT_STREQ(t8.algorithm, "NVLS");
  EXPECT_NEAR(t8.seconds, NvlsAllReduceSeconds(s.buffer_bytes, 8, view), 1e-12);
  // Faster than the ring EstimateCollective timed it as before.
  EXPECT_LT(t8.seconds, EstimateCollective(CollectiveTraffic(s, testing::PlacementFor(s, c)), c).seconds);
  ExpectNoFasterThanTheLinks(s, c);

  CollectiveSpec t4 = s;
  t4.group_size = 4;
  EXPECT_STREQ(EstimateScheduledCollective(t4, testing::PlacementFor(t4, c)).algorithm, "NVLS");
  EXPECT_NEAR(EstimateScheduledCollective(t4, testing::PlacementFor(t4, c)).seconds,
              NvlsAllReduceSeconds(s.buffer_bytes, 4, TunerView(t4, c)), 1e-12);

  CollectiveSpec t2 = s;
  t2.group_size = 2;
  ASSERT_TRUE(IsTunedAllReduce(t2, c));
  EXPECT_STRNE(EstimateScheduledCollective(t2, testing::PlacementFor(t2, c)).algorithm, "NVLS");

  CollectiveSpec across = s;  // 16 ranks over two nodes
  across.group_size = 16;
  EXPECT_FALSE(IsTunedAllReduce(across, c));
  EXPECT_EQ(EstimateScheduledCollective(across, testing::PlacementFor(across, c)).seconds,
            EstimateCollective(CollectiveTraffic(across, testing::PlacementFor(across, c)), c).seconds);

  CollectiveSpec gather = s;  // sequence parallelism's all-gathers are rings
  gather.kind = CollectiveKind::kAllGather;
  EXPECT_FALSE(IsTunedAllReduce(gather, c));

  ClusterSpec ampere = c;  // no NVLS before Hopper: the tuner's ring or chain
  ampere.gpu.name = "A100-SXM4-80GB";
  ampere.intra.bandwidth_Bps = 300e9;
  EXPECT_STRNE(EstimateScheduledCollective(s, testing::PlacementFor(s, ampere)).algorithm, "NVLS");
}

// Tree (4 x 8, 1 MiB): every node's NICs and every GPU port carry 2 x bytes one way, the ring 2 x 31/32.
// NVLSTree (2 x 8, 1 GiB, 2.19): NVLS's bytes x 9/8 per GPU port, the buffer once through each node's NICs
// (tuning.cc: bwInter unhalved on two nodes), against the ring's 2 x 15/16. NVLS (1 x 8, 1 GiB): 9/8 of the
// buffer per port, 9 buffers in all over the NVSwitch, against the ring's 2 x 7/8 per port.
TEST(NcclAllReduce, WireTrafficIsTheAlgorithms) {
  ClusterSpec c = FourHopperNodes();
  const CollectiveSpec tree = WholeClusterAllReduce(1 << 20, c);
  ASSERT_STREQ(EstimateScheduledCollective(tree, testing::PlacementFor(tree, c)).algorithm, "Tree");
  const Traffic tree_wire = WireTraffic(tree, testing::PlacementFor(tree, c));
  EXPECT_NEAR(tree_wire.max_node_nic_bytes, 2.0 * tree.buffer_bytes, 1e-6);
  EXPECT_NEAR(tree_wire.max_gpu_port_bytes, 2.0 * tree.buffer_bytes, 1e-6);
  EXPECT_NEAR(CollectiveTraffic(tree, testing::PlacementFor(tree, c)).max_node_nic_bytes,
              2.0 * 31 / 32 * tree.buffer_bytes, 1e-6);
  ExpectNoFasterThanTheLinks(tree, c);

  c.nodes = 2;
  ASSERT_TRUE(NcclLibraryForRelease("2.19.3", &c.nccl));
  const double gib = 1 << 30;
  const CollectiveSpec nvls_tree = WholeClusterAllReduce(gib, c);
  ASSERT_STREQ(EstimateScheduledCollective(nvls_tree, testing::PlacementFor(nvls_tree, c)).algorithm,
               "NVLSTree");
  const Traffic nt = WireTraffic(nvls_tree, testing::PlacementFor(nvls_tree, c));
  EXPECT_NEAR(nt.max_node_nic_bytes, gib, 1e-3);
  EXPECT_NEAR(nt.cross_total_bytes, 2 * gib, 1e-3);
  EXPECT_NEAR(nt.max_gpu_port_bytes, gib * 9 / 8, 1e-3);
  EXPECT_EQ(nt.ring_rank_bytes, 0);                          // not a ring: NCCL's ring bus cap does not apply
  EXPECT_EQ(nt.inter_steps, CollectiveTraffic(nvls_tree, testing::PlacementFor(nvls_tree, c))
                                .inter_steps);  // the replay keeps the ring's steps
  ExpectNoFasterThanTheLinks(nvls_tree, c);

  c.nodes = 1;
  ASSERT_TRUE(NcclLibraryForRelease("2.27.7", &c.nccl));
  const CollectiveSpec nvls = WholeClusterAllReduce(gib, c);
  ASSERT_STREQ(EstimateScheduledCollective(nvls, testing::PlacementFor(nvls, c)).algorithm, "NVLS");
  const Traffic n = WireTraffic(nvls, testing::PlacementFor(nvls, c));
  EXPECT_NEAR(n.max_gpu_port_bytes, gib * 9 / 8, 1e-3);
  EXPECT_NEAR(n.intra_total_bytes, 9 * gib, 1e-3);
  EXPECT_EQ(n.cross_total_bytes, 0);
  ExpectNoFasterThanTheLinks(nvls, c);

  // Any other collective, and a ring pick, put the placement's ring on the links.
  CollectiveSpec rs = nvls;
  rs.kind = CollectiveKind::kReduceScatter;
  EXPECT_EQ(WireTraffic(rs, testing::PlacementFor(rs, c)),
            CollectiveTraffic(rs, testing::PlacementFor(rs, c)));
  ASSERT_TRUE(NcclLibraryForRelease("2.12.12", &c.nccl));  // before NVLS: the ring at 1 GiB
  ASSERT_STREQ(EstimateScheduledCollective(nvls, testing::PlacementFor(nvls, c)).algorithm, "Ring");
  EXPECT_EQ(WireTraffic(nvls, testing::PlacementFor(nvls, c)),
            CollectiveTraffic(nvls, testing::PlacementFor(nvls, c)));
}

// A schedule's volumes on a cluster count each tuned all-reduce at its algorithm's bytes, per purpose;
// SumTraffic stays the placement's ring.
TEST(NcclAllReduce, WireVolumesCountTheAlgorithmsBytes) {
  ClusterSpec c = FourHopperNodes();
  c.nodes = 2;
  ASSERT_TRUE(NcclLibraryForRelease("2.19.3", &c.nccl));
  Schedule s;
  s.nodes = c.nodes;
  s.gpus_per_node = c.gpus_per_node;
  Op op;
  op.kind = OpKind::kCollective;
  op.purpose = Purpose::kGradientReduce;
  op.coll = WholeClusterAllReduce(1 << 30, c);
  ClassifyCollective(&s, &op.coll);
  s.ops.push_back(op);
  const TierVolumes ring = SumTraffic(s, c);
  const TierVolumes v = WireVolumes(s, c);
  const auto g = static_cast<size_t>(Purpose::kGradientReduce);
  EXPECT_NEAR(v.cross_node[g], WireTraffic(op.coll, testing::PlacementFor(op.coll, c)).cross_total_bytes,
              1e-3);
  EXPECT_NEAR(v.intra_node[g], WireTraffic(op.coll, testing::PlacementFor(op.coll, c)).intra_total_bytes,
              1e-3);
  EXPECT_LT(v.cross_node[g], ring.cross_node[g]);  // NVLSTree halves the ring's NIC bytes on 2 nodes
}

}  // namespace
}  // namespace zerosim::model
