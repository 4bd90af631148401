// Folding the two symmetry units of the shrunk platform into one (issue #13, fewer equivalent flows).
//
// The symmetric reduction (sim_options.h, Reduction::kSymmetric) builds two identical units (nodes of a
// flat fabric, leaves or pods of a fat tree) and carries the flows of every group instance on them. Their
// flows are mirror-symmetric: the map sigma(GPU g) = g + half mod 2 half, half being one unit's GPUs, sends
// every flow of a collective step to another flow of that step with the same bytes (node-major rings that
// span both units turn by half a turn, groups inside a unit go to the same group of the other unit, and each
// all-to-all class reaches its mirror image, collective_plan.cc). Sigma maps the platform onto itself too,
// so the max-min allocation, which is unique, gives a flow and its mirror image the same rate at every
// instant, and each pair arrives together.
//
// Folded, the platform keeps the second unit's GPUs as endpoints but not its links: its routes run over the
// first unit's links (a mirrored node's NIC is the NIC of the node it mirrors, a mirrored group's uplink
// that group's uplink). Only the flows leaving a GPU of the first unit are started; one from the first unit
// to the second crosses its own unit's uplink up and then that uplink down, which stands for the second
// unit's. A folded link L then carries the first unit's flows over L and over sigma(L), which are, one for
// one, the flows the unfolded L carries (the second unit's flows over L are the mirror images of the first
// unit's over sigma(L)), at the same rates: max-min sharing on the folded platform has the same solution,
// and every started flow arrives when it did unfolded. No route crosses both L and sigma(L) (a route leaves
// one unit and enters the other), so no folded route holds a link twice. Bytes count twice.
// tests/sim/mirror_fold_test.cc checks folded against unfolded iterations.
#pragma once

#include <vector>

#include "model/status.h"
#include "sim/collective_plan.h"

namespace zerosim::sim {

// The GPU that GPU `gpu` of the platform mirrors (sigma above) on the two units of `l`.
int MirrorOf(int gpu, const Layout& l);

// Whether `flows` are mirror-symmetric on `l`: the flows leaving the second unit are, as a multiset of
// (source, destination, bytes), the mirror images of those leaving the first. The replay checks it once per
// kind of collective before it starts only the first unit's flows.
bool FlowsMirrorSymmetric(const std::vector<Flow>& flows, const Layout& l);

// That check, once per collective kind and group (`checked` holds the keys already checked): Ok when `flows`
// of a collective `coll` are mirror-symmetric or its kind was checked before, else an error naming it (a
// bug: the fold would be wrong).
Status CheckMirrorSymmetricOnce(const model::CollectiveSpec& coll, const std::vector<Flow>& flows,
                                const Layout& l, std::vector<int>* checked);

}  // namespace zerosim::sim
