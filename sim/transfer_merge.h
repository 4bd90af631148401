// Fewer, equivalent flows (issue #13, item 2): the transfers of one collective step that cross exactly the
// same links with the same size are one SimGrid comm standing for all of them (Transfer::count).
//
// Why it is exact: under max-min fairness (SimGrid CM02, zero link latency) k flows that share their whole
// route and start together are indistinguishable: on every link they get equal shares and finish together.
// One comm of k times the bytes at sharing penalty 1 / k is, in SimGrid's solver, k elements of weight 1
// on each of those links (usage += consumption / penalty) and receives k times one's share (value =
// min_usage / penalty; lmm/maxmin.cpp, System::solve in 3.32), so every other flow sees the same sharing
// and the merged comm arrives when each of the k would. With k a power of two the arithmetic is the same
// to the bit; tests/sim/transfer_merge_test.cc checks whole iterations against the unmerged replay.
//
// What merges: cross-node flows never touch the NVSwitch ports (simgrid_platform.h), so the flows a node's
// GPUs of one rail send to GPUs of one rail of one other node cross the same NIC, uplinks and peer NIC. The
// macro all-to-all across nodes (qgZ hop 2) sends one such flow per GPU and fabric class: on nodes of 16
// GPUs and one NIC, 16 of them become one. NVSwitch flows and ring edges have routes of their own.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/simgrid_platform.h"

namespace zerosim::sim {

// Replaces the transfers in `transfers` that have the same route (`routes[i]`: transfer i's links, as
// Platform::Route gives them) and the same wire bytes by one transfer (the first of them, in order) whose
// count is their number; the others keep their order. Returns how many transfers were folded into another.
int64_t MergeIdenticalTransfers(std::vector<Transfer>* transfers,
                                const std::vector<const std::vector<int>*>& routes);

}  // namespace zerosim::sim
