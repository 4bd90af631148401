#include "model/placement/traffic.h"

#include <algorithm>

#include "model/placement/placement.h"

namespace zerosim::model {

namespace {

// Nodes under one fat-tree leaf that a group spanning `group_nodes` consecutive nodes occupies, and
// whether the group spans several leaves (only then do leaf uplinks carry its traffic).
bool SpansLeaves(const ClusterSpec& c, int group_nodes) {
  return c.fabric.kind == FabricKind::kFatTree && group_nodes > c.fabric.nodes_per_leaf;
}

// A node-major ring over each instance of a group placed as `pl`, every rank sending `rounds` x (g-1)
// chunks of buffer/g (1 round: all-gather or reduce-scatter; 2: all-reduce).
Traffic RingTraffic(const GroupPlacement& pl, int g, double buffer_bytes, int rounds, const ClusterSpec& c) {
  Traffic t;
  if (g <= 1) return t;
  const double per_rank = rounds * (g - 1) * (buffer_bytes / g);
  const int cross_edges = pl.nodes > 1 ? pl.nodes : 0;
  const int intra_edges = g - cross_edges;
  t.cross_total_bytes = static_cast<double>(pl.instances) * cross_edges * per_rank;
  t.intra_total_bytes = static_cast<double>(pl.instances) * intra_edges * per_rank;
  t.max_gpu_port_bytes = intra_edges > 0 ? per_rank : 0;
  t.max_node_nic_bytes = cross_edges > 0 ? pl.per_node * per_rank : 0;
  // A node-major ring leaves each leaf once: one edge of every instance with members under the leaf.
  t.max_leaf_uplink_bytes = (cross_edges > 0 && SpansLeaves(c, pl.span_nodes)) ? pl.per_leaf * per_rank : 0;
  t.ring_rank_bytes = per_rank;
  t.inter_steps = rounds * (pl.nodes - 1);
  t.intra_steps = rounds * (g - 1) - t.inter_steps;
  return t;
}

// An all-to-all over each instance of a group placed as `pl` (an expert- or context-parallel group: g
// consecutive DP ranks, placement.h kExpert, kContext): each rank sends buffer/g to each other member, m - 1
// of them on its own node (NVLink) and g - m on the instance's other nodes (its NIC), m = g / (nodes the
// instance spans); a node's NICs carry the m members of each of the per_node instances it hosts; a leaf's
// uplinks the share its members (m of each of the instance's nodes under the leaf) address outside it. One
// direct exchange step per tier (NCCL's all-to-all is a grouped send/recv to every peer at once).
Traffic GroupAllToAll(const GroupPlacement& pl, int g, double buffer_bytes, const ClusterSpec& c) {
  Traffic t;
  const double m = static_cast<double>(g) / pl.nodes;
  const double chunk = buffer_bytes / g;
  const double cross_per_rank = chunk * (g - m);
  const double intra_per_rank = chunk * (m - 1);
  t.cross_total_bytes = static_cast<double>(pl.instances) * g * cross_per_rank;
  t.intra_total_bytes = static_cast<double>(pl.instances) * g * intra_per_rank;
  t.max_gpu_port_bytes = intra_per_rank;
  t.max_node_nic_bytes = pl.per_node * m * cross_per_rank;
  if (pl.nodes > 1 && SpansLeaves(c, pl.span_nodes)) {
    const double nodes_in_leaf = std::min(pl.nodes, c.fabric.nodes_per_leaf);
    t.max_leaf_uplink_bytes = pl.per_leaf * m * nodes_in_leaf * chunk * (g - m * nodes_in_leaf);
  }
  t.inter_steps = pl.nodes > 1 ? 1 : 0;
  t.intra_steps = m > 1 ? 1 : 0;
  return t;
}

}  // namespace

Traffic CollectiveTraffic(const CollectiveSpec& s, const Placement& placement) {
  const ClusterSpec& c = placement.cluster;
  const int p = c.total_gpus();
  const int g = s.group_size;
  const double buffer_bytes = s.buffer_bytes;
  if (g <= 1) return Traffic{};
  if (s.kind != CollectiveKind::kAllToAll) {
    // Rings inside a node (hpZ, local) run P/g at once, one per group; the placement says where each sits
    // (one TP rank's groups on the tp-dp-pp grid: placement.h).
    return RingTraffic(placement.Place(s.group), g, buffer_bytes,
                       s.kind == CollectiveKind::kAllReduce ? 2 : 1, c);
  }
  // qgZ's all-to-alls over the cross-node and local groups (t = 1: feasibility.h CheckLayout), and those of
  // the expert- and context-parallel groups (any t).
  Traffic t;
  const double out_per_rank = buffer_bytes * (g - 1) / g;
  if (s.group == GroupKind::kCrossNode) {
    t.cross_total_bytes = p * out_per_rank;
    t.max_node_nic_bytes = c.gpus_per_node * out_per_rank;
    if (SpansLeaves(c, c.nodes)) {
      // Each leaf's nodes send the share addressed to nodes under other leaves.
      const double outside = static_cast<double>(c.nodes - c.fabric.nodes_per_leaf) / (c.nodes - 1);
      t.max_leaf_uplink_bytes = c.fabric.nodes_per_leaf * t.max_node_nic_bytes * outside;
    }
    t.inter_steps = 1;
  } else if (s.group == GroupKind::kLocal || s.group == GroupKind::kHpz) {
    t.intra_total_bytes = p * out_per_rank;
    t.max_gpu_port_bytes = out_per_rank;
    t.intra_steps = 1;
  } else {
    t = GroupAllToAll(placement.Place(s.group), g, buffer_bytes, c);
  }
  return t;
}

Traffic LoneCollectiveTraffic(CollectiveKind kind, GroupKind group, int group_size, double buffer_bytes,
                              const ClusterSpec& cluster) {
  CollectiveSpec s;
  s.kind = kind;
  s.group = group;
  s.group_size = group_size;
  s.buffer_bytes = buffer_bytes;
  return CollectiveTraffic(s, PlacementOfGroup(cluster, group, group_size));
}

TierVolumes SumTraffic(const Schedule& s, const ClusterSpec& cluster) {
  const Placement placement(cluster, GridOf(s));
  std::vector<Traffic> traffic;  // by collective class
  traffic.reserve(s.collective_classes.size());
  for (const CollectiveSpec& k : s.collective_classes) traffic.push_back(CollectiveTraffic(k, placement));
  TierVolumes v;
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    const auto i = static_cast<size_t>(op.purpose);
    const Traffic& t = traffic[static_cast<size_t>(op.coll.collective_class)];
    v.cross_node[i] += t.cross_total_bytes;
    v.intra_node[i] += t.intra_total_bytes;
  }
  return v;
}

}  // namespace zerosim::model
