#include "model/spec/intra_fabric.h"

#include <algorithm>

namespace zerosim::model {

const char* IntraFabricName(IntraFabric f) {
  switch (f) {
    case IntraFabric::kNvSwitch:
      return "nvswitch";
    case IntraFabric::kPcie:
      return "pcie";
    case IntraFabric::kNvLinkMesh:
      return "nvlink_mesh";
  }
  return "nvswitch";
}

bool NcclLl128Enabled(const ClusterSpec& c) { return c.intra.fabric != IntraFabric::kPcie; }

int MeshRings(int gpus) { return gpus >= 3 ? 2 : 1; }

int PcieSwitches(const ClusterSpec& c) {
  if (c.intra.fabric != IntraFabric::kPcie || c.intra.pcie.gpus_per_switch <= 0) return 0;
  return c.gpus_per_node / c.intra.pcie.gpus_per_switch;
}

double IntraRingLineBps(const ClusterSpec& c) {
  switch (c.intra.fabric) {
    case IntraFabric::kNvSwitch:
      return c.intra.bandwidth_Bps;
    case IntraFabric::kNvLinkMesh:
      return c.intra.pair_Bps * MeshRings(c.gpus_per_node);
    case IntraFabric::kPcie: {
      const PcieSpec& p = c.intra.pcie;
      double bps = p.gpu_link_Bps;
      if (PcieSwitches(c) > 1) bps = std::min(bps, p.switch_uplink_Bps);
      if (p.sockets > 1) bps = std::min(bps, p.socket_link_Bps);
      return bps;
    }
  }
  return c.intra.bandwidth_Bps;
}

}  // namespace zerosim::model
