// Placement (model/placement/placement.h) against the closed forms that use it: for every group kind on
// clusters of 1, 2, 4 and 8 nodes of 8 or 16 GPUs with 1 to 8 NICs (single switch and fat trees), with hpZ
// and shard sizes that divide a node and shard sizes that are multiples of it, the instances partition the
// ranks, every GPU's rail is a NIC of its node, PlaceGroup's counts (traffic.h) equal what the enumerated
// members give, and so do CollectiveTraffic's per-tier bytes, edge counts and steps: each ring edge of each
// instance, and each all-to-all pair, counted one by one.
#include "model/placement/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "model/placement/traffic.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

constexpr GroupKind kKinds[] = {GroupKind::kGlobal,        GroupKind::kHpz,   GroupKind::kLocal,
                                GroupKind::kCrossNode,     GroupKind::kShard, GroupKind::kReplica,
                                GroupKind::kShardCrossNode};

struct Case {
  ClusterSpec c;
  RankGrid grid;
  std::string name;
};

// Every cluster with every hpZ size dividing a node and every shard size dividing a node or a multiple of it
// dividing the world.
std::vector<Case> Cases() {
  struct Shape {
    int nodes, gpus, leaf;  // leaf: nodes per fat-tree leaf (0: single switch)
  };
  const Shape shapes[] = {{1, 8, 0}, {2, 8, 0}, {4, 8, 0},  {4, 8, 2}, {4, 8, 1},
                          {8, 8, 4}, {8, 8, 2}, {2, 16, 0}, {4, 16, 2}};
  std::vector<Case> out;
  for (const Shape& sh : shapes) {
    for (int nics : {1, 2, 4, 8}) {
      ClusterSpec c = testing::PaperCluster(nics, sh.nodes, sh.gpus);
      if (sh.leaf > 0) {
        c.fabric.kind = FabricKind::kFatTree;
        c.fabric.nodes_per_leaf = sh.leaf;
        c.fabric.oversubscription = 2;
      }
      std::vector<int> shards = {0};
      for (int s = 1; s <= sh.gpus; s *= 2) shards.push_back(s);
      for (int k = 2; k <= sh.nodes; k *= 2) shards.push_back(k * sh.gpus);
      for (int hpz = 1; hpz <= sh.gpus; hpz *= 2) {
        for (int s : shards) {
          out.push_back({c, GridOf(c, hpz, s),
                         std::to_string(sh.nodes) + "x" + std::to_string(sh.gpus) + " nics " +
                             std::to_string(nics) + " leaf " + std::to_string(sh.leaf) + " hpz " +
                             std::to_string(hpz) + " shard " + std::to_string(s)});
        }
      }
    }
  }
  return out;
}

int Leaf(const ClusterSpec& c, int node) {
  return c.fabric.kind == FabricKind::kFatTree ? node / c.fabric.nodes_per_leaf : 0;
}

std::vector<std::vector<int>> Instances(GroupKind kind, const RankGrid& grid) {
  std::vector<std::vector<int>> out;
  for (int i = 0; i < GroupInstances(kind, grid); ++i) out.push_back(GroupMembers(kind, i, grid));
  return out;
}

TEST(Placement, InstancesPartitionTheRanksInNodeMajorRingOrder) {
  for (const Case& k : Cases()) {
    for (GroupKind kind : kKinds) {
      SCOPED_TRACE(k.name + " " + GroupKindName(kind));
      const int g = GroupSize(kind, k.grid);
      std::vector<int> seen(static_cast<size_t>(k.grid.ranks()), 0);
      const std::vector<std::vector<int>> instances = Instances(kind, k.grid);
      EXPECT_EQ(static_cast<int>(instances.size()) * g, k.grid.ranks());
      for (size_t i = 0; i < instances.size(); ++i) {
        const std::vector<int>& m = instances[i];
        EXPECT_EQ(static_cast<int>(m.size()), g);
        EXPECT_TRUE(std::is_sorted(m.begin(), m.end()));  // node-major: a node's members consecutive
        for (int r : m) {
          ASSERT_GE(r, 0);
          ASSERT_LT(r, k.grid.ranks());
          ++seen[static_cast<size_t>(r)];
          EXPECT_EQ(InstanceOf(kind, r, k.grid), static_cast<int>(i));
        }
      }
      for (int r = 0; r < k.grid.ranks(); ++r) EXPECT_EQ(seen[static_cast<size_t>(r)], 1) << "rank " << r;
    }
  }
}

TEST(Placement, EveryGpuUsesARailOfItsNodeAndRailsAreContiguousAndEqual) {
  for (int gpus : {8, 16}) {
    for (int nics : {1, 2, 4, 8}) {
      std::vector<int> per_rail(static_cast<size_t>(nics), 0);
      int last = 0;
      for (int g = 0; g < gpus; ++g) {
        const int rail = RailOf(g, gpus, nics);
        ASSERT_GE(rail, 0);
        ASSERT_LT(rail, nics);
        EXPECT_GE(rail, last);  // contiguous
        last = rail;
        ++per_rail[static_cast<size_t>(rail)];
      }
      for (int n : per_rail) EXPECT_EQ(n, gpus / nics);
    }
  }
}

TEST(Placement, PlaceGroupCountsWhatTheMembersSpan) {
  for (const Case& k : Cases()) {
    for (GroupKind kind : kKinds) {
      SCOPED_TRACE(k.name + " " + GroupKindName(kind));
      const GroupPlacement pl = PlaceGroup(kind, k.grid, k.c);
      const std::vector<std::vector<int>> instances = Instances(kind, k.grid);
      EXPECT_EQ(pl.instances, static_cast<int>(instances.size()));
      std::map<int, int> per_node;  // instances with members on a node
      std::map<int, int> per_leaf;  // ... under a leaf
      for (const std::vector<int>& m : instances) {
        const std::vector<int> nodes = NodesOf(m, k.c.gpus_per_node);
        EXPECT_EQ(pl.nodes, static_cast<int>(nodes.size()));
        std::vector<int> leaves;
        for (int node : nodes) {
          ++per_node[node];
          if (std::find(leaves.begin(), leaves.end(), Leaf(k.c, node)) == leaves.end())
            leaves.push_back(Leaf(k.c, node));
        }
        for (int leaf : leaves) ++per_leaf[leaf];
      }
      if (pl.nodes <= 1) continue;  // per_node and per_leaf count ring edges out of nodes
      for (const auto& [node, count] : per_node) EXPECT_EQ(count, pl.per_node) << "node " << node;
      if (k.c.fabric.kind == FabricKind::kFatTree && pl.span_nodes > k.c.fabric.nodes_per_leaf) {
        for (const auto& [leaf, count] : per_leaf) EXPECT_EQ(count, pl.per_leaf) << "leaf " << leaf;
      }
    }
  }
}

// Traffic counted edge by edge: every member of every instance sends `per_edge` to its ring successor.
Traffic EnumeratedRing(GroupKind kind, const Case& k, double buffer_bytes, int rounds) {
  Traffic t;
  const int g = GroupSize(kind, k.grid);
  if (g <= 1) return t;
  const int n = k.c.gpus_per_node;
  const double per_edge = rounds * (g - 1) * (buffer_bytes / g);
  const bool fat = k.c.fabric.kind == FabricKind::kFatTree;
  std::map<int, double> port, nic, uplink;
  int nodes = 0;
  for (const std::vector<int>& m : Instances(kind, k.grid)) {
    nodes = static_cast<int>(NodesOf(m, n).size());
    for (size_t i = 0; i < m.size(); ++i) {
      const int a = m[i];
      const int b = m[(i + 1) % m.size()];
      if (a / n == b / n) {
        t.intra_total_bytes += per_edge;
        port[a] += per_edge;
      } else {
        t.cross_total_bytes += per_edge;
        nic[a / n] += per_edge;
        if (fat && Leaf(k.c, a / n) != Leaf(k.c, b / n)) uplink[Leaf(k.c, a / n)] += per_edge;
      }
    }
  }
  for (const auto& [_, b] : port) t.max_gpu_port_bytes = std::max(t.max_gpu_port_bytes, b);
  for (const auto& [_, b] : nic) t.max_node_nic_bytes = std::max(t.max_node_nic_bytes, b);
  for (const auto& [_, b] : uplink) t.max_leaf_uplink_bytes = std::max(t.max_leaf_uplink_bytes, b);
  t.ring_rank_bytes = per_edge;
  t.inter_steps = rounds * (nodes - 1);
  t.intra_steps = rounds * (g - 1) - t.inter_steps;
  return t;
}

TEST(Placement, RingTrafficEqualsTheEnumeratedRingEdges) {
  const struct {
    CollectiveKind kind;
    int rounds;
  } rings[] = {
      {CollectiveKind::kAllGather, 1}, {CollectiveKind::kReduceScatter, 1}, {CollectiveKind::kAllReduce, 2}};
  for (const Case& k : Cases()) {
    for (GroupKind kind : kKinds) {
      const int g = GroupSize(kind, k.grid);
      const double buffer_bytes = 1024.0 * g;  // chunks of whole bytes: every sum below is exact
      for (const auto& ring : rings) {
        SCOPED_TRACE(k.name + " " + GroupKindName(kind) + " rounds " + std::to_string(ring.rounds));
        const Traffic expected = EnumeratedRing(kind, k, buffer_bytes, ring.rounds);
        const Traffic t = LoneCollectiveTraffic(ring.kind, kind, g, buffer_bytes, k.c);
        EXPECT_EQ(t.intra_total_bytes, expected.intra_total_bytes);
        EXPECT_EQ(t.cross_total_bytes, expected.cross_total_bytes);
        EXPECT_EQ(t.max_gpu_port_bytes, expected.max_gpu_port_bytes);
        EXPECT_EQ(t.max_node_nic_bytes, expected.max_node_nic_bytes);
        EXPECT_EQ(t.max_leaf_uplink_bytes, expected.max_leaf_uplink_bytes);
        EXPECT_EQ(t.ring_rank_bytes, expected.ring_rank_bytes);
        EXPECT_EQ(t.inter_steps, expected.inter_steps);
        EXPECT_EQ(t.intra_steps, expected.intra_steps);
      }
    }
  }
}

TEST(Placement, AllToAllTrafficEqualsTheEnumeratedPairs) {
  for (const Case& k : Cases()) {
    for (GroupKind kind : {GroupKind::kLocal, GroupKind::kCrossNode}) {
      SCOPED_TRACE(k.name + " " + GroupKindName(kind));
      const int g = GroupSize(kind, k.grid);
      const double buffer_bytes = 1024.0 * g;
      const int n = k.c.gpus_per_node;
      const bool fat = k.c.fabric.kind == FabricKind::kFatTree;
      Traffic e;
      std::map<int, double> port, nic, uplink;
      if (g > 1) {
        for (const std::vector<int>& m : Instances(kind, k.grid)) {
          for (int a : m) {
            for (int b : m) {
              if (a == b) continue;
              if (a / n == b / n) {
                e.intra_total_bytes += buffer_bytes / g;
                port[a] += buffer_bytes / g;
              } else {
                e.cross_total_bytes += buffer_bytes / g;
                nic[a / n] += buffer_bytes / g;
                if (fat && Leaf(k.c, a / n) != Leaf(k.c, b / n)) uplink[Leaf(k.c, a / n)] += buffer_bytes / g;
              }
            }
          }
        }
      }
      for (const auto& [_, b] : port) e.max_gpu_port_bytes = std::max(e.max_gpu_port_bytes, b);
      for (const auto& [_, b] : nic) e.max_node_nic_bytes = std::max(e.max_node_nic_bytes, b);
      for (const auto& [_, b] : uplink) e.max_leaf_uplink_bytes = std::max(e.max_leaf_uplink_bytes, b);
      const Traffic t = LoneCollectiveTraffic(CollectiveKind::kAllToAll, kind, g, buffer_bytes, k.c);
      EXPECT_EQ(t.intra_total_bytes, e.intra_total_bytes);
      EXPECT_EQ(t.cross_total_bytes, e.cross_total_bytes);
      EXPECT_EQ(t.max_gpu_port_bytes, e.max_gpu_port_bytes);
      EXPECT_EQ(t.max_node_nic_bytes, e.max_node_nic_bytes);
      EXPECT_NEAR(t.max_leaf_uplink_bytes, e.max_leaf_uplink_bytes, 1e-9 * e.max_node_nic_bytes);
      EXPECT_EQ(t.inter_steps, e.cross_total_bytes > 0 ? 1 : 0);
      EXPECT_EQ(t.intra_steps, e.intra_total_bytes > 0 ? 1 : 0);
    }
  }
}

}  // namespace
}  // namespace zerosim::model
