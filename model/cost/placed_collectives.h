// A schedule's collectives placed on a cluster: what the engines derive of each collective class
// (Schedule::collective_classes) once per evaluation, since the schedule itself carries no cluster
// (schedule.h). Both engines, the invariants and the reported volumes read these, so that they time and
// count every collective alike.
#pragma once

#include <string>
#include <vector>

#include "model/cost/collective_time.h"
#include "model/cost/nccl_allreduce.h"
#include "model/placement/traffic.h"
#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

struct PlacedCollective {
  Traffic ring;         // CollectiveTraffic: the placement's ring or all-to-all (traffic.h)
  CollectiveTime time;  // EstimateScheduledCollective: NCCL's tuner's pick for a tuned all-reduce
  Traffic wire;         // WireTraffic: the bytes the links carry (the tuned algorithm's, else `ring`)
  TierScale tier;       // WireTierScale: wire over ring per tier (1 and 1 but for tuned all-reduces)
  double sm_share = 0;  // CollectiveSmShare: the share of each member GPU's SMs its kernels hold
  bool tuned = false;   // IsTunedAllReduce
};

// The placement of every collective class of `s` on `c`, by class index. Preconditions: the schedule was
// built for the cluster's shape (Schedule::nodes, gpus_per_node).
std::vector<PlacedCollective> PlaceCollectives(const Schedule& s, const ClusterSpec& c);

// "" when `s` was built for the shape of `c` (nodes x GPUs per node), else the mismatch in words: a schedule
// placed on a cluster of another shape would place its groups wrongly.
std::string ScheduleShapeMismatch(const Schedule& s, const ClusterSpec& c);

// The schedule's bytes per tier and purpose on `c`, what the reports show and the engines must conserve:
// SumTraffic (every collective as its placement's ring) with each tuned all-reduce counted at its wire
// bytes instead.
TierVolumes WireVolumes(const Schedule& s, const ClusterSpec& c);
// The same from the schedule's classes already placed (`placed`: PlaceCollectives(s, c)).
TierVolumes WireVolumes(const Schedule& s, const std::vector<PlacedCollective>& placed);

}  // namespace zerosim::model
