// Link occupancy shared by the analytic engine's queues (issue 20, item 17). The analytic engine times each
// collective as NCCL's cost model does for a collective alone on the fabric (collective_time.h). With
// several hardware queues (CUDA_DEVICE_MAX_CONNECTIONS > 1, model/spec/strategy.h) collectives on different
// NCCL streams run at the same time (HSDP's shard-group gathers beside its replica all-reduce, qgZ's
// all-to-alls beside hpZ's gathers) and share the same NICs, GPU ports and leaf uplinks: together they cannot
// move more than the links carry. This class keeps, per link tier (the busiest node's NICs together, the
// busiest GPU's NVSwitch port, the busiest leaf's uplinks: the tiers of Traffic), the time intervals the tier
// is busy with the collectives timed so far.
//
// Mechanism: a collective starting at `start` needs `demand_s` of the tier at its full rate (its bytes
// through that tier's busiest link over the rate NCCL reaches there alone: TransferSeconds's per-tier term
// at the collective's protocol factor). The tier serves it in the tier's idle time from `start` on, the
// collectives timed before keeping their intervals (a work-conserving link, served in the order the
// evaluator meets the collectives, which is host issue order); the collective's transfer on that tier ends
// when `demand_s` of idle time has passed. So, whatever the overlap, the demands on one tier are disjoint
// intervals and the iteration lasts at least their sum: the link-time bound of invariants.h holds by
// construction. A collective alone (or after the previous one on its tier has finished, as on one NCCL
// stream) finds the tier idle and keeps its uncontended time. It is not max-min sharing (sim/, SimGrid's
// CM02: concurrent flows each get a share): the earlier-issued collective keeps its rate and the later
// one takes all the delay; the sum, and so the iteration when the link is the bottleneck, is the same.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "model/cost/collective_time.h"
#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

// The link tiers a collective's traffic crosses (Traffic: max_node_nic_bytes, max_gpu_port_bytes,
// max_leaf_uplink_bytes).
enum class TrafficTier : int { kNic, kGpuPort, kLeafUplink, kCount };
inline constexpr int kNumTrafficTiers = static_cast<int>(TrafficTier::kCount);

class LinkOccupancy {
 public:
  // Seconds of each tier one collective needs at its full rate.
  using Demand = std::array<double, kNumTrafficTiers>;

  // Books `demand` starting at `start_s` on every tier (each tier's idle time from start_s on) and returns
  // when the last tier's share has been served (start_s when every demand is 0).
  double Reserve(double start_s, const Demand& demand);

  // Seconds booked on `tier` so far (the sum of the demands).
  double BusySeconds(TrafficTier tier) const;

 private:
  // Books `demand_s` of one tier's idle time from `start_s` on; returns when it has been served.
  static double ReserveOn(std::vector<std::pair<double, double>>& busy, double start_s, double demand_s);

  // Per tier: disjoint busy intervals [begin, end), sorted, adjacent ones merged.
  std::array<std::vector<std::pair<double, double>>, kNumTrafficTiers> busy_;
};

// What one collective of traffic `t`, timed as `time` (its protocol's bandwidth factor), needs of each tier:
// the tier's term of TransferSeconds (collective_time.h): bytes through the tier's busiest link / (link
// bandwidth x tier efficiency x bandwidth factor), at most time.seconds. 0 on a tier it does not cross.
LinkOccupancy::Demand CollectiveLinkDemand(const Traffic& t, const ClusterSpec& c,
                                           const CollectiveTime& time);

}  // namespace zerosim::model
