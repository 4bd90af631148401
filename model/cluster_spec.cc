#include "model/cluster_spec.h"

#include <algorithm>
#include <string>

#include "model/units.h"

namespace zerosim::model {

CollectiveLibrary DefaultNcclLibrary() {
  // NCCL src/graph/tuning.cc (2.7-2.8): baseLat and hwLat[NVLINK|NET][RING][LL|LL128|SIMPLE] in us;
  // ring LL runs at 1/4 of the bus bandwidth across nodes, LL128 at 0.92 (120/128).
  CollectiveLibrary lib;
  lib.ll = {3.6 * kMicrosecond, 0.47 * kMicrosecond, 2.7 * kMicrosecond, 0.25};
  lib.ll128 = {10.0 * kMicrosecond, 1.9 * kMicrosecond, 4.0 * kMicrosecond, 0.92};
  lib.simple = {8.4 * kMicrosecond, 3.4 * kMicrosecond, 9.6 * kMicrosecond, 1.0};
  lib.intra_bandwidth_efficiency = 1.0;
  lib.inter_bandwidth_efficiency = 1.0;
  return lib;
}

const char* FabricKindName(FabricKind kind) {
  switch (kind) {
    case FabricKind::kSingleSwitch:
      return "single_switch";
    case FabricKind::kFatTree:
      return "fat_tree";
    case FabricKind::kRailOptimized:
      return "rail_optimized";
  }
  return "?";
}

double NcclRingBusBandwidthCap(const ClusterSpec& c) {
  if (c.nccl.ring_bus_bandwidth_cap_Bps > 0) return c.nccl.ring_bus_bandwidth_cap_Bps;
  const std::string& g = c.gpu.name;
  if (g.find("A100") != std::string::npos) return 235e9;
  for (const char* hopper : {"H100", "H200", "H800", "H20"}) {
    if (g.find(hopper) != std::string::npos) return 370e9;
  }
  return 0;
}

int NcclChannels(const ClusterSpec& c) {
  if (c.nccl.channels > 0) return c.nccl.channels;
  return std::max(2, 2 * c.nic.count);
}

double NcclSmShare(const ClusterSpec& c) {
  if (c.gpu.sms <= 0) return 0;
  return std::min(1.0, static_cast<double>(NcclChannels(c)) / c.gpu.sms);
}

}  // namespace zerosim::model
