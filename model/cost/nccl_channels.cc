#include "model/cost/nccl_channels.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <vector>

#include "model/placement/placement.h"
#include "model/spec/intra_fabric.h"

namespace zerosim::model {
namespace {

// The release tags whose search and connect code ZeroSim carries (nccl_channels.h).
enum class Era { k2_8, k2_12, k2_27 };

Era EraOf(const ClusterSpec& c) {
  const int minor = NcclReleaseMinor(c.nccl.release);
  if (minor < 0 || minor >= 25) return Era::k2_27;
  return minor <= 9 ? Era::k2_8 : Era::k2_12;
}

struct Speeds {
  const double* v;
  int n;
};

// search.cc speed arrays, GB/s per channel, fastest first.
// v2.8.4-1: one array for both (`speedArray`).
constexpr double k28[] = {42.0, 30.0, 24.0, 21.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                          7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
// v2.12.10-1: speedArrayIntra (no NIC in the communicator) and speedArrayInter.
constexpr double k212Intra[] = {44.0, 30.0, 22.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr double k212Inter[] = {48.0, 30.0, 24.0, 22.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
// v2.27.7-1: speedArrayIntra / Inter, sm90SpeedArrayIntra / Inter (ccMin >= 90), sm100SpeedArray* (>= 100).
constexpr double k227Intra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr double k227Inter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double k227Sm90Intra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double k227Sm90Inter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                    15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double k227Sm100Intra[] = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr double k227Sm100Inter[] = {96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                     17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

template <size_t N>
Speeds Of(const double (&a)[N]) {
  return {a, static_cast<int>(N)};
}

Speeds SpeedsFor(Era era, int cc, bool with_net) {
  switch (era) {
    case Era::k2_8:
      return Of(k28);
    case Era::k2_12:
      return with_net ? Of(k212Inter) : Of(k212Intra);
    case Era::k2_27:
      if (cc >= 100) return with_net ? Of(k227Sm100Inter) : Of(k227Sm100Intra);
      if (cc >= 90) return with_net ? Of(k227Sm90Inter) : Of(k227Sm90Intra);
      return with_net ? Of(k227Inter) : Of(k227Intra);
  }
  return Of(k28);
}

// MAXCHANNELS (src/include/devcomm.h, device.h): 32 up to 2.24, 64 from v2.25.1-1.
int MaxChannels(Era era) { return era == Era::k2_27 ? 64 : 32; }

// The link widths NCCL's topology gives one GPU of the communicator, GB/s, each at most what ZeroSim's link
// delivers (line rate x the tier's efficiency; header).
struct Widths {
  double nvlink = 0;  // the GPU's NVLink port into the NVSwitch (all its links)
  double nic = 0;     // one NIC
  int nics = 1;       // NICs at PIX distance from the communicator's GPUs of one node
};

Widths WidthsOf(const ClusterSpec& c, const NcclCommShape& shape, Era era, int cc) {
  Widths w;
  // NVLink links per GPU from the port's line rate: 25 GB/s per link and direction for NVLink 2-4 (V100,
  // A100, H100), 50 GB/s for NVLink 5 (Blackwell). NCCL's width per link (topo.h): v2.8.4-1 SM70/SM80 21.0;
  // v2.12.10-1 22.0; v2.27.7-1 SM70/SM80 20.0, SM90 20.6, SM100 40.1 (a GPU newer than NCCL's table takes
  // its newest row: `cudaCompCap >= 80 ? SM80_NVLINK_WIDTH`).
  const double per_link_line_Bps = cc >= 100 ? 50e9 : 25e9;
  const double links = std::max(1.0, std::round(c.intra.bandwidth_Bps / per_link_line_Bps));
  const double nccl_link = era == Era::k2_8    ? 21.0
                           : era == Era::k2_12 ? 22.0
                           : cc >= 100         ? 40.1
                           : cc >= 90          ? 20.6
                                               : 20.0;
  const double intra_eff = std::min(1.0, c.nccl.intra_bandwidth_efficiency);
  const double inter_eff = std::min(1.0, c.nccl.inter_bandwidth_efficiency);
  w.nvlink = std::min(links * nccl_link, c.intra.bandwidth_Bps * intra_eff / 1e9);
  // A PCIe node: NCCL's width of the GPU's PCIe path, its kvDictPciGen rating of the ring's slowest link
  // (intra_fabric.h kNcclPcieRating: 24 GB/s for Gen4 x16, 48 for Gen5 x16).
  if (c.intra.fabric == IntraFabric::kPcie) {
    w.nvlink = std::min(kNcclPcieRating * c.intra.bandwidth_Bps, c.intra.bandwidth_Bps * intra_eff) / 1e9;
  }
  // topo.cc: net->net.width = speed (Mbps) / 8000, i.e. the line rate in GB/s.
  w.nic = c.nic.bandwidth_Bps * inter_eff / 1e9;
  // GPU g of a node uses NIC floor(g x count / gpus_per_node) (placement.h RailOf): the communicator's
  // rails.
  w.nics = shape.rails > 0 ? shape.rails
                           : std::max(1, c.nic.count * shape.gpus_per_node / std::max(1, c.gpus_per_node));
  // The PCIe links between GPUs and NICs are left out: ZeroSim's topology gives no PCIe generation and its
  // transfers cross no PCIe hop. Where a node's NICs match its PCIe (100G on Gen3, 200G on Gen4, 400G on
  // Gen5: NCCL's widths 12, 24, 48 GB/s from topo.cc's lanes x kvDictPciGen rate / 80, against NICs of 12.5,
  // 25, 50) both land on the same speed of the arrays above, so the count is NCCL's.
  return w;
}

// Channels of speed `s` the links carry (ncclTopoSearchRecNet, followPath: each channel takes s from every
// link it crosses). Across nodes a channel enters from a NIC into one GPU, visits the node's GPUs over NVLink
// and leaves from a GPU into a NIC; inside a node it is a ring over NVLink.
int ChannelsAtSpeed(double s, const Widths& w, const NcclCommShape& shape, int max_channels) {
  auto fit = [s](double width) { return static_cast<int>(std::floor(width / s + 1e-9)); };
  int n = max_channels;
  if (shape.nodes > 1) {
    n = std::min(n, w.nics * fit(w.nic));
    if (shape.gpus_per_node > 1) n = std::min(n, fit(w.nvlink));
  } else {
    n = std::min(n, fit(w.nvlink));
  }
  return std::max(0, n);
}

// The bus bandwidth a ring of the communicator `shape` gets in ZeroSim beyond the links NCCL's search
// already sees (the NVLink ports and NICs, WidthsOf), GB/s; 0: no further bound. Two bounds NCCL's search
// does not know of: NCCL's own cap on a ring's bus bandwidth (NcclRingBusBandwidthCap: tuning.cc's
// `min(busBw, 235)` on Ampere, which the collective's time applies, collective_time.cc TransferSeconds), and
// the uplinks of the fat-tree leaves a communicator spanning several leaves crosses (a node-major ring leaves
// each leaf once: its bus bandwidth is at most the leaf's uplinks, LeafUplinkBps, as traffic.cc counts them).
double RingBusGBps(const ClusterSpec& c, const NcclCommShape& shape) {
  double bus_Bps = NcclRingBusBandwidthCap(c);
  if (shape.nodes > 1 && c.fabric.kind == FabricKind::kFatTree && c.fabric.nodes_per_leaf > 0 &&
      shape.nodes > c.fabric.nodes_per_leaf) {
    const double leaf_Bps = LeafUplinkBps(c) * std::min(1.0, c.nccl.inter_bandwidth_efficiency);
    bus_Bps = bus_Bps > 0 ? std::min(bus_Bps, leaf_Bps) : leaf_Bps;
  }
  return bus_Bps / 1e9;
}

int Pow2Up(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

// The communicator of one instance of `group` (group_size ranks) placed by `pl`, with the rails of `grid`'s
// instance 0 on its first node counted where `count_rails` (members that may be strided; consecutive ones
// leave through the contiguous share, rails 0).
NcclCommShape ShapeOf(GroupKind group, int group_size, const GroupPlacement& pl, const RankGrid& grid,
                      bool count_rails, const ClusterSpec& c) {
  NcclCommShape shape = pl.nodes > 1 ? NcclCommShape{std::max(1, group_size / pl.nodes), pl.nodes}
                                     : NcclCommShape{group_size, 1};
  if (count_rails && c.nic.count > 0 && c.gpus_per_node > 0) {
    const int n = c.gpus_per_node;
    const std::vector<int> members = GroupMembers(group, 0, grid);
    std::set<int> rails;
    for (int m : members) {
      if (m / n == members.front() / n) rails.insert(RailOf(m % n, n, c.nic.count));
    }
    shape.rails = static_cast<int>(rails.size());
  }
  return shape;
}

}  // namespace

NcclCommShape CommShapeOf(GroupKind group, int group_size, const Placement& placement) {
  if (group_size <= 1) return {1, 1};
  // The groups whose members on a node may be strided: replica (and expert-data), cross-node and
  // shard-cross-node groups; with t > 1 every kind's members are strided by t. Count the rails they leave
  // through.
  const bool strided = placement.grid.tensor > 1 || group == GroupKind::kReplica ||
                       group == GroupKind::kExpertData || group == GroupKind::kCrossNode ||
                       group == GroupKind::kShardCrossNode;
  return ShapeOf(group, group_size, placement.Place(group), placement.grid, strided, placement.cluster);
}

NcclCommShape CommShapeOf(const CollectiveSpec& s, const Placement& placement) {
  return CommShapeOf(s.group, s.group_size, placement);
}

NcclCommChannels CommChannels(const ClusterSpec& c, const NcclCommShape& shape) {
  NcclCommChannels out;
  const Era era = EraOf(c);
  const int cc = GpuComputeCapability(c);
  const bool with_net = shape.nodes > 1;
  const Widths w = WidthsOf(c, shape, era, cc);
  const int max_graph = MaxChannels(era) / 2;  // init.cc: ringGraph.maxChannels = MAXCHANNELS/2
  const Speeds speeds = SpeedsFor(era, cc, with_net);
  // search.cc ncclTopoSearchInit: maxBw is the GPU's best path to a NIC or, without one, to another GPU
  // (NVLink); totalBw the GPU's NVLink width (larger than its PCIe link's on NVSwitch nodes).
  const double max_bw = with_net ? w.nic : w.nvlink;
  const double total_bw = w.nvlink;
  int i = 0;
  while (i < speeds.n - 1 && (speeds.v[i] > max_bw || (era == Era::k2_27 && speeds.v[i] > total_bw))) ++i;
  int best_n = 0;
  double best_s = 0;
  for (;;) {
    const double s = speeds.v[i];
    const int n = ChannelsAtSpeed(s, w, shape, max_graph);
    // ncclTopoCompareGraphs: a graph replaces the best one when its channels x speed is larger.
    if (n >= 1 && n * s > best_n * best_s) {
      best_n = n;
      best_s = s;
    }
    if (best_n == max_graph) break;                        // "perfect": maxChannels reached
    if (best_n > 0 && best_n * best_s >= total_bw) break;  // the GPU's total width reached
    // "Decrease speed until we find a solution": while none, or the next speed is > 0.49 of the best one's.
    if (i < speeds.n - 1 && (best_n == 0 || speeds.v[i + 1] / best_s > 0.49)) {
      ++i;
    } else {
      break;
    }
  }
  if (best_n == 0) {
    // "Could not find a path ... falling back to simple order": one channel.
    best_n = 1;
    best_s = 0.1;
  }
  // Duplication: speed >= 25 (v2.8.4-1, v2.12.10-1); v2.27.7-1 ncclTopoDupChannels skips Hopper and later
  // (ccMin > 80) below 50 GB/s with more than 4 channels.
  const bool dup = best_s >= 25.0 && !(era == Era::k2_27 && cc > 80 && best_s < 50.0 && best_n > 4);
  if (dup) {
    const int d = std::min(2 * best_n, max_graph);
    best_s /= (d + best_n - 1) / best_n;
    best_n = d;
  }
  // No more channels than the bandwidth the communicator's rings get in ZeroSim can feed at the graph's
  // per-channel speed (RingBusGBps; header: channels follow the bandwidth the collective gets, so that more
  // bandwidth beyond a bottleneck NCCL's search does not see never adds CTAs that move nothing).
  const double ring_GBps = RingBusGBps(c, shape);
  if (ring_GBps > 0 && best_s > 0) {
    best_n = std::min(best_n, std::max(1, static_cast<int>(std::ceil(ring_GBps / best_s - 1e-9))));
  }
  out.graph_channels = best_n;
  out.graph_speed_GBps = best_s;
  // connect.cc ncclTopoPostset: channels doubled up to MAXCHANNELS; v2.27.7-1 doubles again on Hopper and
  // later across nodes when bwIntra > 45 and fewer than 16 channels; then NCCL_MAX_NCHANNELS.
  const int max_channels = MaxChannels(era);
  int n = std::min(max_channels, 2 * best_n);
  if (era == Era::k2_27 && cc >= 90 && with_net && best_s > 45.0 && n < 16) n = std::min(max_channels, 2 * n);
  if (c.nccl.max_channels > 0) n = std::min(n, c.nccl.max_channels);
  // NVLS (Hopper and later NVSwitch nodes; transport/nvls.cc: none with two GPUs or fewer in the node):
  // NVLS_NCHANNELS 16 from its introduction in v2.17.1-1; v2.27.7-1 SM100 24 on one node, 32 across. From
  // 2.25 (connect.cc) a communicator with fewer channels is raised to them.
  const int minor = NcclReleaseMinor(c.nccl.release);
  if (cc >= 90 && shape.gpus_per_node > 2 && (minor < 0 || minor >= 17)) {
    out.nvls_channels = era == Era::k2_27 && cc >= 100 ? (with_net ? 32 : 24) : 16;
    if (era == Era::k2_27) n = std::max(n, out.nvls_channels);
  }
  out.channels = std::max(1, n);
  // paths.cc ncclTopoComputeP2pChannels: min(nChannels, NCCL_MAX_P2P_NCHANNELS = MAXCHANNELS), rounded up to
  // a power of two.
  out.p2p_channels = std::min(max_channels, Pow2Up(out.channels));
  if (c.nccl.channels > 0) out.channels = out.p2p_channels = c.nccl.channels;
  return out;
}

int CollectiveChannels(const CollectiveSpec& op, const CollectiveTime& t, const Placement& placement) {
  if (op.group_size <= 1) return 1;
  const ClusterSpec& c = placement.cluster;
  const NcclCommChannels comm = CommChannels(c, CommShapeOf(op, placement));
  if (op.kind == CollectiveKind::kAllToAll) return comm.p2p_channels;
  const std::string_view algorithm = t.algorithm;
  if (algorithm == "NVLS" || algorithm == "NVLSTree") {
    return comm.nvls_channels > 0 && c.nccl.channels <= 0 ? comm.nvls_channels : comm.channels;
  }
  // enqueue.cc: maxThreads (tuning.cc) and threadThresholds (comm.h NCCL_*_THREAD_THRESHOLD) of the
  // algorithm and protocol.
  const std::string_view protocol = t.protocol;
  const bool ring = algorithm == "Ring";
  double threads = 512;
  double threshold = 64;  // NCCL_SIMPLE_THREAD_THRESHOLD
  if (protocol == "LL") {
    threshold = 8.0 * (ring ? op.group_size : 1);  // NCCL_LL_THREAD_THRESHOLD, x nRanks on rings
  } else if (protocol == "LL128") {
    threads = 640;  // NCCL_LL128_MAX_NTHREADS
    threshold = 8;  // NCCL_LL128_THREAD_THRESHOLD
  } else if (ring && comm.graph_speed_GBps * comm.graph_channels <= 12.0) {
    threads = 256;  // simpleDefaultThreads: ring graph bandwidth at most PCI_WIDTH
  }
  int n = comm.channels;
  while (n >= 2 && op.buffer_bytes < n * threads * threshold) --n;
  return n;
}

double SmShare(int channels, const ClusterSpec& c) {
  if (c.gpu.sms <= 0) return 0;
  return std::min(1.0, static_cast<double>(channels) / c.gpu.sms);
}

double CollectiveSmShare(const CollectiveSpec& op, const CollectiveTime& t, const Placement& placement) {
  return SmShare(CollectiveChannels(op, t, placement), placement.cluster);
}

int NcclChannels(const ClusterSpec& c) {
  return CommChannels(c, {c.gpus_per_node, std::max(1, c.nodes)}).channels;
}

double NcclSmShare(const ClusterSpec& c) { return SmShare(NcclChannels(c), c); }

}  // namespace zerosim::model
