#include "model/traffic.h"

#include <algorithm>

namespace zerosim::model {

int GroupSize(GroupKind group, const ClusterSpec& cluster, int hpz_size) {
  switch (group) {
    case GroupKind::kGlobal:
      return cluster.total_gpus();
    case GroupKind::kHpz:
      return hpz_size;
    case GroupKind::kLocal:
      return cluster.gpus_per_node;
    case GroupKind::kCrossNode:
      return cluster.nodes;
  }
  return 1;
}

namespace {

// Nodes under one fat-tree leaf that a group spanning `group_nodes` consecutive nodes occupies, and
// whether the group spans several leaves (only then do leaf uplinks carry its traffic).
bool SpansLeaves(const ClusterSpec& c, int group_nodes) {
  return c.fabric.kind == FabricKind::kFatTree && group_nodes > c.fabric.nodes_per_leaf;
}

Traffic RingTraffic(int g, double buffer_bytes, const ClusterSpec& c, bool spans_nodes) {
  Traffic t;
  if (g <= 1) return t;
  const double per_rank = (g - 1) * (buffer_bytes / g);
  const int k = spans_nodes ? c.nodes : 1;
  const int cross_edges = k > 1 ? k : 0;
  const int intra_edges = g - cross_edges;
  t.cross_total_bytes = cross_edges * per_rank;
  t.intra_total_bytes = intra_edges * per_rank;
  t.max_gpu_port_bytes = intra_edges > 0 ? per_rank : 0;
  t.max_node_nic_bytes = cross_edges > 0 ? per_rank : 0;
  // A node-major ring leaves each leaf once.
  t.max_leaf_uplink_bytes = (cross_edges > 0 && SpansLeaves(c, k)) ? per_rank : 0;
  t.ring_rank_bytes = per_rank;
  t.inter_steps = k - 1;
  t.intra_steps = (g - 1) - t.inter_steps;
  return t;
}

}  // namespace

Traffic CollectiveTraffic(CollectiveKind kind, GroupKind group, int group_size, double buffer_bytes,
                          const ClusterSpec& c) {
  const int p = c.total_gpus();
  const int g = group_size;
  if (g <= 1) return Traffic{};
  if (kind != CollectiveKind::kAllToAll) {
    if (group == GroupKind::kGlobal) return RingTraffic(g, buffer_bytes, c, /*spans_nodes=*/true);
    // Rings inside a node (hpZ, local): P/g of them run at once, one per group.
    Traffic t = RingTraffic(g, buffer_bytes, c, /*spans_nodes=*/false);
    t.intra_total_bytes *= static_cast<double>(p) / g;
    return t;
  }
  Traffic t;
  const double out_per_rank = buffer_bytes * (g - 1) / g;
  if (group == GroupKind::kCrossNode) {
    t.cross_total_bytes = p * out_per_rank;
    t.max_node_nic_bytes = c.gpus_per_node * out_per_rank;
    if (SpansLeaves(c, c.nodes)) {
      // Each leaf's nodes send the share addressed to nodes under other leaves.
      const double outside = static_cast<double>(c.nodes - c.fabric.nodes_per_leaf) / (c.nodes - 1);
      t.max_leaf_uplink_bytes = c.fabric.nodes_per_leaf * t.max_node_nic_bytes * outside;
    }
    t.inter_steps = 1;
  } else {
    t.intra_total_bytes = p * out_per_rank;
    t.max_gpu_port_bytes = out_per_rank;
    t.intra_steps = 1;
  }
  return t;
}

TierVolumes SumTraffic(const Schedule& s) {
  TierVolumes v;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    const auto i = static_cast<size_t>(op.purpose);
    v.cross_node[i] += op.coll.traffic.cross_total_bytes;
    v.intra_node[i] += op.coll.traffic.intra_total_bytes;
  }
  return v;
}

}  // namespace zerosim::model
