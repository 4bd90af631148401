// Time of one collective running alone on the fabric (no other traffic): NCCL's own cost model
// (src/graph/tuning.cc) over ZeroSim's per-tier traffic. For each protocol (LL, LL128, Simple):
//   latency = base + intra_steps * intra_step + inter_steps * inter_step
//   transfer = max over tiers of (bytes through the tier's busiest link) / (link bandwidth
//              * tier efficiency * protocol bandwidth factor), and for rings at least the bytes each rank
//              sends over NCCL's per-architecture cap on ring bus bandwidth (NcclRingBusBandwidthCap)
// and, as NCCL does, the fastest protocol wins. The bottleneck tier governs; a ring moves (g-1)/g of the
// buffer over every ring link. All-to-all is a single step of its tier.
#pragma once

#include "model/placement/traffic.h"
#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

struct CollectiveTime {
  double seconds = 0;
  double latency_s = 0;   // the chosen protocol's latency term
  double transfer_s = 0;  // the chosen protocol's bandwidth term
  const char* protocol = "";
  // NCCL's algorithm: "Ring" (EstimateCollective), or "Tree", "NVLS", "NVLSTree" (nccl_allreduce.h).
  const char* algorithm = "Ring";
  NcclProtocol params;  // the chosen protocol's cost parameters (the SimGrid replay applies them per step)
};

CollectiveTime EstimateCollective(const Traffic& t, const ClusterSpec& c);

// EstimateCollective's bandwidth term for a protocol of `bandwidth_factor`: the largest over tiers of the
// bytes through the tier's busiest link / (link bandwidth x tier efficiency x bandwidth_factor), and for
// rings the bytes each rank sends / (NcclRingBusBandwidthCap x bandwidth_factor). At factor 1 it is the
// ring's time at its bus bandwidth, which nccl_allreduce.h scales by NCCL's per-algorithm factors.
double TransferSeconds(const Traffic& t, const ClusterSpec& c, double bandwidth_factor);

// NCCL's latency of one network step of a protocol whose table value is `table_s` (hwLat[NET]), with the
// plugin's reported latency lib.net_latency_s: before 2.12 the tuner ignores it; 2.12 to 2.17 the plugin's
// value replaces the table's when set (tuning.cc v2.16.5-1: `graphs[a]->latencyInter ?
// graphs[a]->latencyInter : hwLat[NET]`); from 2.18 it adds to it, twice for Simple ("Also add the flush
// extra latency"). table_s when the plugin reports 0.
double NetworkStepLatencySeconds(double table_s, bool simple, const CollectiveLibrary& lib);

// Bandwidth of one fat-tree leaf's uplinks together, per direction.
double LeafUplinkBps(const ClusterSpec& c);

// NVLink SHARP (NCCL's NVLS algorithm) all-reduce of `bytes` per rank over the `ranks` GPUs of one NVSwitch
// node, seconds; 0 where NCCL offers no NVLS: more than one node (multi-node NVLS needs CollNet or NVLSTree,
// not modelled), two ranks or fewer, a GPU older than Hopper, or an NCCL release before 2.17. Time = NCCL's
// NVLS latency (NvlsLatencySeconds) + the wire bytes of NCCL's single-node NVLS kernel, bytes * (1 + 1/ranks)
// per GPU and direction, over NvlsEfficiency(c) * c.intra.bandwidth_Bps (collective_time.cc says where each
// comes from).
double NvlsAllReduceSeconds(double bytes, int ranks, const ClusterSpec& c);

// NCCL's modelled NVLS latency for c.nccl.release (tuning.cc, Simple protocol): 2.17: 0; 2.18-2.20: 23 us;
// 2.21 on: 25 us. A release string that does not parse as 2.MINOR counts as current (25 us).
double NvlsLatencySeconds(const ClusterSpec& c);

// Fraction of the NVLink line rate NVLS all-reduce's wire bytes move at: Hopper 0.6875, Blackwell
// 0.6875 * 0.74 / 0.85; 0 for other GPUs and off NVSwitch (no NVLS).
double NvlsEfficiency(const ClusterSpec& c);

}  // namespace zerosim::model
