// From a collective op to flows on the simulated platform: where the ranks sit (Layout), which ranks form
// each group instance, and the steps of transfers a collective is made of at each fidelity.
//
// Placement is model/placement/placement.h's, as model/placement/traffic.h counts it, so that the bytes
// SimGrid carries equal the schedule's: the group instances on the platform's ranks (Layout::grid) and their
// members in ring order.
//  - every instance is a node-major ring over its members (all-reduce: two rounds of it); its cross-node
//    edges are spread over the NICs of its members on the node as NCCL spreads its channels (channel c
//    leaves from and arrives at the first member on rail c); on an NVLink mesh each intra-node edge is
//    NCCL's two rings, half the bytes each way (Layout::intra_rings);
//  - qgZ's intra-node all-to-all sends (g-1)/g of the buffer out of every GPU port (per pair on PCIe and
//    mesh nodes, Layout::all_pairs_in_node); the cross-node one
//    sends buffer/K to each other node, aggregated per fabric class at the macro level (see .cc).
#pragma once

#include <vector>

#include "model/cost/collective_time.h"
#include "model/cost/placed_collectives.h"
#include "model/placement/placement.h"
#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"
#include "model/status.h"
#include "sim/sim_options.h"
#include "sim/simgrid_platform.h"

namespace zerosim::sim {

// The ranks and nodes the platform holds and how they stand for the real cluster.
struct Layout {
  int real_nodes = 0;     // K of the cluster
  int sim_nodes = 0;      // nodes built on the platform (K, or two symmetry units)
  int gpus_per_node = 0;  // N
  int nics = 1;
  // The schedule's group sizes (placement.h GridOf(schedule): hpz, shard, tensor, expert, context); its nodes
  // are the platform's (grid()).
  model::RankGrid groups;
  int intra_rings = 1;           // rings NCCL runs over a node's links at once: 2 on an NVLink mesh of 3-4 GPUs
  // PCIe and mesh nodes: an intra-node all-to-all runs as its flows per pair at every fidelity (the ring-edge
  // stand-in of an NVSwitch node, where every pair crosses the same two ports, would miss the switch uplinks,
  // the socket link and the pair links its bytes share).
  bool all_pairs_in_node = false;
  std::vector<int> level_nodes;  // nodes under one group of each fat-tree level, bottom-up (leaf, pod)
  bool symmetric = false;        // the platform's ranks stand for the real ones (shrunk, scaled)
  bool node_classes = false;     // equivalence classes of nodes on the whole platform (rank_classes.h)
  // The second of the two symmetry units mirrors the first: its GPUs route over the first unit's links and
  // only the first unit's flows are started (mirror_fold.h).
  bool folded = false;
  int sim_gpus() const { return sim_nodes * gpus_per_node; }
  // The platform's ranks and group sizes, for model/placement/placement.h (its group instances and their
  // members).
  model::RankGrid grid() const {
    model::RankGrid g = groups;
    g.nodes = sim_nodes;
    g.gpus_per_node = gpus_per_node;
    return g;
  }
  // Real bytes per simulated byte: the platform holds sim_nodes of the real_nodes.
  double scale() const { return static_cast<double>(real_nodes) / sim_nodes; }
  // Real bytes per byte of a started flow: scale(), twice that when folded (each flow stands for its
  // mirror image too).
  double flow_scale() const { return folded ? 2 * scale() : scale(); }
};

// The classes of the `nodes` real nodes by GPU slowdown, numbered in order of first appearance (node 0's
// class is 0); `slowdowns`, if given, receives each class's slowdown.
std::vector<int> SlowdownClasses(int nodes, const std::vector<SlowNode>& slow,
                                 std::vector<double>* slowdowns);

// The layout for `c` replayed with `o`. Under kSymmetric without perturbations, the platform shrinks to two
// symmetry units (nodes on a flat fabric, leaves or pods of a fat tree) when the cluster holds at least two
// of them and kStep was not asked for. Slow nodes alone keep that platform (the fabric's flows are the
// same on every node and start together for all; each slowdown class gets a node of its own on it) when it
// has a node per class and hpZ groups fit in a node; other perturbations make kSymmetric replay node
// classes on the whole platform, as kClasses.
// A shard, expert or context group spanning several nodes keeps the platform whole unless two symmetry units
// hold at least two whole groups.
// `groups`: the schedule's group sizes (placement.h GridOf(schedule): hpz, shard, tensor, expert, context;
// its nodes and GPUs per node are not read, `c`'s are). Its DP groups are strided by the tensor size; a
// tensor group larger than a node keeps the whole platform.
Layout MakeLayout(const model::ClusterSpec& c, const model::RankGrid& groups, const SimOptions& o);

// The SimGrid platform of `layout`: links and efficiencies from `c`; every GPU computes at `gpu_flops`,
// less on slow nodes; links degraded as `p` says. Errors: a perturbation naming a node, rail or fabric
// group the cluster does not have, or a factor that is not positive.
StatusOr<PlatformSpec> MakePlatformSpec(const model::ClusterSpec& c, const Layout& layout, double gpu_flops,
                                        int actor_stack_kib, const Perturbations& p = {});

// A payload of `bytes` from GPU `src` to GPU `dst` (platform indices).
struct Flow {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

// One step of a collective: a delay, then flows that all start together; the step ends when all arrived.
struct PlanStep {
  double latency_s = 0;
  std::vector<Flow> flows;
};

// The steps of collective `c` placed on the cluster as `placed` (its ring's steps; latency terms from NCCL's
// protocol choice placed.time; the bandwidth factor is applied by the caller as wire overhead), for the
// group instances `instances` together.
// Errors: a kind/group pair the schedule never emits (all-to-all over the global or hpZ group).
StatusOr<std::vector<PlanStep>> PlanCollective(const model::CollectiveSpec& c,
                                               const model::PlacedCollective& placed, const Layout& l,
                                               Fidelity f, const std::vector<int>& instances);

}  // namespace zerosim::sim
