// Where a collective's bytes go: per link tier, for a group placed on a cluster. The single place
// ZeroSim derives communication volumes (BuildSchedule stores the result in each collective op).
//
// Placement and algorithms (NCCL's):
//  - Ring all-gather / reduce-scatter over g ranks moves (g - 1) chunks of buffer/g out of every rank,
//    to its ring successor. Global rings run node-major (the N local ranks, then the next node), so a
//    ring over K > 1 nodes has K cross-node edges and g - K intra-node edges; NCCL's channels spread the
//    cross-node edges over the node's NICs. Latency steps follow NCCL's tuning model: g - 1 steps of
//    which K - 1 cross nodes.
//  - Rings of the sharded strategies' groups (kShard, kReplica, kShardCrossNode: MiCS, HSDP) follow the same
//    rule: each instance is a node-major ring over its members; an instance spanning several nodes has one
//    cross-node edge out of every node it touches, the rest of its edges inside nodes. All instances run at
//    once, so a node's NICs carry one ring edge of every instance that touches the node.
//  - All-reduce (NCCL's ring: reduce-scatter then all-gather) moves 2 (g-1)/g of the buffer per rank in
//    2 (g-1) steps.
//  - All-to-all sends buffer/g to every other member (the rank's own slice stays put): within a node over
//    the GPU ports, across nodes through the NICs (all N local ranks of a node at once).
#pragma once

#include "model/cluster_spec.h"
#include "model/schedule.h"

namespace zerosim::model {

// Number of ranks in `group` on `cluster` (hpz_size used for GroupKind::kHpz; shard_size, the ranks of a
// shard group, for kShard, kReplica and kShardCrossNode, 0 meaning one node).
int GroupSize(GroupKind group, const ClusterSpec& cluster, int hpz_size, int shard_size = 0);

// Where the instances of a group kind sit: how many run at once, the nodes one instance spans, and how many
// instances touch one node.
struct GroupPlacement {
  int instances = 1;
  int nodes = 1;       // nodes one instance spans (1: inside a node)
  int per_node = 1;    // instances with members on one node
  // Instances with members under one fat-tree leaf (each leaves the leaf once: its members there are
  // consecutive on its node-major ring); per_node unless instances of one member per node differ between
  // the leaf's nodes (replica groups of shard groups over several nodes: min(s, nodes_per_leaf x N)).
  int per_leaf = 1;
  int span_nodes = 1;  // consecutive nodes one instance's members range over (for fat-tree leaves)
};
GroupPlacement PlaceGroup(GroupKind group, int group_size, const ClusterSpec& cluster);

// The traffic of one collective of `kind` over `group` with per-rank `buffer_bytes`.
Traffic CollectiveTraffic(CollectiveKind kind, GroupKind group, int group_size, double buffer_bytes,
                          const ClusterSpec& cluster);

// Cross-node and intra-node bytes of a whole schedule, per purpose, summed over all GPUs (BuildSchedule
// stores the result in Schedule::volumes).
TierVolumes SumTraffic(const Schedule& s);

}  // namespace zerosim::model
