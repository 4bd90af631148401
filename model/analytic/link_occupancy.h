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
// at the collective's protocol factor). The tier shares itself as SimGrid's max-min sharing does (sim/,
// CM02: k + 1 flows on a link get 1/(k + 1) of it each): the collective moves at its full rate in the tier's
// idle time from `start` on, at 1/(k + 1) while k collectives booked before it are still on the tier, and
// each of those gives up its part of that time: it finishes later by as much, and the tier carries those
// bytes in its next idle time. Reserve reports the collectives it delayed, and the evaluator moves their
// finish for the ops it has not yet timed (one pass in issue order: a collective's dependents are mostly
// issued after the collectives that overlap it). So the demands on one tier are booked in full and the
// iteration lasts at least until the tier falls idle (LastBusyEnd): the link-time bound of invariants.h
// holds by construction. A collective alone (or after the previous one on its tier has finished, as on one
// NCCL stream) finds the tier idle and keeps its uncontended time. Issue 39: served first come first served
// (in idle time only), a tensor-parallel all-reduce that blocks compute waited for the whole rest of a
// data-parallel gather booked before it, where the replay shares the NVLink ports: up to 10% apart.
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

  // A collective booked before whose bytes a later one delayed (Reserve's sharing): it finishes at end_s.
  struct Delayed {
    int owner;
    double end_s;
  };

  // Books `demand` starting at `start_s` on every tier (sharing each with what is booked there) and returns
  // when the last tier's share has been served (start_s when every demand is 0). `owner` names the
  // collective (the evaluator's op index); the collectives booked before that it slowed are appended to
  // `delayed` (if given) with their new ends, for the evaluator to move their finish.
  double Reserve(double start_s, const Demand& demand, int owner = -1,
                 std::vector<Delayed>* delayed = nullptr);

  // Seconds booked on `tier` so far (the sum of the demands).
  double BusySeconds(TrafficTier tier) const;

  // When the last tier falls idle (0 when nothing is booked): the bytes earlier collectives gave up to later
  // ones move until then, so the iteration lasts at least as long.
  double LastBusyEnd() const;

 private:
  // Books `demand_s` of tier `tier` from `start_s` on, shared with what is booked there; returns when it
  // has been served.
  double ReserveOn(int tier, double start_s, double demand_s, int owner, std::vector<Delayed>* delayed);

  // One collective's transfer on a tier: from its start to when its bytes got through.
  struct Booking {
    int owner;
    double begin_s;
    double end_s;
  };
  // Per tier: disjoint busy intervals [begin, end), sorted, adjacent ones merged (what the tier carries).
  std::array<std::vector<std::pair<double, double>>, kNumTrafficTiers> busy_;
  // Per tier: the bookings that may still be running (those that ended before a later start are dropped).
  std::array<std::vector<Booking>, kNumTrafficTiers> bookings_;
};

// What one collective of traffic `t`, timed as `time` (its protocol's bandwidth factor), needs of each tier:
// the tier's term of TransferSeconds (collective_time.h): bytes through the tier's busiest link / (link
// bandwidth x tier efficiency x bandwidth factor), at most time.seconds. 0 on a tier it does not cross.
LinkOccupancy::Demand CollectiveLinkDemand(const Traffic& t, const ClusterSpec& c,
                                           const CollectiveTime& time);

}  // namespace zerosim::model
