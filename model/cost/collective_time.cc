#include "model/cost/collective_time.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <string>

#include "model/spec/intra_fabric.h"
#include "model/units.h"

namespace zerosim::model {

double LeafUplinkBps(const ClusterSpec& c) {
  return c.fabric.nodes_per_leaf * c.node_nic_Bps() / c.fabric.oversubscription;
}

double TransferSeconds(const Traffic& t, const ClusterSpec& c, double bandwidth_factor) {
  const CollectiveLibrary& lib = c.nccl;
  double transfer = 0;
  if (t.max_gpu_port_bytes > 0) {
    const double bw = c.intra.bandwidth_Bps * lib.intra_bandwidth_efficiency * bandwidth_factor;
    transfer = std::max(transfer, t.max_gpu_port_bytes / bw);
  }
  if (t.max_node_nic_bytes > 0) {
    const double bw = c.node_nic_Bps() * lib.inter_bandwidth_efficiency * bandwidth_factor;
    transfer = std::max(transfer, t.max_node_nic_bytes / bw);
  }
  if (t.max_leaf_uplink_bytes > 0) {
    const double bw = LeafUplinkBps(c) * lib.inter_bandwidth_efficiency * bandwidth_factor;
    transfer = std::max(transfer, t.max_leaf_uplink_bytes / bw);
  }
  // NCCL's own cap on a ring's bus bandwidth for the GPU architecture (cluster_spec.h).
  const double cap_Bps = NcclRingBusBandwidthCap(c);
  if (t.ring_rank_bytes > 0 && cap_Bps > 0)
    transfer = std::max(transfer, t.ring_rank_bytes / (cap_Bps * bandwidth_factor));
  return transfer;
}

CollectiveTime EstimateCollective(const Traffic& t, const ClusterSpec& c) {
  const CollectiveLibrary& lib = c.nccl;
  struct Named {
    const NcclProtocol* p;
    const char* name;
  };
  const Named protocols[] = {{&lib.ll, "LL"}, {&lib.ll128, "LL128"}, {&lib.simple, "Simple"}};
  CollectiveTime best;
  best.seconds = std::numeric_limits<double>::infinity();
  for (const Named& n : protocols) {
    if (n.p == &lib.ll128 && !NcclLl128Enabled(c)) continue;  // intra_fabric.h: not off NVLink
    NcclProtocol p = *n.p;
    // NCCL <= 2.17: LL's intra-node steps cost 1.8x when the communicator spans nodes (CollectiveLibrary).
    if (n.p == &lib.ll && t.inter_steps > 0) p.intra_step_latency_s *= lib.ll_multi_node_intra_factor;
    // The network plugin's reported latency on each network step (0 unless set: no change).
    p.inter_step_latency_s = NetworkStepLatencySeconds(p.inter_step_latency_s, n.p == &lib.simple, lib);
    const double latency =
        p.base_latency_s + t.intra_steps * p.intra_step_latency_s + t.inter_steps * p.inter_step_latency_s;
    const double transfer = TransferSeconds(t, c, p.bandwidth_factor);
    const double total = latency + transfer;
    if (total < best.seconds) best = {total, latency, transfer, n.name, "Ring", p};
  }
  return best;
}

double NetworkStepLatencySeconds(double table_s, bool simple, const CollectiveLibrary& lib) {
  if (lib.net_latency_s <= 0) return table_s;
  const int minor = NcclReleaseMinor(lib.release);
  if (minor >= 0 && minor <= 11) return table_s;  // before 2.12 the tuner ignores it
  if (minor >= 0 && minor <= 17) return lib.net_latency_s;
  return table_s + (simple ? 2 : 1) * lib.net_latency_s;
}

double NvlsEfficiency(const ClusterSpec& c) {
  // NVLS is NVLink SHARP, in the NVSwitch: no NVLS without one (search.cc builds no NVLS graph without an NVS
  // node), so never on a PCIe node or an NVLink mesh.
  if (c.intra.fabric != IntraFabric::kNvSwitch) return 0;
  // Hopper: S. Jeaugey (NCCL maintainer), NVIDIA/nccl-tests #212: NVLS all-reduce on 8 H100 "should reach a
  // peak busBw of ~480GB/s (algbw ~275GB/s)". NCCL's single-node NVLS kernel (src/device/all_reduce.h,
  // RunWorkColl<ncclFuncAllReduce, NCCL_ALGO_NVLS>: scatter into the multicast buffer, multimem reduce +
  // store of the rank's slice, gather) moves bytes * (1 + 1/n) per GPU and direction, so 275 GB/s of algbw on
  // 8 GPUs is 275 * 9/8 = 309 GB/s on the wire of the 450 GB/s line rate: 0.6875.
  constexpr double kHopper = 275.0 * (9.0 / 8.0) / 450.0;
  if (GpuComputeCapability(c) == 90) return kHopper;
  // Blackwell: no maintainer figure; NCCL's own tuner (tuning.cc from v2.28.3-1, nvlsEfficiency[] = {Hopper
  // 0.85, Blackwell 0.74}) rates Blackwell's NVLS at 0.74/0.85 of Hopper's against the NVLink bandwidth:
  // assumed to scale the Hopper figure.
  if (GpuComputeCapability(c) == 100) return kHopper * 0.74 / 0.85;
  return 0;
}

double NvlsLatencySeconds(const ClusterSpec& c) {
  // tuning.cc, NVLS Simple: v2.17.1-1 baseLat 0 and hwLat 0; v2.18.1-1 baseLat 23; v2.19.3-1 .. v2.20.x
  // hwLat[NVLINK] 23; v2.21.5-1 on hwLat[NVLINK] 25 (single node: latency = intraLat).
  const int minor = NcclReleaseMinor(c.nccl.release);
  if (minor == 17) return 0;
  if (minor >= 18 && minor <= 20) return 23 * kMicrosecond;
  return 25 * kMicrosecond;
}

double NvlsAllReduceSeconds(double bytes, int ranks, const ClusterSpec& c) {
  const int minor = NcclReleaseMinor(c.nccl.release);
  // NVLS arrived in NCCL 2.17 (tuning.cc v2.17.1-1: NCCL_ALGO_NVLS), needs an NVSwitch and compute capability
  // >= 9.0 (search.cc: `ccMin < 90` returns no NVLS graph); across nodes NCCL disables it without CollNet
  // (tuning.cc: `collnetEnable == 0 && a == NCCL_ALGO_NVLS && nNodes > 1`); nor on two GPUs
  // (transport/nvls.cc ncclNvlsInit: `gpuCount <= 2` returns without NVLS, as nccl_channels.cc counts).
  const double efficiency = NvlsEfficiency(c);
  if (ranks <= 2 || c.nodes != 1 || efficiency <= 0 || (minor >= 0 && minor < 17)) return 0;
  const double wire_bytes = bytes * (1.0 + 1.0 / ranks);
  return NvlsLatencySeconds(c) + wire_bytes / (efficiency * c.intra.bandwidth_Bps);
}

}  // namespace zerosim::model
