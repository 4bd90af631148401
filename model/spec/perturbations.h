// Departures from a uniform cluster that a scenario states ([perturbations], model/io/perturbation_loader.h):
// slow nodes, degraded links, a second job's traffic. Facts of the scenario, so they live in the model's
// spec; the sim engine is the one that times them (sim/sim_options.h carries them into the replay), the
// analytic model times a uniform cluster.
#pragma once

#include <vector>

namespace zerosim::model {

// A node whose GPUs run slow: every compute, kernel and memory op of its GPUs takes `slowdown` times its
// nominal duration (its GPUs compute at their speed / `slowdown`; below 1: a faster node).
struct SlowNode {
  int node = 0;
  double slowdown = 1;
};

// A link running at `bandwidth_factor` (0, 1] of its nominal bandwidth, in both directions: a NIC of a
// node (`rail`), or the aggregate uplink of fabric group `group` at `level` (0: a leaf, 1: a pod). A failed
// cable among u of a group's uplinks is the factor (u-1)/u (ECMP over the survivors).
struct DegradedLink {
  enum class Kind { kNic, kUplink };
  Kind kind = Kind::kNic;
  int node = 0;   // kNic
  int rail = 0;   // kNic
  int level = 0;  // kUplink
  int group = 0;  // kUplink
  double bandwidth_factor = 1;
};

// A second job's traffic: a steady stream from a GPU of `src_node` to a GPU of `dst_node` (local rank
// `gpu` on both) at `rate_Bps` on the wire, for the whole iteration, sharing links max-min with ours.
struct BackgroundFlow {
  int src_node = 0;
  int dst_node = 0;
  int gpu = 0;
  double rate_Bps = 0;
};

// Departures from a uniform cluster; the sim engine only (the analytic model times a uniform cluster).
struct Perturbations {
  std::vector<SlowNode> slow_nodes;
  std::vector<DegradedLink> links;
  std::vector<BackgroundFlow> background;
  bool empty() const { return slow_nodes.empty() && links.empty() && background.empty(); }
};

}  // namespace zerosim::model
