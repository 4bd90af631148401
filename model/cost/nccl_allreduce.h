// One all-reduce as NCCL's tuner models it (src/graph/tuning.cc, ncclTopoTuneModel + ncclTopoGetAlgoTime,
// read at each release tag; nccl_allreduce.cc names the lines): every algorithm NCCL offers for the
// communicator, each with its three protocols, and the one with the smallest modelled time wins (NCCL's
// topoGetAlgoInfo).
//   Ring     the per-tier ring of EstimateCollective, plus the all-reduce-only refinements of tuning.cc that
//            EstimateCollective (training) does not apply: the ring "plateau" factor on Simple latency across
//            nodes, the per-step network overhead floor (2.18 on), LL at 1/2 of the bus bandwidth (2.21 on)
//            and NCCL's cap on LL bus bandwidth (llMaxBws).
//   Tree     double binary tree across nodes, chain inside: NCCL's tree latency table and its tree bandwidth
//            factors (0.92; LL 1/3.8; LL128 7/9 on one node, 120/128 across), algorithm bandwidth half the
//            bus bandwidth, and treeCorrectionFactor by size.
//   NVLS     single-node NVLink SHARP (NvlsAllReduceSeconds, collective_time.h).
//   NVLSTree NVLS inside each node, a tree of nodes across them (2.18 on, Hopper and later, more than one
//   node).
// The bus bandwidth NCCL's tables scale is ZeroSim's own ring bus bandwidth for the cluster (TransferSeconds
// at factor 1): ZeroSim's channel search (nccl_channels.h) sets how many CTAs a collective holds, not its
// bandwidth, and covers the ring graph only, so the tree and NVLSTree graphs are taken to reach the ring's
// bus bandwidth (an assumption, docs/nccl_points.md).
#pragma once

#include "model/cost/collective_time.h"
#include "model/placement/traffic.h"
#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

// The algorithms the tuner may take (NCCL_ALGO); a bit set.
enum NcclAlgorithm : unsigned {
  kNcclRing = 1u,
  kNcclTree = 2u,
  kNcclNvls = 4u,
  kNcclNvlsTree = 8u,
  kNcclAllAlgorithms = 15u,
};

// The ring all-reduce of `bytes` per rank (`ring`: its traffic, CollectiveTraffic of kAllReduce over all
// GPUs), fastest protocol: EstimateCollective's latency and transfer per protocol with tuning.cc's all-reduce
// refinements (plateau, network overhead floor, LL factor and cap by release). algorithm "Ring".
CollectiveTime RingAllReduce(const Traffic& ring, double bytes, const ClusterSpec& c);

// NCCL's tree all-reduce, fastest protocol, algorithm "Tree". latency = baseLat + 2 ((ppn - 1) intraLat +
// floor(log2 nodes) interLat) from the release's tree tables; transfer = bytes / (0.5 x bus bandwidth x the
// protocol's tree factor x treeCorrectionFactor). seconds 0 where the release predates ZeroSim's tree tables
// (NCCL < 2.8) or the communicator has one rank.
CollectiveTime TreeAllReduce(const Traffic& ring, double bytes, const ClusterSpec& c);

// NCCL's NVLSTree all-reduce (Simple only), algorithm "NVLSTree": latency = baseLat + intraLat + 2 floor(log2
// nodes) interLat (NVLSTree tables by release); transfer = the larger of the single-node NVLS transfer and
// the node's network bytes (bytes on two nodes, 2 x bytes beyond: tuning.cc's bwInter / 2) over its NICs at
// NCCL's 5/6. seconds 0 where NCCL offers none: one node, a GPU without NVLS, NCCL < 2.18.
CollectiveTime NvlsTreeAllReduce(double bytes, const ClusterSpec& c);

// NCCL's treeCorrectionFactor for protocol 0 LL, 1 LL128, 2 Simple at `bytes` (index floor(log2(bytes / 64)),
// 1 outside the table's 64 B .. 256 MiB), of release minor `minor` (2.8-2.9 and 2.10 on differ in LL128).
double TreeCorrectionFactor(int protocol, double bytes, int minor);

// The all-reduce NCCL's tuner picks among `algorithms` (NcclAlgorithm bits; kNcclRing alone is
// NCCL_ALGO=Ring): the smallest time of RingAllReduce, TreeAllReduce, single-node NVLS and NvlsTreeAllReduce
// where each is offered. The ring is always offered.
CollectiveTime EstimateAllReduce(const Traffic& ring, double bytes, const ClusterSpec& c,
                                 unsigned algorithms = kNcclAllAlgorithms);

// Whether `s` is timed as NCCL's tuner picks it (EstimateAllReduce over TunerView(s, c)): an all-reduce
// whose communicator is every GPU of the cluster (GroupKind::kGlobal: FSDP NO_SHARD's gradient all-reduce;
// GroupKind::kReplica of shard groups of one rank: MiCS with mics_shard_size = 1, the same communicator), or
// a tensor-parallel group inside one node (GroupKind::kTensor, t > 1 dividing the node's GPUs: Megatron's
// row/column-parallel all-reduces, where NVLS on 4 or 8 Hopper GPUs beats the ring). Any other collective,
// and an all-reduce over another smaller communicator (HSDP's and MiCS's replica groups and a TP group across
// nodes, whose NCCL trees ZeroSim does not model), is EstimateCollective's ring.
bool IsTunedAllReduce(const CollectiveSpec& s, const ClusterSpec& c);

// The cluster NCCL's tuner sees for the communicator of a tuned all-reduce `s`: `c` itself where the
// communicator is every GPU; for a TP group inside a node, one node of t GPUs with c's links and library
// (NCCL builds a communicator's topology from its own ranks, src/graph/topo.cc ncclTopoGetSystem, so the
// tuner's chain length, LL cap and NVLS rule (transport/nvls.cc: more than two GPUs) count t GPUs).
ClusterSpec TunerView(const CollectiveSpec& s, const ClusterSpec& c);

// How the bytes of NCCL's `algorithm` ("Ring", "Tree", "NVLS", "NVLSTree") for an all-reduce of `bytes` per
// rank over every GPU differ from its ring's (`ring`, CollectiveTraffic of kAllReduce over all GPUs), per
// tier: the factor by which each of the ring's flows on that tier carries the algorithm's bytes, chosen so
// that the busiest link of the tier carries what the algorithm puts on it.
//   Ring      1 and 1.
//   Tree      P / (P - 1) on both tiers: every link of the chain inside the node and of the double binary
//             tree across nodes carries 2 x bytes one way (reduce up, broadcast down; each node is inner in
//             one tree of half the buffer and a leaf in the other), the ring's links 2 (P-1)/P x bytes; the
//             factor NCCL's tuner models as the tree's algorithm bandwidth of half its bus bandwidth.
//   NVLS      inside the node bytes (1 + 1/G) per GPU port and direction (NvlsAllReduceSeconds: scatter into
//             the multicast buffer, multimem reduce of the rank's slice, gather) over the ring's
//             2 (G-1)/G x bytes.
//   NVLSTree  the same inside each node; across nodes bytes per node on two nodes and 2 x bytes beyond
//             (NvlsTreeAllReduce) over the ring's 2 (P-1)/P x bytes per node.
// Totals (intra_total_bytes, cross_total_bytes) follow the ring's flow pattern at these factors.
struct TierScale {
  double intra = 1;
  double cross = 1;
};
TierScale AllReduceTierScale(const Traffic& ring, double bytes, const char* algorithm, const ClusterSpec& c);

// `ring` with each tier's bytes multiplied by `scale`; ring_rank_bytes (what NCCL's ring bus cap applies
// to) scaled on the tree, 0 for the NVLS algorithms, which are not rings. Steps stay the ring's: the replay
// runs the ring's steps, carrying the algorithm's latency (EstimateScheduledCollective).
Traffic ScaleTraffic(const Traffic& ring, const TierScale& scale, const char* algorithm);

// One collective of a training schedule, as both the analytic model (EvaluateAnalytic) and the SimGrid
// replay (sim/replay.cc) time it: a tuned all-reduce (IsTunedAllReduce) is NCCL's tuner's pick,
// EstimateAllReduce; any other collective is EstimateCollective's ring. The tuner's result is re-expressed
// on the ring the replay runs (collective plan: 2(g-1) ring steps): params' latencies are the ring's
// per-step latencies scaled so that base + intra_steps x intra + inter_steps x inter = latency_s, and
// params.bandwidth_factor = TransferSeconds(WireTraffic, c, 1) / transfer_s, so the ring's flows, each
// carrying the algorithm's bytes of its tier (AllReduceTierScale), at that factor take transfer_s on an
// idle fabric. Where those bytes need longer on the links than the tuner's transfer (NCCL's model does not
// see a fat tree's oversubscribed uplinks), transfer_s is theirs: the factor is at most 1, and no algorithm
// moves its bytes faster than the links allow.
// algorithm and protocol stay the tuner's.
// `placement`: the schedule's (placement.h), on whose cluster `c` below is.
CollectiveTime EstimateScheduledCollective(const CollectiveSpec& s, const Placement& placement);

// The bytes `s` puts on each tier on `c`: CollectiveTraffic(s, c) (the placement's ring), or for a tuned
// all-reduce the algorithm the tuner picked (`tuned`: EstimateScheduledCollective(s, c)), ScaleTraffic of its
// AllReduceTierScale. What the engines load the links with, the invariants bound the time by, and the
// report counts.
Traffic WireTraffic(const CollectiveSpec& s, const CollectiveTime& tuned, const Placement& placement);
// Its per-tier factors over CollectiveTraffic(s, c): AllReduceTierScale of the tuner's pick, 1 and 1 for any
// other.
TierScale WireTierScale(const CollectiveSpec& s, const CollectiveTime& tuned, const Placement& placement);
Traffic WireTraffic(const CollectiveSpec& s, const Placement& placement);  // times s itself

}  // namespace zerosim::model
