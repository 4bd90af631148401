// Invariants every evaluated variant satisfies, whatever the engine. A violation is a bug in ZeroSim (or
// an input that slipped past model/spec/feasibility.h), never a result: the studies stop with an error naming
// the scenario and the variant instead of printing the row.
//
//   0. The schedule was built for the cluster's shape (nodes x GPUs per node).
//   1. Every number of the report is finite and non-negative, and the iteration takes time (> 0).
//   2. TFLOPs per GPU <= the GPU's peak, its FP8 peak with FP8 GEMMs (the Megatron count over the iteration
//   time cannot beat the
//      datasheet: every op's time is at least its FLOPs over the peak, model/cost/op_cost.h).
//   3. Iteration time >= the compute stream's work (compute + optimizer), and >= the link-time lower bound:
//      every tier's links carry the bytes of the collectives of all queues together (the queues share the
//      NICs, NVSwitch ports and leaf uplinks: the sim engine's SimGrid links, the analytic engine's
//      link_occupancy.h), so per tier the sum over all collectives of the busiest node's NIC bytes over that
//      node's NICs (Traffic::max_node_nic_bytes / ClusterSpec::node_nic_Bps), of the busiest GPU port's
//      bytes over that port (max_gpu_port_bytes / intra.bandwidth_Bps) and of the busiest leaf's uplink
//      bytes over its uplinks (max_leaf_uplink_bytes / LeafUplinkBps) is a lower bound, on both engines.
//   4. Bytes are conserved per tier and purpose between the schedule placed on the cluster (WireVolumes,
//      derived in model/placement/traffic.h and nccl_allreduce.h) and the engine's count.
//   5. The memory parts sum to the total.
#pragma once

#include <string>
#include <vector>

#include "model/analytic/analytic.h"
#include "model/cost/placed_collectives.h"
#include "model/placement/traffic.h"
#include "model/report/report.h"
#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"
#include "model/status.h"

namespace zerosim::model {

// Relative slack of the comparisons above (floating-point sums in different orders).
inline constexpr double kInvariantTolerance = 1e-6;

// "" when `r` (assembled from `s`, timed as `t`, with `engine_volumes` counted by the engine) satisfies the
// invariants; otherwise every violation, "; "-separated.
std::string CheckInvariants(const VariantReport& r, const ClusterSpec& c, const Schedule& s, const Timing& t,
                            const TierVolumes& engine_volumes);

// Link-time lower bound on the iteration (3. above): the largest over tiers of the tier's busiest-link bytes
// of every collective of every queue over the link's bandwidth.
double LinkTimeLowerBound(const ClusterSpec& c, const Schedule& s);
// The same from the schedule's classes already placed on `c` (placed_collectives.h PlaceCollectives).
double LinkTimeLowerBound(const ClusterSpec& c, const Schedule& s,
                          const std::vector<PlacedCollective>& placed);

// An error naming the scenario, the variant and its engine when `r` violates an invariant (its
// `invariant_violation`); ok otherwise.
Status InvariantStatus(const std::string& scenario, const VariantReport& r);

}  // namespace zerosim::model
