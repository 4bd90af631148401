// Equivalence classes of ranks for the replay: which ranks are replayed by one set of actors, and which
// nodes' NVSwitch traffic is simulated.
//
// Why classes are exact (checked against Reduction::kFull in tests/sim/rank_class_test.cc): every rank runs
// the same schedule; a collective finishes for all its members together; the NVSwitch ports of a node
// carry only that node's own flows (cross-node traffic leaves through the NICs, never through the ports).
// A rank's timeline therefore depends on its GPU's speed, its node's NVSwitch traffic, the global
// collectives (they finish at one time for all), the cross-node collective of its local rank (one rank of
// every node: on a uniform fabric they all finish together, on a perturbed one each rail's may finish at
// its own time), and, when a group spans several nodes but not all (hpZ wider than a node), on its partners
// in that group. Ranks equal in all of these run identical timelines, so one representative rank per class
// is replayed (its actors, and the NVSwitch flows of its node), while the fabric carries every node's
// flows.
#pragma once

#include <vector>

#include "sim/collective_plan.h"
#include "sim/sim_options.h"

namespace zerosim::sim {

// Ranks (platform GPU indices) grouped into classes; each class is replayed by one set of actors on its
// representative GPU (its lowest index, so the class of GPU 0 is class 0 and represented by GPU 0).
struct RankClasses {
  std::vector<int> class_of_gpu;           // per platform GPU
  std::vector<int> representative;         // per class: a GPU
  std::vector<bool> node_intra_simulated;  // per platform node: its NVSwitch flows are simulated
  std::vector<int> class_of_real_node;     // a shrunk (symmetric) platform: per real node, its class
  int count() const { return static_cast<int>(representative.size()); }
};

// A symmetric layout: one class per GPU slowdown (one class without slow nodes), class k on platform node
// k, whose NVSwitch flows are simulated. A layout with node classes: ranks are
// equal when their nodes' perturbations (GPU slowdown, degraded NICs, the uplink factors of their fabric
// groups) are equal, for hpZ groups wider than a node their partners' are too, in ring order, and, when
// links are degraded or a second job runs on a fabric with several NICs per node, they use the same rail.
// Otherwise (the full replay, step fidelity) one class per GPU and every node's flows.
RankClasses MakeRankClasses(const Layout& l, const Perturbations& p);

}  // namespace zerosim::sim
