#include "model/cost/nccl_allreduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "model/cost/nccl_channels.h"
#include "model/spec/intra_fabric.h"
#include "model/units.h"

namespace zerosim::model {
namespace {

enum Proto { kLL = 0, kLL128 = 1, kSimple = 2 };
constexpr const char* kProtoName[3] = {"LL", "LL128", "Simple"};

// floor(log2(x)) for x >= 1, as NCCL's log2i; -1 for x < 1.
int Log2Floor(double x) {
  if (x < 1) return -1;
  int k = 0;
  while (x >= 2) {
    x /= 2;
    ++k;
  }
  return k;
}

// The bytes one rank moves in a ring all-reduce, 2 (n-1)/n of its buffer: what NCCL's bus bandwidth counts.
double BusBytes(double bytes, int ranks) { return 2.0 * (ranks - 1) / ranks * bytes; }

// NCCL's cap on LL bus bandwidth, bytes/s (tuning.cc llMaxBws[index1][index2], GB/s). One node: by GPU, as
// the release's table has it: Volta row 39.0 (and any GPU the release does not know), Ampere 87.7,
// Hopper 87.7 (2.16-2.20) then 141.0 (2.21 on), Blackwell as Hopper until 2.24 and 2 x 141 from 2.25
// (v2.16.5-1 only knows cc == 90 as Hopper). Across nodes NCCL indexes the CPU vendor, which the point does
// not state: Intel's row (39.0 on two nodes, 20.4 on more), NCCL's choice for any non-AMD host.
double LlMaxBusBps(const ClusterSpec& c, int minor) {
  if (c.nodes == 2) return 39.0e9;
  if (c.nodes > 2) return 20.4e9;
  const int cc = GpuComputeCapability(c);
  if (cc == 80) return 87.7e9;
  if (minor < 16 || cc < 80 || (minor == 16 && cc != 90)) return 39.0e9;
  if (cc >= 100 && minor >= 25) return 2 * 141.0e9;
  return minor >= 21 ? 141.0e9 : 87.7e9;
}

// NCCL's tree latency tables (tuning.cc baseLat[TREE] and hwLat[NVLINK|NET][TREE], {LL, LL128, Simple}, us).
struct TreeTables {
  double base[3];
  double nvlink[3];
  double net[3];
};

bool TreeTablesFor(int minor, TreeTables* t) {
  if (minor >= 23) {
    // v2.23.4-1 .. v2.28.x: baseLat {6.8, 14.0, 8.4}; NVLink {.6, 1.25, 4.0}; network {5.0, 8.5, 14}.
    *t = {{6.8, 14.0, 8.4}, {0.6, 1.25, 4.0}, {5.0, 8.5, 14.0}};
  } else if (minor >= 18) {
    // v2.18.1-1 .. v2.22.3-1: baseLat {6.8, 14.0, 0}; NVLink {.6, 1.25, 28}; network {5.0, 8.5, 28}
    // (v2.18.6-1 alone has Simple 4 and 14; the release string's patch level is not read).
    *t = {{6.8, 14.0, 0}, {0.6, 1.25, 28}, {5.0, 8.5, 28}};
  } else if (minor >= 8) {
    // v2.8.3-1 .. v2.17.1-1: baseLat {4.4, 4.4, 0}; NVLink {.52, 1.25, 28}; network {5.0, 8.5, 28}.
    *t = {{4.4, 4.4, 0}, {0.52, 1.25, 28}, {5.0, 8.5, 28}};
  } else {
    return false;  // 2.7's tables (network Simple 50 us, a 22-entry correction table) are not carried
  }
  return true;
}

CollectiveTime Best(const CollectiveTime& a, const CollectiveTime& b) {
  if (b.seconds <= 0) return a;
  if (a.seconds <= 0) return b;
  return b.seconds < a.seconds ? b : a;
}

const NcclProtocol& LibraryProtocol(const CollectiveLibrary& lib, int p) {
  return p == kLL ? lib.ll : p == kLL128 ? lib.ll128 : lib.simple;
}

}  // namespace

double TreeCorrectionFactor(int protocol, double bytes, int minor) {
  // tuning.cc treeCorrectionFactor[protocol][log2i(nBytes >> 6)], powers of two from 64 B to 256 MiB;
  // ncclTopoGetAlgoTime multiplies the tree's all-reduce bandwidth by it.
  static constexpr double kFactor[3][23] = {
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
  // v2.8.3-1 and v2.9.9-1: the LL128 row differs from v2.10.3-1 on.
  static constexpr double kLl128Before210[23] = {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
                                                 .6,  .5,  .6,  .6,  .7,  .7, .8, .9, .9, .92, .92};
  const int index = Log2Floor(std::floor(bytes / 64));
  if (protocol < 0 || protocol > 2 || index < 0 || index >= 23) return 1.0;
  if (protocol == kLL128 && minor >= 0 && minor < 10) return kLl128Before210[index];
  return kFactor[protocol][index];
}

CollectiveTime RingAllReduce(const Traffic& ring, double bytes, const ClusterSpec& c) {
  const CollectiveLibrary& lib = c.nccl;
  const int parsed = NcclReleaseMinor(lib.release);
  const bool current = parsed < 0;  // a release that does not parse counts as current
  const int minor = current ? 1000 : parsed;
  const int ranks = c.total_gpus();
  const bool multi_node = ring.inter_steps > 0;
  const double t1 = TransferSeconds(ring, c, 1.0);
  CollectiveTime best;
  best.seconds = std::numeric_limits<double>::infinity();
  for (int proto = kLL; proto <= kSimple; ++proto) {
    if (proto == kLL128 && !NcclLl128Enabled(c)) continue;  // intra_fabric.h: not off NVLink
    NcclProtocol p = LibraryProtocol(lib, proto);
    if (proto == kLL && multi_node) p.intra_step_latency_s *= lib.ll_multi_node_intra_factor;
    // 2.18 on: "Inter-node rings still have to launch nsteps * net overhead": intraLat = max(intraLat,
    // netOverhead), getNetOverhead 1 us (Intel x86 and any non-AMD host; the host is not stated), x3 for
    // Simple.
    if (multi_node && minor >= 18)
      p.intra_step_latency_s =
          std::max(p.intra_step_latency_s, (proto == kSimple ? 3.0 : 1.0) * kMicrosecond);
    p.inter_step_latency_s = NetworkStepLatencySeconds(p.inter_step_latency_s, proto == kSimple, lib);
    double latency = p.base_latency_s + ring.intra_steps * p.intra_step_latency_s +
                     ring.inter_steps * p.inter_step_latency_s;
    // ncclTopoGetAlgoTime, "Plateau effect of ring": Simple across nodes, once the buffer reaches the
    // release's threshold, multiplies the ring's latency: up to 2.16 by 1.9 (nBytes >= nRanks/16 *
    // 65536); 2.17 by 1.9 below compute capability 9.0, else 1.5 (same threshold); 2.18 on by 1.9 below 8.0,
    // else 1.4 (nBytes / (nChannels * nRanks) >= 64).
    if (proto == kSimple && multi_node) {
      const int cc = GpuComputeCapability(c);
      const bool recent = minor >= 18;
      const bool reached = recent ? bytes / (static_cast<double>(NcclChannels(c)) * ranks) >= 64
                                  : bytes >= ranks / 16.0 * 65536;
      const double factor = recent ? (cc < 80 ? 1.9 : 1.4) : minor == 17 ? (cc < 90 ? 1.9 : 1.5) : 1.9;
      if (reached) latency *= factor;
    }
    // Ring LL: 1/4 of the bus bandwidth for all-reduce up to 2.20, 1/2 from 2.21 (tuning.cc `busBw * .5`):
    // the library's LL factor doubles; both capped at llMaxBw.
    double factor = p.bandwidth_factor;
    if (proto == kLL && minor >= 21) factor *= 2;
    double transfer = t1 / factor;
    if (proto == kLL) transfer = std::max(transfer, BusBytes(bytes, ranks) / LlMaxBusBps(c, minor));
    const double total = latency + transfer;
    if (total < best.seconds) best = {total, latency, transfer, kProtoName[proto], "Ring", p};
  }
  return best;
}

CollectiveTime TreeAllReduce(const Traffic& ring, double bytes, const ClusterSpec& c) {
  const CollectiveLibrary& lib = c.nccl;
  const int parsed = NcclReleaseMinor(lib.release);
  const int minor = parsed < 0 ? 1000 : parsed;
  const int ranks = c.total_gpus();
  TreeTables tables;
  const double t1 = TransferSeconds(ring, c, 1.0);
  if (ranks < 2 || bytes <= 0 || t1 <= 0 || !TreeTablesFor(minor, &tables)) return CollectiveTime{};
  const int nodes = c.nodes;
  const int ppn = c.gpus_per_node;
  // NCCL's tree bus bandwidth is its tree graph's channels x per-channel bandwidth; ZeroSim's ring bus
  // bandwidth for the same cluster stands for it (header).
  const double bus_Bps = BusBytes(bytes, ranks) / t1;
  CollectiveTime best;
  best.seconds = std::numeric_limits<double>::infinity();
  for (int proto = kLL; proto <= kSimple; ++proto) {
    if (proto == kLL128 && !NcclLl128Enabled(c)) continue;  // intra_fabric.h: not off NVLink
    double intra = tables.nvlink[proto] * kMicrosecond;
    // Up to 2.17 LL's intra-node latency grows 1.8x across nodes, for every algorithm (CollectiveLibrary).
    if (proto == kLL && nodes > 1) intra *= lib.ll_multi_node_intra_factor;
    const double inter = NetworkStepLatencySeconds(tables.net[proto] * kMicrosecond, proto == kSimple, lib);
    const double latency =
        tables.base[proto] * kMicrosecond + 2 * ((ppn - 1) * intra + Log2Floor(nodes) * inter);
    // tuning.cc: busBw *= .92 for the tree's all-reduce; LL: min(busBw / 3.8, llMaxBw); LL128: 7/9 on one
    // node, 120/128 across (0.915 up to 2.9). The tree pattern's further x0.85 (a tree graph whose NIC
    // traffic all goes through one GPU) is not applied: NVSwitch nodes with a NIC per GPU pair get the
    // balanced tree.
    double tree_Bps = bus_Bps * 0.92;
    if (proto == kLL) tree_Bps = std::min(tree_Bps / 3.8, LlMaxBusBps(c, minor));
    if (proto == kLL128) tree_Bps *= nodes == 1 ? 7.0 / 9.0 : (minor < 10 ? 0.915 : 120.0 / 128.0);
    // Bus to algorithm bandwidth: x 0.5 for the tree; then the correction by size.
    const double alg_Bps = 0.5 * tree_Bps * TreeCorrectionFactor(proto, bytes, minor);
    const double transfer = bytes / alg_Bps;
    const double total = latency + transfer;
    if (total < best.seconds) {
      NcclProtocol params = LibraryProtocol(lib, proto);
      best = {total, latency, transfer, kProtoName[proto], "Tree", params};
    }
  }
  return best;
}

CollectiveTime NvlsTreeAllReduce(double bytes, const ClusterSpec& c) {
  const int parsed = NcclReleaseMinor(c.nccl.release);
  const int minor = parsed < 0 ? 1000 : parsed;
  // tuning.cc: NVLSTree is disabled on a single node; it arrives in 2.18 (baseLat's NVLS Tree column) and
  // needs NVLS, i.e. an NVSwitch node of compute capability >= 9.0 (search.cc).
  const double efficiency = NvlsEfficiency(c);
  if (c.nodes < 2 || efficiency <= 0 || minor < 18 || c.gpus_per_node < 1) return CollectiveTime{};
  // Latency (Simple): 2.18: baseLat 23, hwLat NVLink 0, network 19; 2.19-2.20: 0, 23, 14; 2.21 on: 0, 25, 14.
  const double base_us = minor == 18 ? 23 : 0;
  const double intra_us = minor == 18 ? 0 : minor <= 20 ? 23 : 25;
  const double inter_us = minor == 18 ? 19 : 14;
  const double inter_s = NetworkStepLatencySeconds(inter_us * kMicrosecond, /*simple=*/true, c.nccl);
  const double latency = (base_us + intra_us) * kMicrosecond + 2 * Log2Floor(c.nodes) * inter_s;
  // Bandwidth: inside the node the single-node NVLS kernel's wire bytes (NvlsAllReduceSeconds); across nodes
  // tuning.cc takes min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2) and algBw = 5/6 of it: the node's NICs
  // carry the buffer once on two nodes and twice beyond.
  const double intra_s = bytes * (1.0 + 1.0 / c.gpus_per_node) / (efficiency * c.intra.bandwidth_Bps);
  const double node_bytes = (c.nodes <= 2 ? 1.0 : 2.0) * bytes;
  const double net_s = node_bytes / (c.node_nic_Bps() * c.nccl.inter_bandwidth_efficiency * 5.0 / 6.0);
  const double transfer = std::max(intra_s, net_s);
  return {latency + transfer, latency, transfer, "Simple", "NVLSTree", c.nccl.simple};
}

CollectiveTime EstimateAllReduce(const Traffic& ring, double bytes, const ClusterSpec& c,
                                 unsigned algorithms) {
  CollectiveTime best;
  if (algorithms & kNcclTree) best = Best(best, TreeAllReduce(ring, bytes, c));
  if (algorithms & kNcclNvlsTree) best = Best(best, NvlsTreeAllReduce(bytes, c));
  if (algorithms & kNcclNvls) {
    const double nvls = NvlsAllReduceSeconds(bytes, c.total_gpus(), c);
    if (nvls > 0) {
      const double latency = NvlsLatencySeconds(c);
      best = Best(best, {nvls, latency, nvls - latency, "Simple", "NVLS", c.nccl.simple});
    }
  }
  if ((algorithms & kNcclRing) || best.seconds <= 0) best = Best(best, RingAllReduce(ring, bytes, c));
  return best;
}

namespace {

// A TP group of consecutive ranks (placement.h kTensor) that lies inside one node.
bool TensorGroupInNode(const CollectiveSpec& s, const ClusterSpec& c) {
  return s.group == GroupKind::kTensor && s.group_size > 1 && c.gpus_per_node > 0 &&
         s.group_size <= c.gpus_per_node && c.gpus_per_node % s.group_size == 0;
}

}  // namespace

bool IsTunedAllReduce(const CollectiveSpec& s, const ClusterSpec& c) {
  if (s.kind != CollectiveKind::kAllReduce) return false;
  if (TensorGroupInNode(s, c)) return true;
  // The communicator is every GPU: the global group, or a MiCS / HSDP replica group with shard groups of one
  // rank (its node-major ring is the global one, traffic.h).
  return (s.group == GroupKind::kGlobal || s.group == GroupKind::kReplica) &&
         s.group_size == c.total_gpus() && s.group_size > 1;
}

ClusterSpec TunerView(const CollectiveSpec& s, const ClusterSpec& c) {
  if (!TensorGroupInNode(s, c) || s.group_size == c.total_gpus()) return c;
  ClusterSpec view = c;
  view.nodes = 1;
  view.gpus_per_node = s.group_size;
  return view;
}

TierScale AllReduceTierScale(const Traffic& ring, double bytes, const char* algorithm, const ClusterSpec& c) {
  TierScale k;
  const std::string_view a = algorithm;
  const int ranks = c.total_gpus();
  if (a == "Tree" && ranks > 1) {
    k.intra = k.cross = static_cast<double>(ranks) / (ranks - 1);
  } else if (a == "NVLS" || a == "NVLSTree") {
    // Per GPU port and direction (NvlsAllReduceSeconds' wire bytes); per node across (NvlsTreeAllReduce).
    const double port_bytes = bytes * (1.0 + 1.0 / c.gpus_per_node);
    if (ring.max_gpu_port_bytes > 0) k.intra = port_bytes / ring.max_gpu_port_bytes;
    const double node_bytes = (c.nodes <= 2 ? 1.0 : 2.0) * bytes;
    if (a == "NVLSTree" && ring.max_node_nic_bytes > 0) k.cross = node_bytes / ring.max_node_nic_bytes;
  }
  return k;
}

Traffic ScaleTraffic(const Traffic& ring, const TierScale& scale, const char* algorithm) {
  Traffic t = ring;
  t.intra_total_bytes *= scale.intra;
  t.max_gpu_port_bytes *= scale.intra;
  t.cross_total_bytes *= scale.cross;
  t.max_node_nic_bytes *= scale.cross;
  t.max_leaf_uplink_bytes *= scale.cross;
  const std::string_view a = algorithm;
  if (a == "Tree") t.ring_rank_bytes *= scale.intra;
  if (a == "NVLS" || a == "NVLSTree") t.ring_rank_bytes = 0;
  return t;
}

namespace {

// WireTierScale and WireTraffic of `s` whose placement's traffic is `ring` (CollectiveTraffic(s, c)).
TierScale TierScaleOf(const CollectiveSpec& s, const Traffic& ring, const CollectiveTime& tuned,
                      const ClusterSpec& c) {
  if (!IsTunedAllReduce(s, c) || tuned.algorithm == nullptr) return TierScale{};
  return AllReduceTierScale(ring, s.buffer_bytes, tuned.algorithm, TunerView(s, c));
}

Traffic WireOf(const CollectiveSpec& s, const Traffic& ring, const CollectiveTime& tuned,
               const ClusterSpec& c) {
  if (!IsTunedAllReduce(s, c)) return ring;
  const char* algorithm = tuned.algorithm != nullptr ? tuned.algorithm : "Ring";
  return ScaleTraffic(ring, TierScaleOf(s, ring, tuned, c), algorithm);
}

}  // namespace

TierScale WireTierScale(const CollectiveSpec& s, const CollectiveTime& tuned, const Placement& placement) {
  return TierScaleOf(s, CollectiveTraffic(s, placement), tuned, placement.cluster);
}

Traffic WireTraffic(const CollectiveSpec& s, const CollectiveTime& tuned, const Placement& placement) {
  return WireOf(s, CollectiveTraffic(s, placement), tuned, placement.cluster);
}

Traffic WireTraffic(const CollectiveSpec& s, const Placement& placement) {
  if (!IsTunedAllReduce(s, placement.cluster)) return CollectiveTraffic(s, placement);
  return WireTraffic(s, EstimateScheduledCollective(s, placement), placement);
}

CollectiveTime EstimateScheduledCollective(const CollectiveSpec& s, const Placement& placement) {
  const ClusterSpec& c = placement.cluster;
  const Traffic ring = CollectiveTraffic(s, placement);
  if (!IsTunedAllReduce(s, c)) return EstimateCollective(ring, c);
  CollectiveTime t = EstimateAllReduce(ring, s.buffer_bytes, TunerView(s, c));
  // The ring's step structure, carrying the tuner's latency in total (the replay delays by each step's).
  const NcclProtocol& p = t.params;
  const double ring_latency_s = p.base_latency_s + ring.intra_steps * p.intra_step_latency_s +
                                ring.inter_steps * p.inter_step_latency_s;
  NcclProtocol q = p;
  if (ring_latency_s > 0) {
    const double k = t.latency_s / ring_latency_s;
    q.base_latency_s *= k;
    q.intra_step_latency_s *= k;
    q.inter_step_latency_s *= k;
  } else {
    q = NcclProtocol{};
    q.base_latency_s = t.latency_s;
  }
  // NCCL's tuner picks by its own model, which sees each node's NICs but not a fat tree's oversubscribed
  // leaf uplinks (tuning.cc: NVLSTree's bwInter is the NIC's): where the algorithm's bytes need longer on
  // the links (at line rate x the tier's efficiency) than the tuner's transfer, the links set it.
  const double t1 = TransferSeconds(WireOf(s, ring, t, c), c, 1.0);
  if (t1 > t.transfer_s) {
    t.seconds += t1 - t.transfer_s;
    t.transfer_s = t1;
  }
  // The ring's flows, carrying the algorithm's bytes of their tier, at this factor move the buffer in the
  // transfer time.
  q.bandwidth_factor = t.transfer_s > 0 && t1 > 0 ? t1 / t.transfer_s : p.bandwidth_factor;
  t.params = q;
  return t;
}

}  // namespace zerosim::model
