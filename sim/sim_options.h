// How the SimGrid replay runs: fidelity of collectives, the symmetric reduction, what it records.
#pragma once

#include <string>
#include <vector>

namespace zerosim::sim {

// How a collective becomes flows.
enum class Fidelity {
  // One flow per ring edge carrying all its bytes ((g-1)/g of the buffer), NCCL's whole latency term as one
  // delay before it; all-to-all aggregated into one flow per GPU and fabric class (same node, same leaf,
  // other leaf, ...). O(P) flows per collective. The default.
  kMacro,
  // Every ring step is a flow per edge (g-1 steps of buffer/g, each after the previous step has finished
  // everywhere and after its own NCCL step latency); all-to-all one flow per pair. O(P^2) flows per
  // collective: for validation up to about 1,024 GPUs. Always replays the full platform.
  kStep,
};

enum class Reduction {
  // Every rank is identical (they run the same schedule; collectives finish for all their members
  // together), so one representative rank's actors replay the schedule and each collective carries the
  // flows of every group instance. When the fabric is made of identical groups (nodes on one switch,
  // leaves or pods of a fat tree), only two such groups are built: rings wrap around them and all-to-all
  // flows reach their mirror images there, which puts the same bytes on every link as the whole cluster.
  // Exact against kFull (tests/sim/reduction_test.cc).
  kSymmetric,
  // One set of actors per rank on the whole platform: the reference the reduction is checked against.
  kFull,
  // Equivalence classes of nodes (rank_classes.h) on the whole platform: one set of actors per class, the
  // fabric's flows of every node, the NVSwitch flows of one representative node per class. kSymmetric is
  // this with one class (and the platform shrunk to two symmetry units); with perturbations kSymmetric
  // replays these classes. Exact against kFull (tests/sim/rank_class_test.cc).
  kClasses,
};

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

struct SimOptions {
  Fidelity fidelity = Fidelity::kMacro;
  Reduction reduction = Reduction::kSymmetric;
  std::vector<int> trace_ranks;  // ranks whose op timelines are recorded (for --trace)
  int actor_stack_kib = 128;     // SimGrid actor stacks (virtual memory)
  Perturbations perturbations;
  // Passed to SimGrid (`--cfg`, `--log`): configuration settings "KEY:VALUE", applied after ZeroSim's own
  // (sg4::Engine::set_config), and logging settings (xbt_log_control_set). The report records them.
  std::vector<std::string> simgrid_cfg;
  std::vector<std::string> simgrid_log;
  // Transfers of one collective step with the same route and size become one weighted SimGrid comm
  // (transfer_merge.h). Off: one comm per transfer, the reference the merge is tested against.
  bool merge_transfers = true;
  // The bytes the links carried (SimStats::*_capacity_bytes_measured) from SimGrid's link-load plugin
  // instead of the platform's own meter, which gives the same bytes without the plugin's route lookups per
  // comm (simgrid_platform.h, PlatformSpec::link_load_plugin); the reference the meter is tested against.
  bool link_load_plugin = false;
  // The symmetric reduction's two units folded into one (mirror_fold.h): the second unit's links are the
  // first's and only the first unit's flows are started. Off: both units' flows on both units' links, the
  // reference the fold is tested against.
  bool fold_units = true;
  // How many variants of a scenario are simulated at once, each replay in its own child process
  // (isolation.h SimulateAll). Not part of the replay: any value gives the same report bytes.
  int variant_jobs = 1;
  // Platform::TransferAll wakes its caller once, when the last of its transfers arrives, instead of the
  // caller waiting for each (PlatformSpec::wait_each_transfer, the reference this is tested against).
  bool wait_each_transfer = false;
};

const char* FidelityName(Fidelity f);
const char* ReductionName(Reduction r);

}  // namespace zerosim::sim
