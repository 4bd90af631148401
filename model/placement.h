// Placement: where the ranks of each group kind sit on a cluster, and the NIC (rail) each GPU leaves its node
// through. The one place ZeroSim says so: the analytic traffic count (traffic.h), NCCL's communicator shapes
// (nccl_channels.h) and the SimGrid replay (sim/collective_plan.h's flows, sim/rank_classes.h, the platform's
// rail wiring in sim/simgrid_platform.cc) all read it; tests/model/placement_test.cc checks that
// PlaceGroup's closed forms, and traffic.h's counts, equal what the enumerated members give.
//
// Ranks are node-major: rank r is local rank r % N of node r / N (N GPUs per node), as launchers number them
// (torchrun: RANK = node_rank * nproc_per_node + local_rank).
// Rails: GPU g of a node uses NIC floor(g * nics / N) (contiguous rails; model/feasibility.h requires the
// NICs to divide the GPUs).
//
// Groups (model/schedule.h GroupKind), members listed in NCCL ring order, which is node-major:
//  - kGlobal: one instance, every rank;
//  - kHpz: h consecutive ranks (h = zero_hpz_partition_size);
//  - kLocal: the N ranks of one node;
//  - kCrossNode: the ranks of one local rank, one per node (instance i: local rank i);
//  - kShard: s consecutive ranks (s = Schedule::shard_group_size; several nodes when s > N);
//  - kReplica: the ranks of one position in their shard group, one per shard group (instance i: position i);
//  - kShardCrossNode: inside one shard group of s > N ranks, the ranks of one local rank, one per node (s/N
//    of them); with s <= N the group of one rank.
#pragma once

#include <vector>

#include "model/cluster_spec.h"
#include "model/schedule.h"

namespace zerosim::model {

// The NIC (rail) that local rank `local_rank` of a node of `gpus_per_node` GPUs and `nics` NICs leaves its
// node through: floor(local_rank * nics / gpus_per_node).
int RailOf(int local_rank, int gpus_per_node, int nics);

// The shape of a cluster's ranks: all a schedule depends on of the cluster (BuildSchedule's input; its
// links, bandwidths and GPU model only matter to the engines that time it).
// Built implicitly from a ClusterSpec, so that BuildSchedule(m, z, cluster) states what it reads of it.
struct RankShape {
  RankShape() = default;
  RankShape(int n, int g) : nodes(n), gpus_per_node(g) {}
  RankShape(const ClusterSpec& c) : nodes(c.nodes), gpus_per_node(c.gpus_per_node) {}  // NOLINT: implicit
  int nodes = 1;
  int gpus_per_node = 1;
  int total_gpus() const { return nodes * gpus_per_node; }
  bool operator==(const RankShape&) const = default;
};

// The ranks being placed: `nodes` nodes of `gpus_per_node` GPUs (the cluster's, or the nodes a SimGrid
// platform holds), and the sizes of the schedule's groups.
struct RankGrid {
  int nodes = 1;
  int gpus_per_node = 1;
  int hpz = 1;    // ranks of an hpZ group
  int shard = 0;  // ranks of a shard group (Schedule::shard_group_size); 0: one node
  int ranks() const { return nodes * gpus_per_node; }
};

// The grid of the whole cluster `c` with hpZ groups of `hpz` ranks and shard groups of `shard` (0: one node).
RankGrid GridOf(const ClusterSpec& c, int hpz, int shard = 0);

// Number of group instances of `group` on `grid`: ranks() / (the group's size).
int GroupInstances(GroupKind group, const RankGrid& grid);

// The members of instance `instance` (0 <= instance < GroupInstances) of `group`: global ranks in ring order.
std::vector<int> GroupMembers(GroupKind group, int instance, const RankGrid& grid);

// The instance of `group` that rank `rank` is a member of.
int InstanceOf(GroupKind group, int rank, const RankGrid& grid);

// The nodes `members` (ranks, in ring order) sit on, each once, in ring order.
std::vector<int> NodesOf(const std::vector<int>& members, int gpus_per_node);

// Number of ranks in `group` on `cluster` (hpz_size used for GroupKind::kHpz; shard_size, the ranks of a
// shard group, for kShard, kReplica and kShardCrossNode, 0 meaning one node).
int GroupSize(GroupKind group, const RankShape& shape, int hpz_size, int shard_size = 0);

// Where the instances of a group kind sit: how many run at once, the nodes one instance spans, and how many
// instances touch one node.
struct GroupPlacement {
  int instances = 1;
  int nodes = 1;     // nodes one instance spans (1: inside a node)
  int per_node = 1;  // instances with members on one node
  // Instances with members under one fat-tree leaf (each leaves the leaf once: its members there are
  // consecutive on its node-major ring); per_node unless instances of one member per node differ between
  // the leaf's nodes (replica groups of shard groups over several nodes: min(s, nodes_per_leaf x N)).
  int per_leaf = 1;
  int span_nodes = 1;  // consecutive nodes one instance's members range over (for fat-tree leaves)
};
// The closed form of what GroupMembers enumerates (per_node and per_leaf where an instance spans several
// nodes), for `group_size` ranks per instance: traffic.h counts ring edges from it without listing members.
GroupPlacement PlaceGroup(GroupKind group, int group_size, const ClusterSpec& cluster);

}  // namespace zerosim::model
