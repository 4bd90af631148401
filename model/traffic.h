// Where a collective's bytes go: per link tier, for a group placed on a cluster. The single place
// ZeroSim derives communication volumes (BuildSchedule stores the result in each collective op).
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

#include "model/cluster_spec.h"
#include "model/schedule.h"

namespace zerosim::model {

// The traffic of one collective of `kind` over `group` with per-rank `buffer_bytes`.
Traffic CollectiveTraffic(CollectiveKind kind, GroupKind group, int group_size, double buffer_bytes,
                          const ClusterSpec& cluster);

// Cross-node and intra-node bytes of a whole schedule, per purpose, summed over all GPUs (BuildSchedule
// stores the result in Schedule::volumes).
TierVolumes SumTraffic(const Schedule& s);

}  // namespace zerosim::model
