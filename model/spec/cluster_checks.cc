// The cluster's feasibility checks (feasibility.h CheckCluster): sizes, NIC rails, NVLink trays, PCIe and
// NVLink-mesh nodes, power limits, fat-tree leaves and pods.
#include <fmt/format.h>

#include "model/spec/feasibility.h"
#include "model/spec/gpu_power.h"
#include "model/spec/intra_fabric.h"
#include "model/spec/problem_util.h"

namespace zerosim::model {
namespace {

using checks::Add;
using checks::Range;

// A PCIe node's and an NVLink mesh's structure (cluster_spec.h PcieSpec, IntraNodeSpec; intra_fabric.h).
void CheckIntraFabric(const ClusterSpec& c, std::vector<Problem>* out) {
  if (c.intra.fabric == IntraFabric::kNvSwitch) return;
  if (c.intra.trays != 1) {
    Add(out, "intra_node.trays", "trays divide an NVSwitch domain (GB200 NVL72); this node is not one");
  }
  // The loader derives the per-GPU bandwidth from the links; a sweep axis or --set that changed it (or the
  // GPUs it was derived for) would leave the two engines on different fabrics.
  const double derived_Bps = IntraRingLineBps(c);
  if (c.intra.bandwidth_Bps != derived_Bps) {
    Add(out, "intra_node.bandwidth",
        fmt::format("a {} node's per-GPU bandwidth is derived from its links ({:g} GB/s for {} GPUs), not set: "
                    "write the links in a topology instead of sweeping intra.bandwidth or gpus_per_node",
                    IntraFabricName(c.intra.fabric), derived_Bps / 1e9, c.gpus_per_node));
  }
  if (c.intra.fabric == IntraFabric::kNvLinkMesh) {
    // Each GPU pair joined directly: A100's 12 NVLink3 links reach 3 peers at 4 links each (HGX A100 4-GPU);
    // larger NVLink boards without NVSwitch (DGX-1's hybrid cube mesh) are not fully connected.
    if (c.gpus_per_node < 2 || c.gpus_per_node > 4) {
      Add(out, "gpus_per_node",
          fmt::format("an NVLink mesh joins every pair of 2 to 4 GPUs directly (HGX A100 4-GPU), got {} GPUs",
                      c.gpus_per_node));
    }
    return;
  }
  const PcieSpec& p = c.intra.pcie;
  if (p.gpus_per_switch < 1 || p.gpus_per_switch > c.gpus_per_node || c.gpus_per_node % p.gpus_per_switch != 0) {
    Add(out, "intra_node.gpus_per_switch",
        fmt::format("{} GPUs per PCIe switch do not split the node's {} GPUs evenly", p.gpus_per_switch,
                    c.gpus_per_node));
    return;
  }
  const int switches = c.gpus_per_node / p.gpus_per_switch;
  if (p.sockets < 1 || p.sockets > 2 || switches % p.sockets != 0) {
    Add(out, "intra_node.sockets",
        fmt::format("{} PCIe switches do not split evenly over {} sockets (1 or 2)", switches, p.sockets));
  }
  // GPU g's rail (placement.h RailOf: floor(g x count / N)) is then a NIC of its own switch: GPUDirect RDMA
  // through the switch, as NCCL's default NCCL_NET_GDR_LEVEL (PXB) wants it.
  if (c.nic.count > 0 && c.nic.count != switches * p.nics_per_switch) {
    Add(out, "intra_node.nics_per_switch",
        fmt::format("{} switches x {} NICs per switch is not the node's {} NICs ([nic] count)", switches,
                    p.nics_per_switch, c.nic.count));
  }
}

}  // namespace

std::vector<Problem> CheckCluster(const ClusterSpec& c) {
  std::vector<Problem> out;
  Range(&out, "nodes", c.nodes, 1, kMaxNodes);
  Range(&out, "gpus_per_node", c.gpus_per_node, 1, kMaxGpusPerNode);
  if (!out.empty()) return out;  // the checks below divide by these
  const int64_t gpus = int64_t{c.nodes} * c.gpus_per_node;
  if (gpus > kMaxGpus) {
    Add(&out, "nodes",
        fmt::format("{} nodes x {} GPUs = {} GPUs, more than ZeroSim's limit of {}", c.nodes, c.gpus_per_node,
                    gpus, kMaxGpus));
  }
  if (c.gpu.sms < 1 || c.gpu.sms > kMaxGpusPerNode * 1024) {
    Add(&out, "gpu.sms", fmt::format("must be between 1 and {}, got {}", kMaxGpusPerNode * 1024, c.gpu.sms));
  }
  if (c.nccl.channels < 0)
    Add(&out, "nccl.channels", fmt::format("must be at least 0, got {}", c.nccl.channels));
  if (c.nccl.max_channels < 0)
    Add(&out, "nccl.max_channels", fmt::format("must be at least 0, got {}", c.nccl.max_channels));
  if (c.nic.count < 0 || c.nic.count > c.gpus_per_node) {
    Add(&out, "nic.count",
        fmt::format("{} NICs for {} GPUs per node: ZeroSim maps each GPU to one NIC (rails), so "
                    "between 0 and one NIC per GPU",
                    c.nic.count, c.gpus_per_node));
  } else if (c.nic.count > 0 && c.gpus_per_node % c.nic.count != 0) {
    Add(&out, "nic.count",
        fmt::format("{} NICs do not divide {} GPUs per node into equal rails", c.nic.count, c.gpus_per_node));
  }
  // An NVLink domain over several trays (GB200 NVL72: 18 trays of 4 GPUs): the trays split its GPUs evenly and
  // each tray carries its own NICs (NVIDIA multi-node tuning guide, "Understanding Your Grace-Blackwell
  // Systems": 18 compute trays of 4 GPUs; each tray 4 ConnectX-7), so the domain's NICs split evenly too and a
  // GPU's rail (placement.h RailOf, contiguous) is a NIC of its own tray.
  const int trays = c.intra.trays;
  if (trays < 1 || trays > c.gpus_per_node) {
    Add(&out, "intra_node.trays",
        fmt::format("must be between 1 and the {} GPUs of the NVLink domain, got {}", c.gpus_per_node, trays));
  } else if (c.gpus_per_node % trays != 0) {
    Add(&out, "intra_node.trays",
        fmt::format("{} trays do not split the NVLink domain's {} GPUs (gpus_per_node) evenly", trays,
                    c.gpus_per_node));
  } else if (trays > 1 && c.nic.count > 0 && c.nic.count % trays != 0) {
    Add(&out, "nic.count",
        fmt::format("NICs sit on the NVLink domain's trays: {} NICs do not split evenly over {} trays (nic.count "
                    "counts the domain's NICs: trays x NICs per tray, e.g. 18 x 4 = 72 for GB200 NVL72)",
                    c.nic.count, trays));
  }
  CheckIntraFabric(c, &out);
  if (c.nodes > 1 && c.nic.count == 0) {
    Add(&out, "nic.count", fmt::format("{} nodes with no NIC cannot communicate", c.nodes));
  }
  // A power limit is settable within the part's datasheet range, and only where the power model knows the part
  // (gpu_power.h); an unknown part's limit would change nothing and is refused, not ignored.
  if (c.gpu.power_limit_W != 0) {
    GpuPowerRange p;
    if (!FindGpuPowerRange(c.gpu, &p)) {
      Add(&out, "gpu.power_limit",
          fmt::format("no power data for \"{}\": the power model knows H100 SXM, H100 NVL, H100 PCIe and H200 "
                      "SXM (model/spec/gpu_power.cc); remove the key or name one of them",
                      c.gpu.name));
    } else if (c.gpu.power_limit_W < p.min_W || c.gpu.power_limit_W > p.default_W) {
      Add(&out, "gpu.power_limit",
          fmt::format("{:g} W is outside the {}'s settable range, {:g} to {:g} W ({})", c.gpu.power_limit_W, p.part,
                      p.min_W, p.default_W, p.source));
    }
  }
  // Oversubscription is the ratio of a fat tree's leaf (or pod) downlinks to its uplinks: another fabric has
  // no uplinks to oversubscribe, and the value would be reported but change nothing (issue 20 item 23).
  if (c.fabric.kind != FabricKind::kFatTree &&
      (c.fabric.oversubscription != 1 || c.fabric.pod_oversubscription != 1)) {
    Add(&out, c.fabric.oversubscription != 1 ? "fabric.oversubscription" : "fabric.pod_oversubscription",
        "only a fat_tree fabric has uplinks to oversubscribe: this one is not a fat tree (set fabric.kind, "
        "or "
        "leave the ratio at 1)");
  }
  if (c.fabric.kind == FabricKind::kFatTree) {
    const int leaf = c.fabric.nodes_per_leaf;
    if (leaf < 1 || leaf > kMaxNodes) {
      Add(&out, "fabric.nodes_per_leaf", fmt::format("must be between 1 and {}, got {}", kMaxNodes, leaf));
    } else if (c.nodes % leaf != 0) {
      Add(&out, "fabric.nodes_per_leaf",
          fmt::format("{} nodes do not fill leaves of {} nodes", c.nodes, leaf));
    } else if (c.fabric.leaves_per_pod < 0 || c.fabric.leaves_per_pod > kMaxNodes) {
      Add(&out, "fabric.leaves_per_pod",
          fmt::format("must be between 0 and {}, got {}", kMaxNodes, c.fabric.leaves_per_pod));
    } else if (c.fabric.leaves_per_pod > 0) {
      const int64_t pod = int64_t{leaf} * c.fabric.leaves_per_pod;
      if (c.nodes % pod != 0) {
        Add(&out, "fabric.leaves_per_pod",
            fmt::format("{} nodes do not fill pods of {} nodes ({} leaves of {})", c.nodes, pod,
                        c.fabric.leaves_per_pod, leaf));
      }
    }
  }
  return out;
}

}  // namespace zerosim::model
