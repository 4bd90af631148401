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
// bandwidth, and covers the ring graph only, so the tree and NVLSTree graphs are taken to reach the ring's bus
// bandwidth (an assumption, docs/nccl_points.md).
#pragma once

#include "model/cluster_spec.h"
#include "model/collective_time.h"
#include "model/schedule.h"

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

// One collective of a training schedule, as both the analytic model (EvaluateAnalytic) and the SimGrid
// replay (sim/replay.cc) time it. An all-reduce whose communicator is every GPU of the cluster
// (GroupKind::kGlobal: FSDP NO_SHARD's gradient all-reduce; GroupKind::kReplica of shard groups of one rank:
// MiCS with mics_shard_size = 1, the same communicator) is NCCL's tuner's pick, EstimateAllReduce; any
// other collective, and an all-reduce over a smaller communicator (HSDP's and MiCS's replica groups, whose
// NCCL trees ZeroSim does not model: EstimateAllReduce takes the cluster as the communicator), is
// EstimateCollective's ring. The tuner's result is re-expressed on the ring the replay runs (collective
// plan: 2(g-1) ring steps): params' latencies are the ring's per-step latencies scaled so that base +
// intra_steps x intra + inter_steps x inter = latency_s, and params.bandwidth_factor =
// TransferSeconds(traffic, c, 1) / transfer_s, so ring flows at that factor take transfer_s on an idle
// fabric. algorithm and protocol stay the tuner's (a tree or NVLS pick is replayed as ring flows at the
// tuner's time, not as the tree's or NVLS's own flows).
CollectiveTime EstimateScheduledCollective(const CollectiveSpec& s, const ClusterSpec& c);

}  // namespace zerosim::model
