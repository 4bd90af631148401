// Where a collective's bytes go: per link tier, for a group placed on a cluster. The single place
// ZeroSim derives communication volumes; the schedule carries none (schedule.h): each engine derives them
// for the cluster it evaluates, once per collective class.
//
// Placement (where the ranks of each group sit: placement.h) and algorithms (NCCL's):
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

#include <array>
#include <vector>

#include "model/placement/placement.h"
#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

// Bytes one collective puts on each tier, derived from the group's placement (traffic.h).
struct Traffic {
  bool operator==(const Traffic&) const = default;
  double intra_total_bytes = 0;      // summed over all GPUs, over the intra-node fabric
  double cross_total_bytes = 0;      // summed over all GPUs, through NICs
  double max_gpu_port_bytes = 0;     // busiest GPU port into the intra-node fabric, one direction
  double max_node_nic_bytes = 0;     // busiest node's NICs together, one direction
  double max_leaf_uplink_bytes = 0;  // busiest fat-tree leaf's uplinks together, one direction
  double ring_rank_bytes = 0;  // rings only: bytes each rank sends along the ring ((g-1)/g of the buffer)
  int intra_steps = 0;         // sequential steps over the intra-node fabric (latency term)
  int inter_steps = 0;         // sequential steps across nodes (latency term)
};

// Cross-node and intra-node bytes of a schedule, per purpose, summed over all GPUs.
struct TierVolumes {
  std::array<double, kNumPurposes> cross_node{};  // indexed by Purpose
  std::array<double, kNumPurposes> intra_node{};
  double cross_total() const { return cross_node[1] + cross_node[2] + cross_node[3] + cross_node[4]; }
  double intra_total() const { return intra_node[1] + intra_node[2] + intra_node[3] + intra_node[4]; }
};

// The traffic of one collective (its kind, group, group size and per-rank buffer) of a schedule placed as
// `placement` (placement.h: the schedule's grid on the cluster). Precondition: s.group_size is the size of
// its group on the placement's grid (the builder emits each collective over its declared groups).
Traffic CollectiveTraffic(const CollectiveSpec& s, const Placement& placement);

// The traffic of a lone collective of `kind` over `group` of `group_size` ranks with per-rank `buffer_bytes`,
// outside a schedule (nccl-tests' points, study/nccl_check.cc): CollectiveTraffic on PlacementOfGroup.
Traffic LoneCollectiveTraffic(CollectiveKind kind, GroupKind group, int group_size, double buffer_bytes,
                              const ClusterSpec& cluster);

// Cross-node and intra-node bytes of a whole schedule on `cluster`, per purpose, summed over all GPUs, every
// collective counted as its placement's ring or all-to-all (CollectiveTraffic on Placement(cluster,
// GridOf(s)); the bytes NCCL's tuned all-reduces put on the wire instead: placed_collectives.h WireVolumes).
// Preconditions: the schedule was built for the cluster's shape.
TierVolumes SumTraffic(const Schedule& s, const ClusterSpec& cluster);

}  // namespace zerosim::model
