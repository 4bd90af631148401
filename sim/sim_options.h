// How the SimGrid replay runs: fidelity of collectives, the symmetric reduction, what it records.
#pragma once

#include <string>
#include <vector>

#include "model/spec/perturbations.h"

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

// The scenario's departures from a uniform cluster (model/spec/perturbations.h), as the replay names them.
using model::BackgroundFlow;
using model::DegradedLink;
using model::Perturbations;
using model::SlowNode;

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
