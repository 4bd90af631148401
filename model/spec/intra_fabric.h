// What a node's intra-node fabric gives NCCL's rings (cluster_spec.h IntraFabric): names, the rings NCCL
// builds on an NVLink mesh, and the bandwidth per GPU of a ring over the node at the links' line rate, which
// the topology loader stores as IntraNodeSpec::bandwidth_Bps for the fabrics that are not NVSwitch.
//
// How NCCL routes a PCIe node (src/graph/paths.cc, ncclTopoCheckP2p): two GPUs use the P2P transport when
// their path is at most PATH_PXB (through PCIe switches, not through a CPU's host bridge: "By default don't
// use P2P across CPU Host Bridges and further apart"); farther apart (PHB: across a root complex; SYS: across
// the inter-socket link) they use the SHM transport, through host memory. Either way a byte from GPU i to a
// GPU on another switch crosses i's PCIe link, its switch's uplink, the socket link where the sockets differ,
// the peer switch's uplink and the peer's PCIe link: the links the SimGrid platform routes it over.
// NCCL's rings over the node run in PCI order (search.cc, the intra-node ring search ordered by GPU index;
// GPUs of one switch are adjacent), so a ring over all GPUs enters and leaves every switch once and crosses
// the socket link once each way: one flow per direction on every link.
#pragma once

#include "model/spec/cluster_spec.h"

namespace zerosim::model {

// "nvswitch", "pcie", "nvlink_mesh": the `[intra_node] fabric` spellings, also written to reports.
const char* IntraFabricName(IntraFabric f);

// NCCL's rating of a PCIe link against its line rate: topo.cc kvDictPciGen rates a lane at 12 Gbps for Gen4
// (16 GT/s) and 24 Gbps for Gen5 (32 GT/s), 0.75 of the raw lane rate, i.e. 24 GB/s for a Gen4 x16 link of
// 32 GB/s per direction and 48 GB/s for Gen5 x16 (64 GB/s). It is also what NCCL's all-reduce reaches inside
// a PCIe node: NVIDIA GTC'24 S62129 gives intra-node all-reduce bus bandwidths of 24 GB/s on PCIe Gen4 and 48
// GB/s on Gen5 (../shared/validation/nccl_points.json, gtc-allreduce-intra-pcie-gen4 and -gen5).
inline constexpr double kNcclPcieRating = 0.75;

// Arc-disjoint rings NCCL's search builds over an NVLink mesh of `gpus` fully connected GPUs, each at the
// pair's rate: NCCL's ring search (search.cc) takes bandwidth on every directed link a channel crosses, so
// rings at the pair's full rate must use disjoint directed links. Two GPUs: the one ring 0->1->0 (both
// directions of the pair). Three or more: a ring and its reverse use opposite directions of the same pairs;
// a third disjoint Hamiltonian ring does not exist on 4 GPUs (the complete symmetric digraph on 4 vertices
// has no decomposition into directed Hamiltonian cycles: Tillson, "A Hamiltonian decomposition of K*_2m,
// 2m >= 8", J. Comb. Theory B 29 (1980), which proves it for every even order but 4 and 6; on 4 GPUs it is
// checked by enumerating the 6 directed rings), so 2. Not modelled: channels at a fraction of a pair's rate over
// all 6 directed rings would load every link evenly at 3 x the pair's rate; whether NCCL's search finds that on
// this board is not established (no published NCCL figure for HGX A100 4-GPU was found).
int MeshRings(int gpus);

// Bytes per second per GPU and direction of NCCL's ring over all of the node's GPUs at the line rate of the
// links it crosses (header):
//  - nvswitch: the GPU's port, c.intra.bandwidth_Bps;
//  - nvlink_mesh: c.intra.pair_Bps x MeshRings(c.gpus_per_node);
//  - pcie: the slowest link of the ring's path, each carrying one flow per direction: the GPU's PCIe link, the
//    switch uplinks when the node has more than one switch, the socket link when it has two sockets.
double IntraRingLineBps(const ClusterSpec& c);

// Whether NCCL runs its LL128 protocol: not on a PCIe node. tuning.cc (ncclTopoTuneModel) enables LL128 by
// default only where the intra-node graph's path is NVLink ("Enable LL128 by default only on
// Volta/Ampere/Hopper+NVLink. Other cases are not tested and may cause silent data corruption":
// graphs[a]->typeIntra <= PATH_NVB, PATH_NVL before 2.19), so its tuner picks LL or Simple there.
bool NcclLl128Enabled(const ClusterSpec& c);

// Switches of a PCIe node (gpus_per_node / gpus_per_switch); 0 on other fabrics.
int PcieSwitches(const ClusterSpec& c);

}  // namespace zerosim::model
