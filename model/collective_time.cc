#include "model/collective_time.h"

#include <algorithm>
#include <limits>

namespace zerosim::model {

double LeafUplinkBps(const ClusterSpec& c) {
  return c.fabric.nodes_per_leaf * c.node_nic_Bps() / c.fabric.oversubscription;
}

CollectiveTime EstimateCollective(const Traffic& t, const ClusterSpec& c) {
  const CollectiveLibrary& lib = c.nccl;
  struct Named {
    const NcclProtocol* p;
    const char* name;
  };
  const Named protocols[] = {{&lib.ll, "LL"}, {&lib.ll128, "LL128"}, {&lib.simple, "Simple"}};
  const double cap_Bps = NcclRingBusBandwidthCap(c);
  CollectiveTime best;
  best.seconds = std::numeric_limits<double>::infinity();
  for (const Named& n : protocols) {
    NcclProtocol p = *n.p;
    // NCCL <= 2.17: LL's intra-node steps cost 1.8x when the communicator spans nodes (CollectiveLibrary).
    if (n.p == &lib.ll && t.inter_steps > 0) p.intra_step_latency_s *= lib.ll_multi_node_intra_factor;
    const double latency =
        p.base_latency_s + t.intra_steps * p.intra_step_latency_s + t.inter_steps * p.inter_step_latency_s;
    double transfer = 0;
    if (t.max_gpu_port_bytes > 0) {
      const double bw = c.intra.bandwidth_Bps * lib.intra_bandwidth_efficiency * p.bandwidth_factor;
      transfer = std::max(transfer, t.max_gpu_port_bytes / bw);
    }
    if (t.max_node_nic_bytes > 0) {
      const double bw = c.node_nic_Bps() * lib.inter_bandwidth_efficiency * p.bandwidth_factor;
      transfer = std::max(transfer, t.max_node_nic_bytes / bw);
    }
    if (t.max_leaf_uplink_bytes > 0) {
      const double bw = LeafUplinkBps(c) * lib.inter_bandwidth_efficiency * p.bandwidth_factor;
      transfer = std::max(transfer, t.max_leaf_uplink_bytes / bw);
    }
    // NCCL's own cap on a ring's bus bandwidth for the GPU architecture (cluster_spec.h).
    if (t.ring_rank_bytes > 0 && cap_Bps > 0) transfer = std::max(transfer, t.ring_rank_bytes / (cap_Bps * p.bandwidth_factor));
    const double total = latency + transfer;
    if (total < best.seconds) best = {total, latency, transfer, n.name, p};
  }
  return best;
}

}  // namespace zerosim::model
