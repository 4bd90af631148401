// Time of one collective running alone on the fabric (no other traffic): NCCL's own cost model
// (src/graph/tuning.cc) over ZeroSim's per-tier traffic. For each protocol (LL, LL128, Simple):
//   latency = base + intra_steps * intra_step + inter_steps * inter_step
//   transfer = max over tiers of (bytes through the tier's busiest link) / (link bandwidth
//              * tier efficiency * protocol bandwidth factor), and for rings at least the bytes each rank
//              sends over NCCL's per-architecture cap on ring bus bandwidth (NcclRingBusBandwidthCap)
// and, as NCCL does, the fastest protocol wins. The bottleneck tier governs; a ring moves (g-1)/g of the
// buffer over every ring link. All-to-all is a single step of its tier.
#pragma once

#include "model/cluster_spec.h"
#include "model/schedule.h"

namespace zerosim::model {

struct CollectiveTime {
  double seconds = 0;
  double latency_s = 0;   // the chosen protocol's latency term
  double transfer_s = 0;  // the chosen protocol's bandwidth term
  const char* protocol = "";
  NcclProtocol params;  // the chosen protocol's cost parameters (the SimGrid replay applies them per step)
};

CollectiveTime EstimateCollective(const Traffic& t, const ClusterSpec& c);

// Bandwidth of one fat-tree leaf's uplinks together, per direction.
double LeafUplinkBps(const ClusterSpec& c);

}  // namespace zerosim::model
