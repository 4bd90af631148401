#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "model/io/loaders.h"
#include "model/io/table_reader.h"
#include "model/spec/feasibility.h"
#include "model/spec/intra_fabric.h"

namespace zerosim::io {
namespace {

void ReadProtocol(TableReader* parent, std::string_view key, model::NcclProtocol* p) {
  std::optional<TableReader> t = parent->OptionalTable(key);
  if (!t) return;
  p->base_latency_s = t->QuantityOr("base_latency", Dimension::kTime, p->base_latency_s, false);
  p->intra_step_latency_s = t->QuantityOr("intra_step_latency", Dimension::kTime, p->intra_step_latency_s, false);
  p->inter_step_latency_s = t->QuantityOr("inter_step_latency", Dimension::kTime, p->inter_step_latency_s, false);
  p->bandwidth_factor = t->NumberOr("bandwidth_factor", p->bandwidth_factor, 1e-6, 1.0);
  t->Finish();
}

}  // namespace

namespace {

// Link latencies are not inputs (issue 20 item 23: they were read and changed nothing). A collective's step
// latency is NCCL's own estimate for the hardware, the tuning tables of `[nccl] release` (baseLat and hwLat
// per link kind and protocol, src/graph/tuning.cc), plus `[nccl] net_latency`, the network plugin's reported
// latency, on every network step (model::NetworkStepLatencySeconds). A topology that gives a link latency is
// refused at its key, pointing to the one that is used.
void RefuseLinkLatency(TableReader* t, const char* key) {
  if (!t->Has(key)) return;
  t->MarkKnown(key);
  t->Fail(key, "link latencies are not an input: step latencies are NCCL's tuning tables for [nccl] release "
               "(hwLat per link kind), plus [nccl] net_latency on every network step (the network plugin's "
               "reported latency); remove this key, or give [nccl] net_latency for a slower network");
}

// The keys of each intra-node fabric beside `fabric` (and `latency`, refused for all).
struct FabricKeys {
  const char* fabric;
  std::vector<std::string_view> keys;
};
const std::array<FabricKeys, 3>& AllFabricKeys() {
  static const std::array<FabricKeys, 3> kKeys = {
      FabricKeys{"nvswitch", {"bandwidth", "trays"}},
      FabricKeys{"pcie",
                 {"gpu_link", "gpus_per_switch", "switch_uplink", "sockets", "socket_link", "nics_per_switch"}},
      FabricKeys{"nvlink_mesh", {"pair_bandwidth"}}};
  return kKeys;
}

// Refuses, at its key, every key of `t` that belongs to another fabric than `fabric`.
void RefuseOtherFabricKeys(TableReader* t, const std::string& fabric) {
  for (const FabricKeys& other : AllFabricKeys()) {
    if (other.fabric == fabric) continue;
    for (std::string_view key : other.keys) {
      if (!t->Has(key)) continue;
      t->MarkKnown(key);
      if (key == "bandwidth") {
        t->Fail(key, fmt::format("a {} node's per-GPU bandwidth is derived from its links (model/spec/"
                                 "intra_fabric.h IntraRingLineBps): remove this key",
                                 fabric));
      } else {
        t->Fail(key, fmt::format("not a key of fabric = \"{}\": it belongs to fabric = \"{}\"", fabric,
                                 other.fabric));
      }
    }
  }
}

// `[intra_node]`: the fabric and its keys (cluster_spec.h IntraNodeSpec; docs/inputs.md). On a PCIe node and
// an NVLink mesh, the per-GPU bandwidth of NCCL's ring over the node is derived (intra_fabric.h).
void ReadIntraNode(TableReader* intra, model::ClusterSpec* c, bool ok) {
  const std::string fabric = intra->String("fabric");
  if (fabric == "pcie") {
    RefuseOtherFabricKeys(intra, fabric);
    model::PcieSpec& p = c->intra.pcie;
    c->intra.fabric = model::IntraFabric::kPcie;
    p.gpu_link_Bps = intra->Quantity("gpu_link", Dimension::kBandwidth, true);
    p.gpus_per_switch = static_cast<int>(intra->Int("gpus_per_switch", 1, model::kMaxGpusPerNode));
    p.switch_uplink_Bps = intra->Quantity("switch_uplink", Dimension::kBandwidth, true);
    p.sockets = static_cast<int>(intra->IntOr("sockets", 1, 1, 2));
    if (p.sockets > 1) {
      p.socket_link_Bps = intra->Quantity("socket_link", Dimension::kBandwidth, true);
    } else if (intra->Has("socket_link")) {
      intra->MarkKnown("socket_link");
      intra->Fail("socket_link", "one socket has no inter-socket link: set sockets = 2 or remove this key");
    }
    // NICs below each switch: by default the node's NICs spread evenly over its switches (cluster_checks.cc
    // checks that count = switches x nics_per_switch).
    const int switches = p.gpus_per_switch > 0 ? c->gpus_per_node / p.gpus_per_switch : 0;
    const int spread = switches > 0 ? c->nic.count / switches : 0;
    p.nics_per_switch = static_cast<int>(intra->IntOr("nics_per_switch", spread, 0, model::kMaxGpusPerNode));
    c->intra.bandwidth_Bps = model::IntraRingLineBps(*c);
  } else if (fabric == "nvlink_mesh") {
    RefuseOtherFabricKeys(intra, fabric);
    c->intra.fabric = model::IntraFabric::kNvLinkMesh;
    c->intra.pair_Bps = intra->Quantity("pair_bandwidth", Dimension::kBandwidth, true);
    c->intra.bandwidth_Bps = model::IntraRingLineBps(*c);
  } else if (fabric != "nvswitch") {
    if (ok) {
      intra->Fail("fabric",
                  fmt::format("unknown fabric \"{}\" (supported: nvswitch, pcie, nvlink_mesh)", fabric));
    }
    // The fabric's own error only: its keys are not also reported as unknown.
    for (const FabricKeys& f : AllFabricKeys()) {
      for (std::string_view key : f.keys) intra->MarkKnown(key);
    }
  } else {
    RefuseOtherFabricKeys(intra, "nvswitch");
    c->intra.bandwidth_Bps = intra->Quantity("bandwidth", Dimension::kBandwidth, true);
    // Trays the NVLink domain (the node) spans: GB200 NVL72 is 18 trays of 4 GPUs (ClusterSpec IntraNodeSpec).
    c->intra.trays = static_cast<int>(intra->IntOr("trays", 1, 1, model::kMaxGpusPerNode));
  }
}

}  // namespace

StatusOr<TopologyFile> LoadTopology(const FileSource& fs, const std::string& path) {
  StatusOr<TomlFile> doc = ReadTomlFile(fs, path);
  if (!doc.ok()) return doc.status();

  Status status;
  TopologyFile out;
  out.file = doc->file;
  model::ClusterSpec& c = out.cluster;
  TableReader root(&doc.value().table, path, "", &status);
  c.name = root.String("name");
  c.nodes = static_cast<int>(root.Int("nodes", 1, model::kMaxNodes));
  c.gpus_per_node = static_cast<int>(root.Int("gpus_per_node", 1, model::kMaxGpusPerNode));

  TableReader gpu = root.Table("gpu");
  c.gpu.name = gpu.String("name");
  c.gpu.peak_flops = gpu.Quantity("peak_flops", Dimension::kFlopRate, true);
  c.gpu.hbm_bytes = gpu.Quantity("hbm", Dimension::kBytes, true);
  c.gpu.hbm_Bps = gpu.Quantity("hbm_bandwidth", Dimension::kBandwidth, true);
  c.gpu.sms = static_cast<int>(gpu.Int("sms", 1));
  // Optional: the dense FP8 tensor-core peak (Hopper and later); absent on V100 and A100 (no FP8 tensor
  // cores).
  c.gpu.fp8_peak_flops = gpu.QuantityOr("fp8_peak_flops", Dimension::kFlopRate, 0, true);
  // Optional: a board power limit below the part's default (model/spec/gpu_power.h; range checked by
  // CheckCluster).
  c.gpu.power_limit_W = gpu.QuantityOr("power_limit", Dimension::kPower, 0, true);
  // The compute capability (CUDA's "major.minor", e.g. 9.0), which fixes the architecture NCCL's tuner and the
  // runtime read (model/spec/cluster_spec.h GpuComputeCapability). Optional for the GPUs ZeroSim knows by
  // name; any other GPU must state it: no architecture is guessed.
  const double capability = gpu.NumberOr("compute_capability", 0, 3.0, 15.9);
  c.gpu.compute_capability = static_cast<int>(std::lround(capability * 10));
  if (c.gpu.compute_capability == 0 && model::GpuComputeCapabilityByName(c.gpu.name) == 0) {
    gpu.Fail("compute_capability",
             fmt::format("GPU \"{}\" is not one ZeroSim knows by name (V100, A100/A800/A10/A30/A40, L40/L40S/L4, "
                         "H100/H200/H800/H20, B200/B300/GB200/GB300): state its compute capability, e.g. "
                         "compute_capability = 9.0 for a Hopper part",
                         c.gpu.name));
  }
  if (c.gpu.compute_capability == 0) c.gpu.compute_capability = model::GpuComputeCapabilityByName(c.gpu.name);
  const std::string calibration = gpu.FileName("calibration");
  out.calibration_path = ResolvePath(path, calibration);
  out.calibration_place = gpu.Place("calibration");
  gpu.Finish();

  TableReader nic = root.Table("nic");
  c.nic.count = static_cast<int>(nic.Int("count", c.nodes > 1 ? 1 : 0, model::kMaxGpusPerNode));
  c.nic.bandwidth_Bps = nic.Quantity("bandwidth", Dimension::kBandwidth, true);
  RefuseLinkLatency(&nic, "latency");
  nic.Finish();

  // After [nic]: a PCIe node's NICs per switch default to the node's NICs spread over its switches.
  TableReader intra = root.Table("intra_node");
  ReadIntraNode(&intra, &c, status.ok());
  RefuseLinkLatency(&intra, "latency");
  intra.Finish();

  TableReader fab = root.Table("fabric");
  const std::string kind = fab.String("kind");
  RefuseLinkLatency(&fab, "switch_latency");
  if (kind == "single_switch") {
    c.fabric.kind = model::FabricKind::kSingleSwitch;
  } else if (kind == "rail_optimized") {
    c.fabric.kind = model::FabricKind::kRailOptimized;
  } else if (kind == "fat_tree") {
    c.fabric.kind = model::FabricKind::kFatTree;
    c.fabric.nodes_per_leaf = static_cast<int>(fab.Int("nodes_per_leaf", 1, model::kMaxNodes));
    c.fabric.oversubscription = fab.NumberOr("oversubscription", 1.0, 1.0, 1e6);
    c.fabric.leaves_per_pod = static_cast<int>(fab.IntOr("leaves_per_pod", 0, 0, model::kMaxNodes));
    if (c.fabric.leaves_per_pod > 0) {
      c.fabric.pod_oversubscription = fab.NumberOr("pod_oversubscription", 1.0, 1.0, 1e6);
    }
  } else if (status.ok()) {
    fab.Fail("kind", fmt::format("unknown fabric kind \"{}\" (supported: single_switch, fat_tree, rail_optimized)", kind));
  }
  fab.Finish();

  if (std::optional<TableReader> nccl = root.OptionalTable("nccl")) {
    // The release's tuning tables first (model::NcclLibraryForRelease), then explicit protocol settings.
    if (std::optional<std::string> release = nccl->OptionalString("release")) {
      if (!model::NcclLibraryForRelease(*release, &c.nccl)) {
        nccl->Fail("release",
                   fmt::format("unknown NCCL release \"{}\" (expected 2.MINOR[.PATCH], MINOR >= 7)", *release));
      }
    }
    ReadProtocol(&*nccl, "ll", &c.nccl.ll);
    ReadProtocol(&*nccl, "ll128", &c.nccl.ll128);
    ReadProtocol(&*nccl, "simple", &c.nccl.simple);
    c.nccl.intra_bandwidth_efficiency =
        nccl->NumberOr("intra_bandwidth_efficiency", c.nccl.intra_bandwidth_efficiency, 1e-6, 1.0);
    c.nccl.inter_bandwidth_efficiency =
        nccl->NumberOr("inter_bandwidth_efficiency", c.nccl.inter_bandwidth_efficiency, 1e-6, 1.0);
    c.nccl.channels = static_cast<int>(nccl->IntOr("channels", c.nccl.channels, 1));
    // NCCL_MAX_NCHANNELS: caps NCCL's own channel count (model/cost/nccl_channels.h).
    c.nccl.max_channels = static_cast<int>(nccl->IntOr("max_channels", c.nccl.max_channels, 1));
    c.nccl.ring_bus_bandwidth_cap_Bps =
        nccl->QuantityOr("ring_bus_bandwidth_cap", Dimension::kBandwidth, c.nccl.ring_bus_bandwidth_cap_Bps, false);
    // The network plugin's reported latency, on every network step (model::NetworkStepLatencySeconds).
    c.nccl.net_latency_s = nccl->QuantityOr("net_latency", Dimension::kTime, c.nccl.net_latency_s, false);
    nccl->Finish();
  }
  // The cluster's structure (rails, leaves, pods, sizes): model/spec/feasibility.h, reported at its key.
  if (status.ok()) {
    for (const model::Problem& p : model::CheckCluster(c)) {
      if (p.key.rfind("gpu.", 0) == 0) {
        gpu.Fail(p.key.substr(4), p.message);
      } else if (p.key.rfind("intra_node.", 0) == 0) {
        intra.Fail(p.key.substr(11), p.message);
      } else if (p.key.rfind("nic.", 0) == 0) {
        nic.Fail(p.key.substr(4), p.message);
      } else if (p.key.rfind("fabric.", 0) == 0) {
        fab.Fail(p.key.substr(7), p.message);
      } else {
        root.Fail(p.key, p.message);
      }
    }
  }
  root.Finish();
  if (!status.ok()) return status;
  return out;
}

}  // namespace zerosim::io
