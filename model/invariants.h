// Invariants every evaluated variant satisfies, whatever the engine. A violation is a bug in ZeroSim (or
// an input that slipped past model/feasibility.h), never a result: the studies stop with an error naming
// the scenario and the variant instead of printing the row.
//
//   1. Every number of the report is finite and non-negative, and the iteration takes time (> 0).
//   2. TFLOPs per GPU <= the GPU's peak, its FP8 peak with FP8 GEMMs (the Megatron count over the iteration
//   time cannot beat the
//      datasheet: every op's time is at least its FLOPs over the peak, model/op_cost.h).
//   3. Iteration time >= the compute stream's work (compute + optimizer), and >= the link-time lower bound:
//      on every queue, collectives run one after another, each moving at least its busiest node's NIC
//      bytes through that node's NICs (Traffic::max_node_nic_bytes / ClusterSpec::node_nic_Bps) and its
//      busiest GPU port's bytes through that port (max_gpu_port_bytes / intra.bandwidth_Bps). The sim
//      engine shares links between queues, so there the bound sums over all queues.
//   4. Bytes are conserved per tier and purpose between the schedule (Schedule::volumes, derived in
//      model/traffic.h) and the engine's count.
//   5. The memory parts sum to the total.
#pragma once

#include <string>

#include "model/analytic.h"
#include "model/cluster_spec.h"
#include "model/report.h"
#include "model/schedule.h"
#include "model/status.h"

namespace zerosim::model {

// Relative slack of the comparisons above (floating-point sums in different orders).
inline constexpr double kInvariantTolerance = 1e-6;

// "" when `r` (assembled from `s`, timed as `t`, with `engine_volumes` counted by the engine) satisfies the
// invariants; otherwise every violation, "; "-separated.
std::string CheckInvariants(const VariantReport& r, const ClusterSpec& c, const Schedule& s, const Timing& t,
                            const TierVolumes& engine_volumes);

// Link-time lower bound on the iteration (3. above); `shared_links` sums over all queues (sim engine),
// otherwise the busiest queue counts.
double LinkTimeLowerBound(const ClusterSpec& c, const Schedule& s, bool shared_links);

// An error naming the scenario, the variant and its engine when `r` violates an invariant (its
// `invariant_violation`); ok otherwise.
Status InvariantStatus(const std::string& scenario, const VariantReport& r);

}  // namespace zerosim::model
