// ClusterSpec: the hardware a training job runs on. Nodes of identical GPUs joined by an intra-node fabric
// (NVSwitch, PCIe switches, or an NVLink mesh), NICs per node, and an inter-node fabric; plus the collective library's cost parameters
// (NCCL's own latency/bandwidth model). All values SI: bytes, seconds, bytes per second, FLOP/s.
// Bandwidths are per direction (full duplex links carry this much each way).
#pragma once

#include <string>
#include <string_view>

namespace zerosim::model {

struct GpuSpec {
  std::string name;       // e.g. "V100-SXM3-32GB"
  double peak_flops = 0;  // dense fp16/bf16 tensor-core peak, FLOP/s (datasheet)
  double hbm_bytes = 0;   // device memory
  double hbm_Bps = 0;     // device memory bandwidth (datasheet)
  int sms = 0;            // streaming multiprocessors (datasheet): GEMM wave quantization, NCCL's SM share
  double fp8_peak_flops =
      0;  // dense FP8 tensor-core peak, FLOP/s (datasheet); 0: the GPU has no FP8 tensor cores
  // Board power limit set below the part's default (`[gpu] power_limit`, nvidia-smi -pl), watts; 0: the
  // default. Lowers the tensor-core clock by the power model (gpu_power.h TensorClockFactor).
  double power_limit_W = 0;
  // Compute capability x 10 (`[gpu] compute_capability`, e.g. 8.9 -> 89), which fixes the architecture NCCL's
  // tuner and the runtime read (GpuComputeCapability); 0: from the name (GpuComputeCapabilityByName).
  int compute_capability = 0;
};

// How a node's GPUs reach each other (`[intra_node] fabric`): "nvswitch", "pcie" or "nvlink_mesh".
enum class IntraFabric {
  kNvSwitch,    // every GPU on NVSwitches through one port of `bandwidth_Bps` (HGX / DGX, NVL72)
  kPcie,        // GPUs behind PCIe switches under one or two CPU sockets (PcieSpec); no NVSwitch
  kNvLinkMesh,  // every GPU pair joined directly by NVLink, `pair_Bps` per pair (HGX A100 4-GPU)
};

// A PCIe-only node (fabric = "pcie"): `gpus_per_node / gpus_per_switch` PCIe switches, split evenly over
// `sockets` CPU sockets, each switch with its GPUs and `nics_per_switch` NICs below it and one uplink to its
// socket's root port; the sockets joined by one inter-socket link (UPI / xGMI, all its lanes together).
// Where NCCL's transport goes (src/graph/paths.cc, ncclTopoCheckP2p and the P2P level): GPUs of one switch
// talk peer-to-peer through it; others through the CPU, via host memory where P2P is off; the links a byte
// crosses are the same either way (model/spec/intra_fabric.h says what the ring reaches over them).
struct PcieSpec {
  double gpu_link_Bps = 0;       // each GPU's link into its switch, per direction
  int gpus_per_switch = 0;       // GPUs below one PCIe switch
  double switch_uplink_Bps = 0;  // a switch's link to its socket's root port, per direction
  int sockets = 1;               // CPU sockets (1 or 2)
  double socket_link_Bps = 0;    // between the two sockets, per direction; unused with one socket
  int nics_per_switch = 0;       // NICs below one PCIe switch (GPUDirect RDMA without crossing the CPU)
};

// A node is one NVLink domain: the GPUs that reach each other over NVLink. NCCL likewise counts a multi-node
// NVLink domain as one node (MNNVL; from NCCL 2.25.2 on GB200, NVIDIA's multi-node NVLink tuning guide). A
// domain may span several trays (boards with their own CPUs and NICs: a GB200 NVL72 rack is 18 trays of 4 GPUs
// behind 9 NVLink switch trays); its NICs sit on the trays, gpus_per_node / trays GPUs and nic.count / trays
// NICs each.
// On a PCIe node or an NVLink mesh, `bandwidth_Bps` is derived by the loader: what one GPU's share of NCCL's
// ring over the whole node reaches at the links' line rate (model/spec/intra_fabric.h IntraRingLineBps), the
// figure every intra-node cost of the analytic engine uses; the SimGrid replay builds the links themselves.
struct IntraNodeSpec {
  IntraFabric fabric = IntraFabric::kNvSwitch;
  double bandwidth_Bps = 0;  // NVSwitch: per GPU port into the switch, per direction; else derived (above)
  int trays = 1;             // trays the NVLink domain spans (1: an HGX/DGX board)
  PcieSpec pcie;             // fabric = kPcie only
  double pair_Bps = 0;       // fabric = kNvLinkMesh only: the NVLink links of one GPU pair, per direction
};

// NICs of one node. GPU g of a node uses NIC floor(g * count / gpus_per_node) (contiguous rails: placement.h
// RailOf).
struct NicSpec {
  int count = 0;
  double bandwidth_Bps = 0;  // per NIC, per direction
};

enum class FabricKind {
  kSingleSwitch,   // every NIC on one non-blocking switch
  kFatTree,        // leaves of `nodes_per_leaf` nodes; leaf uplinks oversubscribed
  kRailOptimized,  // NIC r of every node on rail switch r (rails joined by a non-blocking spine)
};

struct InterNodeSpec {
  FabricKind kind = FabricKind::kSingleSwitch;
  int nodes_per_leaf = 0;       // fat tree only
  double oversubscription = 1;  // fat tree only: leaf downlink / uplink bandwidth (4 means 4:1)
  // Three-level fat tree only (0: two levels): leaves under one pod (aggregation) switch, and the pod's
  // downlink / uplink bandwidth towards the core. The analytic model times the leaf level only; the
  // SimGrid replay builds both.
  int leaves_per_pod = 0;
  double pod_oversubscription = 1;
};

// One NCCL protocol's cost model (NCCL src/graph/tuning.cc): a collective of nsteps ring steps, of
// which nInterSteps cross nodes, takes base + (nsteps - nInter)*intra_step + nInter*inter_step plus its
// bytes over the bus bandwidth times bandwidth_factor.
struct NcclProtocol {
  double base_latency_s = 0;
  double intra_step_latency_s = 0;
  double inter_step_latency_s = 0;
  double bandwidth_factor = 1;  // fraction of the link bandwidth the protocol reaches
};

// The collective library. NCCL picks, per call, the protocol with the smallest modelled time; so do we.
struct CollectiveLibrary {
  NcclProtocol ll;
  NcclProtocol ll128;
  NcclProtocol simple;
  // Achieved fraction of the link bandwidth by large transfers, per tier (protocol overheads aside).
  double intra_bandwidth_efficiency = 1;
  double inter_bandwidth_efficiency = 1;
  // NCCL channels every communicator runs on (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS); each channel is
  // one thread block resident on one SM for the whole collective, so concurrent compute keeps
  // (SMs - channels) / SMs of the GPU. 0: NCCL's own count per communicator and collective
  // (model/cost/nccl_channels.h).
  int channels = 0;
  // NCCL_MAX_NCHANNELS: a cap on NCCL's own count (connect.cc ncclTopoPostset); 0: unset.
  int max_channels = 0;
  // Cap on a ring's bus bandwidth per rank, bytes/s (NcclRingBusBandwidthCap); 0: NCCL's per-architecture
  // value.
  double ring_bus_bandwidth_cap_Bps = 0;
  // NCCL 2.7-2.17 (tuning.cc, ncclTopoTuneModel: `if (nNodes > 1 && p == NCCL_PROTO_LL) intraLat *= 1.8`):
  // LL's intra-node step latency grows by this factor when the communicator spans nodes. 1 from NCCL 2.18 on.
  double ll_multi_node_intra_factor = 1.8;
  // The latency the network plugin reports for its NICs (ncclNetProperties_t.latency, us in NCCL; 0: "not
  // set", as NCCL's own IB and socket transports report). NCCL's tuner puts it on every network step
  // (search.cc: graph->latencyInter = net->net.latency; NetworkStepLatencySeconds says how, by release).
  // aws-ofi-nccl sets it per EC2 platform (src/platform-aws.cpp, e.g. 35 us on p5en and p6-b200).
  double net_latency_s = 0;
  // The NCCL release whose tuning tables these are ([nccl] release; NcclLibraryForRelease).
  std::string release = "2.8";
};

// Defaults: NCCL's tuning model (src/graph/tuning.cc, NCCL 2.7-2.8, the V100-era release): ring
// latencies in microseconds, base {LL 3.6, LL128 10.0, Simple 8.4}, per step over NVLink
// {0.47, 1.9, 3.4}, per step over the network {2.7, 4.0, 9.6}; LL reaches 1/4 of the bandwidth across
// nodes, LL128 0.92.
CollectiveLibrary DefaultNcclLibrary();

// NCCL's ring tables of release `release` ("2.12", "2.18.5", ...; major 2 only), read from
// src/graph/tuning.cc at each release tag (baseLat and hwLat[NVLINK|NET][RING]):
//   2.7-2.11 and 2.14-2.17: the defaults above (network step, Simple: 9.6 us);
//   2.12-2.13: the same but the network step of Simple is 28 us;
//   2.18 on: base {LL 6.6, LL128 14, Simple 8.4}, NVLink step {0.6, 1.9, 3.4}, network step {2.7, 4.0, 14},
//            and no 1.8x on LL's intra-node steps across nodes.
// Bandwidth factors and efficiencies stay as they are. Returns false (lib untouched) for a release it does
// not know.
bool NcclLibraryForRelease(std::string_view release, CollectiveLibrary* lib);

struct ClusterSpec {
  std::string name;
  int nodes = 0;          // NVLink domains (IntraNodeSpec)
  int gpus_per_node = 0;  // GPUs of one NVLink domain
  GpuSpec gpu;
  IntraNodeSpec intra;
  NicSpec nic;
  InterNodeSpec fabric;
  CollectiveLibrary nccl = DefaultNcclLibrary();

  int total_gpus() const { return nodes * gpus_per_node; }
  int gpus_per_tray() const { return gpus_per_node / intra.trays; }
  // All NICs of one node together, per direction.
  double node_nic_Bps() const { return nic.count * nic.bandwidth_Bps; }
};

const char* FabricKindName(FabricKind kind);

// NCCL's cap on a ring's bus bandwidth per GPU architecture, bytes/s: NCCL's tuning model
// (src/graph/tuning.cc, ncclTopoTuneModel: busBw = min(busBw, 235) on Ampere, min(busBw, 370) on Hopper,
// GB/s) - what its rings reach on NVSwitch nodes, below the NVLink line rate (A100 300 GB/s, H100/H200 450
// GB/s per direction). The [nccl] ring_bus_bandwidth_cap setting overrides it; by architecture otherwise
// (GpuComputeCapability: 80 Ampere, 90 Hopper). Other GPUs (Volta, Blackwell), which NCCL's table does not
// cap: the NVLink line rate less NCCL's protocol overhead, 0.8 x c.intra.bandwidth_Bps (S. Jeaugey, NCCL
// maintainer, NVIDIA/nccl-tests #212: "With the protocol overhead (~20%) NCCL can get an effective NVLink
// bandwidth of 370GB/s" of H100's 450 GB/s; NCCL's Ampere and Hopper caps are 0.78 and 0.82 of their line
// rates).
// Off NVSwitch (model/spec/intra_fabric.h, where each rule is sourced): a PCIe node's ring reaches NCCL's
// rating of its PCIe links, kNcclPcieRating (0.75) x c.intra.bandwidth_Bps; an NVLink mesh's, the lower of the
// architecture's cap and 0.8 x c.intra.bandwidth_Bps (the same protocol overhead).
double NcclRingBusBandwidthCap(const ClusterSpec& c);

// The one parser of NCCL release strings: the minor number of "2.MINOR" or "2.MINOR.PATCH[-N]"; -1 for
// anything else (NcclLibraryForRelease refuses those, and minors below 7).
int NcclReleaseMinor(std::string_view release);

// The compute capability x 10 of a GPU named `name`, by the families ZeroSim ships (Blackwell B200/B300/GB200/
// GB300 100; Hopper H100/H200/H800/H20 90; Ada L40/L40S/L4 89; Ampere A100/A800/A10/A30/A40 80; Volta V100
// 70), for topologies that do not state `[gpu] compute_capability`; 0 for any other name (the topology loader
// then asks for the key).
int GpuComputeCapabilityByName(std::string_view name);

// The one place that knows a GPU's architecture: c.gpu.compute_capability, or its name's
// (GpuComputeCapabilityByName; Volta's 70 when neither is known), as NCCL's tuner indexes its tables
// (src/graph/tuning.cc compCapIndex: every 8.x is Ampere, 9.x Hopper, 10.x and later Blackwell): 70, 80,
// 90 or 100.
int GpuComputeCapability(const ClusterSpec& c);

}  // namespace zerosim::model
