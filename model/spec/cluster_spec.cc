#include "model/spec/cluster_spec.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>

#include "model/enum_names.h"
#include "model/spec/intra_fabric.h"
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

bool NcclLibraryForRelease(std::string_view release, CollectiveLibrary* lib) {
  // "2.MINOR" or "2.MINOR.PATCH[-N]": only the minor number selects a table.
  const int minor = NcclReleaseMinor(release);
  if (minor < 7) return false;
  const CollectiveLibrary base = DefaultNcclLibrary();
  lib->ll = base.ll;
  lib->ll128 = base.ll128;
  lib->simple = base.simple;
  lib->ll_multi_node_intra_factor = base.ll_multi_node_intra_factor;
  if (minor == 12 || minor == 13) {
    // v2.12.12-1, v2.13.4-1 tuning.cc: hwLat[NET][RING] = {2.7, 4.0, 28}.
    lib->simple.inter_step_latency_s = 28.0 * kMicrosecond;
  } else if (minor >= 18) {
    // v2.18.6-1 .. v2.27.7-1 tuning.cc: baseLat[RING] = {6.6, 14.0, 8.4}, hwLat[NVLINK][RING] =
    // {.6, 1.9, 3.4}, hwLat[NET][RING] = {2.7, 4.0, 14.0}; the 1.8x on LL's intra latency across nodes is
    // gone.
    lib->ll.base_latency_s = 6.6 * kMicrosecond;
    lib->ll128.base_latency_s = 14.0 * kMicrosecond;
    lib->ll.intra_step_latency_s = 0.6 * kMicrosecond;
    lib->simple.inter_step_latency_s = 14.0 * kMicrosecond;
    lib->ll_multi_node_intra_factor = 1.0;
  }
  lib->release = std::string(release);
  return true;
}

const char* FabricKindName(FabricKind kind) {
  constexpr std::array<const char*, 3> kNames = {"single_switch", "fat_tree", "rail_optimized"};
  return NameOf(kNames, kind);
}

int NcclReleaseMinor(std::string_view release) {
  if (release.substr(0, 2) != "2.") return -1;
  int minor = 0;
  size_t i = 2;
  for (; i < release.size() && release[i] >= '0' && release[i] <= '9' && minor < 1000; ++i) {
    minor = minor * 10 + (release[i] - '0');
  }
  if (i == 2 || (i < release.size() && release[i] != '.')) return -1;
  return minor;
}

int GpuComputeCapabilityByName(std::string_view name) {
  const auto has = [name](std::initializer_list<const char*> names) {
    for (const char* n : names) {
      if (name.find(n) != std::string_view::npos) return true;
    }
    return false;
  };
  if (has({"B200", "B300", "GB200", "GB300"})) return 100;
  if (has({"H100", "H200", "H800", "H20"})) return 90;
  if (has({"L40", "L4"})) return 89;
  if (has({"A100", "A800", "A10", "A30", "A40"})) return 80;
  if (has({"V100"})) return 70;
  return 0;
}

int GpuComputeCapability(const ClusterSpec& c) {
  int cc = c.gpu.compute_capability;
  if (cc <= 0) cc = GpuComputeCapabilityByName(c.gpu.name);
  // tuning.cc compCapIndex: minCompCap >= 100 Blackwell, >= 90 Hopper, >= 80 Ampere, else Volta.
  if (cc >= 100) return 100;
  if (cc >= 90) return 90;
  if (cc >= 80) return 80;
  return 70;
}

double NcclRingBusBandwidthCap(const ClusterSpec& c) {
  if (c.nccl.ring_bus_bandwidth_cap_Bps > 0) return c.nccl.ring_bus_bandwidth_cap_Bps;
  // A PCIe node's ring: NCCL's rating of its PCIe links (intra_fabric.h kNcclPcieRating: topo.cc's
  // kvDictPciGen, and GTC'24 S62129's measured intra-node PCIe all-reduce bus bandwidths).
  if (c.intra.fabric == IntraFabric::kPcie) return kNcclPcieRating * c.intra.bandwidth_Bps;
  // The NVLink line rate less NCCL's ~20% protocol overhead (nccl-tests #212).
  const double overhead_Bps = 0.8 * c.intra.bandwidth_Bps;
  // tuning.cc caps Ampere's and Hopper's rings (its compCapIndex: every 8.x is Ampere).
  const int cc = GpuComputeCapability(c);
  double arch_Bps = 0;
  if (cc == 80) arch_Bps = 235e9;
  if (cc == 90) arch_Bps = 370e9;
  // An NVLink mesh: NCCL's architecture cap where its rings over the pairs' links would reach it, the
  // protocol overhead on the mesh's ring line rate below it (the caps are what NCCL reaches on NVSwitch nodes
  // of 300 and 450 GB/s ports: 0.78 and 0.82 of them).
  if (c.intra.fabric == IntraFabric::kNvLinkMesh) return arch_Bps > 0 ? std::min(arch_Bps, overhead_Bps) : overhead_Bps;
  // No cap in NCCL's table: the protocol overhead.
  return arch_Bps > 0 ? arch_Bps : overhead_Bps;
}

}  // namespace zerosim::model
