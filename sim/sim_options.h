// How the SimGrid replay runs: fidelity of collectives, the symmetric reduction, what it records.
#pragma once

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
};

struct SimOptions {
  Fidelity fidelity = Fidelity::kMacro;
  Reduction reduction = Reduction::kSymmetric;
  std::vector<int> trace_ranks;  // ranks whose op timelines are recorded (for --trace)
  int actor_stack_kib = 128;     // SimGrid actor stacks (virtual memory)
};

const char* FidelityName(Fidelity f);
const char* ReductionName(Reduction r);

}  // namespace zerosim::sim
