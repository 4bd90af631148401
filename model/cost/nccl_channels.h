// How many channels NCCL's collectives run on, and the share of the GPU's SMs their kernels hold.
//
// A channel is one CTA of NCCL's kernel, resident for the whole collective (enqueue.cc: the launch's
// gridDim.x is the op's nChannels, blockDim.x its nThreads, 544 for a Simple ring; makefiles/common.mk builds
// the kernels with -maxrregcount=96, so such a CTA may hold 52,224 of an SM's 65,536 registers): each channel
// is taken as one SM. Compute running beside a collective keeps (SMs - channels) / SMs of the GPU.
//
// The count is what NCCL computes, read at the tags of the releases ZeroSim carries (v2.8.4-1 for [nccl]
// release 2.7-2.9, v2.12.10-1 for 2.10-2.24, v2.27.7-1 for 2.25 on and for a release string that does not
// parse):
//  1. The ring graph search (src/graph/search.cc, ncclTopoCompute, pattern RING): per-channel speeds from the
//     release's speed arrays (the intra-node or inter-node one; Hopper's and Blackwell's own from 2.25 here),
//     starting at the fastest the GPU's path to its NIC (or, inside a node, its NVLink) allows; at each speed
//     as many channels as the links can carry (ncclTopoSearchRecNet / followPath subtract the speed from
//     every link a channel crosses: each NIC, its PCIe link, each GPU's PCIe link and NVLink port); the graph
//     with the most channels x speed wins; the search stops at maxChannels = MAXCHANNELS/2 ("perfect"), once
//     channels x speed reaches the GPU's total NVLink (or PCIe) width, or when the next speed is below 0.49
//     of the best one.
//  2. Its channel duplication (search.cc, end of ncclTopoCompute / ncclTopoDupChannels): a graph of speed
//     >= 25 GB/s is doubled (up to maxChannels), except from 2.19 on Hopper and later at speed < 50 with more
//     than 4 channels.
//  2b. ZeroSim: no more ring channels than the bandwidth the communicator's rings get in ZeroSim needs at
//     the graph's speed, where a bound NCCL's search does not see holds them below its links: NCCL's ring
//     bus-bandwidth cap (NcclRingBusBandwidthCap), which the collective's time applies, and the uplinks of
//     the fat-tree leaves the communicator spans (issue 39: twice the NVLink of an A100 doubled its CTAs for
//     a ring no faster). Where neither binds, as on every shipped topology, the count is NCCL's.
//  3. ncclTopoPostset (src/graph/connect.cc): channels doubled (up to MAXCHANNELS: 32, 64 from 2.25); 2.25
//  on:
//     doubled again on Hopper and later across nodes when the graph's speed exceeds 45 GB/s and fewer than 16
//     channels remain; then capped at NCCL_MAX_NCHANNELS ([nccl] max_channels); 2.25 on, raised to the NVLS
//     channel count where NVLS exists (Hopper and later NVSwitch nodes, more than two GPUs in the node:
//     transport/nvls.cc NVLS_NCHANNELS_SM90 16, SM100 24 on one node and 32 across).
//  4. Per collective (src/enqueue.cc, getAlgoInfo / topoGetAlgoInfo): while the op's bytes are below
//     channels x threads x the protocol's threshold, one channel fewer (Simple 64 bytes per thread, 512
//     threads (256 when the ring graph's channels x speed is at most PCI_WIDTH 12 GB/s: tuning.cc); LL 8 x
//     ranks on rings, 512 threads; LL128 8, 640 threads). NVLS runs on the NVLS channels. All-to-all is
//     grouped send/recv on the p2p channels (src/graph/paths.cc ncclTopoComputeP2pChannels: the
//     communicator's channels rounded up to a power of two), every peer pair taking its own.
// Link widths are NCCL's own constants (src/graph/topo.h: NVLink per link by architecture, PCIe from the
// link's generation and width, topo.cc: width x GT/s rate / 80; the NIC its speed / 8000 GB/s), each at most
// what ZeroSim's link delivers (line rate x the tier's [nccl] efficiency). With efficiencies of 1 (every
// shipped topology but the paper's fitted cluster) that is NCCL's search as NCCL runs it. Where a fitted
// efficiency makes ZeroSim's link slower than NCCL's constant, channels follow the bandwidth the collective
// gets in ZeroSim, so channels x the collective's time stays the SM time NCCL needs to move its bytes at its
// per-channel speed instead of growing with a slowness NCCL's own kernels do not show (on the paper cluster,
// NCCL alone runs NVSwitch at >= 0.52 of line rate against the fitted 0.148: docs/fitted_parameters.md).
// Not modelled: the search's timeouts, crossNic and path-type passes (homogeneous nodes: every GPU has a NIC
// at PIX distance), the tree graph (taken to find as many channels as the ring, which bounds it), NVLS and
// CollNet graphs other than their channel counts, and the Hopper speed arrays of 2.17-2.24.
#pragma once

#include "model/cost/collective_time.h"
#include "model/placement/placement.h"
#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

// One NCCL communicator as NCCL's topology search sees it.
struct NcclCommShape {
  int gpus_per_node = 1;  // the communicator's GPUs in each node it touches
  int nodes = 1;          // nodes the communicator spans
  // NICs (rails) the communicator's GPUs of one node leave through (placement.h RailOf of each member);
  // 0: the contiguous share, nic.count x gpus_per_node / N (at least 1).
  int rails = 0;
};

// The communicator one instance of `group` (group_size ranks) forms where `placement` puts it (placement.h:
// with the layout's t > 1 on the tp-dp-pp grid, a TP rank's DP group has N' = N / t members a node, strided
// by t).
NcclCommShape CommShapeOf(GroupKind group, int group_size, const Placement& placement);
// The communicator of collective `s` of a schedule placed as `placement`.
NcclCommShape CommShapeOf(const CollectiveSpec& s, const Placement& placement);

struct NcclCommChannels {
  int channels = 1;             // comm->nChannels: the CTAs of a collective large enough to use them all
  int p2p_channels = 1;         // comm->p2pnChannels: the CTAs of a grouped send/recv (all-to-all)
  int nvls_channels = 0;        // comm->nvlsChannels (0: no NVLS)
  int graph_channels = 1;       // the ring graph's channels (before connect.cc doubles them)
  double graph_speed_GBps = 0;  // the ring graph's per-channel speed (bwIntra), GB/s
};

// NCCL's channels for a communicator of `shape` on `c` (steps 1-3 above). [nccl] channels, where set, fixes
// channels and p2p_channels (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS).
NcclCommChannels CommChannels(const ClusterSpec& c, const NcclCommShape& shape);

// The CTAs one collective of the schedule launches (step 4), given the algorithm and protocol NCCL's tuner
// took for it (`t`, EstimateScheduledCollective). At least 1.
int CollectiveChannels(const CollectiveSpec& op, const CollectiveTime& t, const Placement& placement);

// Fraction of a GPU's SMs `channels` CTAs hold: channels / SMs, at most 1 (0 for a GPU without an SM count).
double SmShare(int channels, const ClusterSpec& c);

// The share of the GPU one collective's kernel holds while it runs: SmShare(CollectiveChannels(op, t,
// placement), placement.cluster).
double CollectiveSmShare(const CollectiveSpec& op, const CollectiveTime& t, const Placement& placement);

// Channels of the communicator of all GPUs of `c` (the global ring: ZeRO-3's gathers, the whole-cluster
// all-reduce NCCL's tuner times), and their SM share: what the report prints as the cluster's NCCL channels.
int NcclChannels(const ClusterSpec& c);
double NcclSmShare(const ClusterSpec& c);

}  // namespace zerosim::model
