// Where a collective's bytes go: per link tier, for a group placed on a cluster. The single place
// ZeroSim derives communication volumes (BuildSchedule stores the result in each collective op).
//
// Placement and algorithms (NCCL's):
//  - Ring all-gather / reduce-scatter over g ranks moves (g - 1) chunks of buffer/g out of every rank,
//    to its ring successor. Global rings run node-major (the N local ranks, then the next node), so a
//    ring over K > 1 nodes has K cross-node edges and g - K intra-node edges; NCCL's channels spread the
//    cross-node edges over the node's NICs. Latency steps follow NCCL's tuning model: g - 1 steps of
//    which K - 1 cross nodes.
//  - All-to-all sends buffer/g to every other member (the rank's own slice stays put): within a node over
//    the GPU ports, across nodes through the NICs (all N local ranks of a node at once).
#pragma once

#include "model/cluster_spec.h"
#include "model/schedule.h"

namespace zerosim::model {

// Number of ranks in `group` on `cluster` (hpz_size used for GroupKind::kHpz).
int GroupSize(GroupKind group, const ClusterSpec& cluster, int hpz_size);

// The traffic of one collective of `kind` over `group` with per-rank `buffer_bytes`.
Traffic CollectiveTraffic(CollectiveKind kind, GroupKind group, int group_size, double buffer_bytes,
                          const ClusterSpec& cluster);

// Cross-node and intra-node bytes of a whole schedule, per purpose, summed over all GPUs (BuildSchedule
// stores the result in Schedule::volumes).
TierVolumes SumTraffic(const Schedule& s);

}  // namespace zerosim::model
