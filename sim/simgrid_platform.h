// The seam between ZeroSim and SimGrid 3.32. Every SimGrid call of the project lives in
// simgrid_platform.cc (engine configuration, actors, activities), platform_builder.cc (zones, links, routes)
// and link_meter.cc (what the links carried, behind Platform::CarriedBytes); the rest of sim/ talks to the
// small typed interface below, which names GPUs and links by index and never exposes SimGrid types.
//
// The platform (per direction, every link full duplex, zero link latency: NCCL's latency is applied by
// the replay as explicit delays, so that latency never biases max-min sharing):
//  - each node is a zone of `gpus_per_node` GPU hosts; on an NVSwitch node a GPU reaches another GPU of its
//    node through its own NVSwitch port and the peer's (one link per GPU, `nvlink_Bps`), and leaves the node
//    through the NIC of its rail (model::RailOf: GPU g of N uses NIC floor(g * nics / N), `nic_Bps` each);
//    cross-node traffic never touches the NVSwitch ports;
//  - a PCIe node (NodeFabric::kPcie): each GPU's PCIe link (`nvlink_Bps`) into its switch (`gpus_per_switch`
//    GPUs each), each switch's uplink to its socket (`switch_uplink_Bps`), and between two sockets one link
//    (`socket_link_Bps`; switches split evenly over the sockets, in order). GPUs of one switch talk through
//    it; others through the uplinks and, across sockets, the socket link. A GPU's NIC (its rail) sits on its
//    own switch: cross-node traffic crosses the GPU's PCIe link and the NIC (model/spec/intra_fabric.h);
//  - an NVLink mesh (NodeFabric::kMesh): one link per ordered GPU pair (`nvlink_Bps` each, the pair's links
//    one way), NICs as on NVSwitch nodes;
//  - nodes hang off a non-blocking switch, directly (single switch; rail-optimized, whose rail switches and
//    spine are non-blocking too) or through a hierarchy of groups (fat tree: leaves of nodes, optionally
//    pods of leaves), each group joined to its parent by one aggregate uplink (`uplink_Bps`, ideal ECMP
//    over the group's physical uplinks);
//  - network model CM02 (plain max-min fair sharing) with cross-traffic off and TCP-gamma off; the
//    collective library's per-tier bandwidth efficiency enters through SimGrid's bandwidth-factor
//    callback: a transfer between GPUs of one node progresses at intra_efficiency of its share, any other
//    at inter_efficiency (the link still carries its full share: the overhead occupies the wire).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/status.h"

namespace zerosim::sim {

// One level of a fat tree above the nodes: groups of `children` members of the level below (nodes for
// the first level), each group joined to its parent by uplinks of `uplink_Bps` together, per direction.
struct FabricLevel {
  int children = 0;
  double uplink_Bps = 0;
};

// The intra-node fabric of every node (header).
enum class NodeFabric : uint8_t { kNvSwitch, kPcie, kMesh };

struct PlatformSpec {
  int nodes = 0;
  int gpus_per_node = 0;
  int nics_per_node = 1;
  double gpu_flops = 0;  // host speed of every GPU, FLOP/s
  NodeFabric fabric = NodeFabric::kNvSwitch;
  // Per direction: the GPU's NVSwitch port; a PCIe node's GPU link into its switch; a mesh's pair link.
  double nvlink_Bps = 0;
  // PCIe nodes only (header): GPUs per switch, a switch's uplink, sockets (1 or 2) and the link between them.
  int gpus_per_switch = 0;
  double switch_uplink_Bps = 0;
  int sockets = 1;
  double socket_link_Bps = 0;
  double nic_Bps = 0;               // per NIC, per direction
  std::vector<FabricLevel> levels;  // bottom-up; empty: every node on one non-blocking switch
  double intra_efficiency = 1;      // bandwidth factor of transfers inside a node
  double inter_efficiency = 1;      // bandwidth factor of transfers between nodes
  int actor_stack_kib = 128;        // SimGrid contexts/stack-size
  // Perturbations (empty: none). Per node, its GPUs' speed divided by this (a slow node's slowdown).
  std::vector<double> node_slowdown;
  // Per node and rail (node * nics_per_node + rail): the NIC's bandwidth factor.
  std::vector<double> nic_factor;
  // Per level, per group of that level: its uplink's bandwidth factor.
  std::vector<std::vector<double>> uplink_factor;
  // SimGrid settings from the user (SimOptions::simgrid_cfg / simgrid_log), applied after ZeroSim's own.
  std::vector<std::string> simgrid_cfg;
  std::vector<std::string> simgrid_log;
  // CarriedBytes from SimGrid's link-load plugin (true) or from the platform's own meter (false): what
  // SimGrid moved of each finished transfer, on the links of its route, without the plugin's route
  // computation at each comm's start and completion, and without its sampling error (link_meter.h).
  bool link_load_plugin = false;
  // TransferAll waits for each comm (s4u Comm::wait) instead of once for all of them (its default): the
  // reference the single wait is tested against (simgrid_platform.cc, TransferAll).
  bool wait_each_transfer = false;
  // The nodes of the second half (the second of two top-level groups: two nodes of a flat fabric, two
  // leaves or pods of a fat tree) mirror the first half's: their GPU hosts exist, but every route of theirs
  // runs over the links of the node or group they mirror, and no links of their own are built
  // (mirror_fold.h). Needs no perturbations.
  bool mirrored = false;
};

// kNvLink: a GPU's own link into the intra-node fabric (NVSwitch port, PCIe link, mesh pair link), the one
// whose up half counts a flow's intra-node bytes; kHost: a PCIe switch's uplink or the socket link.
enum class LinkTier : uint8_t { kNvLink, kNic, kUplink, kHost };

struct LinkInfo {
  LinkTier tier = LinkTier::kNvLink;
  bool up = true;  // away from the GPU (NVLink), out of the node (NIC), out of the group (uplink)
  std::string name;
};

// A host-to-host transfer between two GPUs (indices: node * gpus_per_node + local rank).
struct Transfer {
  int src = 0;
  int dst = 0;
  uint64_t wire_bytes = 0;  // bytes the links carry (payload plus protocol overhead)
  // Identical transfers (same links, same size, started together) it stands for: one SimGrid comm of
  // count * wire_bytes whose max-min share is count times one's (sharing penalty 1 / count), which carries
  // the links' load of the count transfers and arrives when each of them would (transfer_merge.h).
  int count = 1;
};

// A counting semaphore for actors: Wait() blocks the calling actor until Notify() was called once more
// than Wait() returned. Create and use only while the platform exists.
class Signal {
 public:
  Signal();
  ~Signal();
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;
  void Wait();
  void Notify();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Platform {
 public:
  // Creates SimGrid's engine with ZeroSim's network configuration and builds `spec`. SimGrid's engine is
  // a process-wide singleton: this succeeds once per process; a second call returns an error.
  static StatusOr<std::unique_ptr<Platform>> Create(const PlatformSpec& spec);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  const PlatformSpec& spec() const { return spec_; }
  int num_gpus() const { return spec_.nodes * spec_.gpus_per_node; }
  const std::vector<LinkInfo>& links() const { return links_; }

  // Bytes of link capacity link `link` has carried so far: what SimGrid moved of each finished transfer over
  // it, over the transfer's bandwidth factor (or, with PlatformSpec::link_load_plugin, SimGrid's link-load
  // plugin's integral of the link's load); the egress halves of NIC and NVSwitch-port links are tracked,
  // others give 0. A second job's streams count only in the plugin's.
  double CarriedBytes(int link) const;
  // The bandwidth factor SimGrid applies to a transfer from GPU `src` to GPU `dst` (intra- or inter-node
  // efficiency, as the platform's bandwidth-factor callback decides).
  double BandwidthFactor(int src, int dst) const;

  // Link indices of SimGrid's route from GPU `src` to GPU `dst` (cached per pair).
  const std::vector<int>& Route(int src, int dst);

  // Starts an actor running `body` on GPU `gpu`'s host when the simulation runs.
  void Spawn(const std::string& name, int gpu, std::function<void()> body);

  // Runs the simulation until every actor has returned; returns the simulated time in seconds. Error: the
  // link-load meter missed a transfer's end (a bug).
  StatusOr<double> Run();

  // --- Activities: call only from inside an actor. ---
  // Simulated time now, seconds.
  static double Now();
  // Computes `flops` on the calling actor's GPU; concurrent computations on one GPU share its speed.
  static void Compute(double flops);
  // Waits `seconds` of simulated time without using any resource.
  static void Delay(double seconds);
  // Starts every transfer at once and returns when all have arrived. Transfers of 0 bytes are skipped; a
  // transfer with count > 1 is one comm weighted as count transfers (Transfer::count).
  void TransferAll(const std::vector<Transfer>& transfers);
  // Starts a background load on each GPU in `gpus`: until StopGpuLoad, it takes `fraction` (0..1] of the
  // GPU's speed, ahead of the GPU's other computations (they share what is left). Returns its handle.
  int StartGpuLoad(const std::vector<int>& gpus, double fraction);
  // Ends load `handle`; returns the GPU-seconds it consumed on each of its GPUs (in StartGpuLoad's order).
  std::vector<double> StopGpuLoad(int handle);

  // A second job's steady stream from GPU `src` to GPU `dst` at most at `rate_Bps` (<= 0: as fast as
  // max-min sharing lets it), from the simulation's start until the last replay actor has returned.
  // Call before Run().
  void AddBackgroundFlow(int src, int dst, double rate_Bps);

 private:
  struct Impl;
  explicit Platform(const PlatformSpec& spec);

  PlatformSpec spec_;
  std::vector<LinkInfo> links_;
  std::unique_ptr<Impl> impl_;
};

// "3.32.0": the version of the SimGrid library linked in.
std::string SimGridVersion();

// The network configuration the platform pins, for provenance.
const char* SimGridNetworkConfig();

}  // namespace zerosim::sim
