// Placement: where the ranks of each group kind sit on a cluster, and the NIC (rail) each GPU leaves its node
// through. The one place ZeroSim says so: the analytic traffic count (traffic.h), NCCL's communicator shapes
// (nccl_channels.h) and the SimGrid replay (sim/collective_plan.h's flows, sim/rank_classes.h, the platform's
// rail wiring in sim/simgrid_platform.cc) all read it; tests/model/placement_test.cc and
// placement_layout_test.cc check that PlaceGroup's closed forms, and traffic.h's counts, equal what the
// enumerated members give.
//
// Ranks are node-major: rank r is local rank r % N of node r / N (N GPUs per node), as launchers number them
// (torchrun: RANK = node_rank * nproc_per_node + local_rank).
// Rails: GPU g of a node uses NIC floor(g * nics / N) (contiguous rails; model/spec/feasibility.h requires
// the NICs to divide the GPUs).
//
// Layout (model/spec/parallel_layout.h: tensor t, pipeline p, data d = P / (t p)): ranks are ordered
// tp-dp-pp, innermost first, as Megatron-LM's default order, DeepSpeed's pipe topology and torchtitan's mesh
// do (docs/design/tensor_pipeline.md sec. 3.1): rank r has tp = r mod t, dp = (r / t) mod d, pp = r / (t d).
// With t = p = 1 (every engine today) dp = r and every group below is what it was before layouts.
//
// Groups (model/schedule/schedule.h GroupKind), members listed in NCCL ring order, which is node-major.
// The data-parallel kinds live inside one stage's data-parallel group: the DP group of (tp, pp) is the d
// ranks RankOf(tp, j, pp), j = 0 .. d-1, in j order. Each kind below is defined on that group seen as a
// "virtual cluster" of d ranks with N' = DpRanksPerNode (N / t, or 1 when t >= N) members per node, whose
// virtual nodes are real nodes of the stage (h, s and the kinds' sizes count DP ranks):
//  - kGlobal: the whole DP group (one instance per (tp, pp); at t = p = 1, every rank);
//  - kHpz: h consecutive DP ranks (h = zero_hpz_partition_size);
//  - kLocal: the N' DP ranks of one node;
//  - kCrossNode: the DP ranks of one virtual local rank, one per node (virtual instance i: local rank i);
//  - kShard: s consecutive DP ranks (s = Schedule::shard_group_size; several nodes when s > N');
//  - kReplica: the DP ranks of one position in their shard group, one per shard group (instance i:
//    position i);
//  - kShardCrossNode: inside one shard group of s > N' DP ranks, those of one virtual local rank, one per
//    node (s/N' of them); with s <= N' the group of one rank.
//  - kExpert, kExpertData: placed as kShard and kReplica are with s = e (RankGrid::expert): e consecutive DP
//    ranks (Megatron-Core's expert grid with the expert tensor size t), and the d/e DP ranks of one position
//    in their expert group (the expert-data-parallel group); with RankGrid::expert_folded (ETP 1 beside t >
//    1) the same rules over a stage's ranks as if t were 1: e consecutive ranks, and the t d / e at one
//    position;
//  - kContext: placed as kShard with s = c (RankGrid::context): c consecutive DP ranks (tp-cp-dp-pp order).
//  Each has its own size, so they live beside a MiCS or HSDP shard group of another size.
// Instance numbering of the data-parallel kinds: (pp t + tp) x (instances per DP group) + the virtual
// instance above; at t = p = 1 exactly today's numbers.
// Layout kinds:
//  - kTensor: the t consecutive ranks of one (dp, pp); instance r / t = pp d + dp;
//  - kPipeline: the p ranks of one (tp, dp), in stage order (a p2p pair is two consecutive members);
//    instance r mod (t d) = dp t + tp;
//  - kEmbedding: the first- and last-stage ranks of one (tp, dp) (2 members when p > 1, 1 when p = 1);
//    instance dp t + tp. Ranks of middle stages (0 < pp < p - 1) are in no instance: InstanceOf is -1.
#pragma once

#include <vector>

#include "model/schedule/schedule.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/parallel_layout.h"

namespace zerosim::model {

// The NIC (rail) that local rank `local_rank` of a node of `gpus_per_node` GPUs and `nics` NICs leaves its
// node through: floor(local_rank * nics / gpus_per_node).
int RailOf(int local_rank, int gpus_per_node, int nics);

// The shape of a cluster's ranks: all a schedule depends on of the cluster (BuildSchedule's input; its
// links, bandwidths and GPU model only matter to the engines that time it).
// Built implicitly from a ClusterSpec, so that BuildSchedule(m, z, cluster) states what it reads of it.
// With a layout, also how it groups the ranks (t, sequence parallelism): a schedule is one TP rank's.
struct RankShape {
  RankShape() = default;
  RankShape(int n, int g) : nodes(n), gpus_per_node(g) {}
  RankShape(const ClusterSpec& c) : nodes(c.nodes), gpus_per_node(c.gpus_per_node) {}  // NOLINT: implicit
  RankShape(const ClusterSpec& c, const ParallelLayout& l)
      : nodes(c.nodes),
        gpus_per_node(c.gpus_per_node),
        tensor(l.tensor),
        sequence_parallel(l.sequence_parallel),
        tp_comm_overlap(l.tp_comm_overlap),
        expert(l.expert),
        expert_tensor(l.expert_tensor),
        expert_load_imbalance(l.expert_load_imbalance),
        moe_token_dispatcher(l.moe_token_dispatcher),
        context(l.context),
        context_comm(l.context_comm) {}
  int nodes = 1;
  int gpus_per_node = 1;
  int tensor = 1;                  // ParallelLayout::tensor
  bool sequence_parallel = false;  // ParallelLayout::sequence_parallel
  bool tp_comm_overlap = false;    // ParallelLayout::tp_comm_overlap
  int expert = 1;                  // ParallelLayout::expert
  int expert_tensor = 0;           // ParallelLayout::expert_tensor
  double expert_load_imbalance = 1.0;  // ParallelLayout::expert_load_imbalance
  MoeDispatcher moe_token_dispatcher = MoeDispatcher::kAllToAll;  // ParallelLayout::moe_token_dispatcher
  int context = 1;                     // ParallelLayout::context
  ContextComm context_comm = ContextComm::kP2p;  // ParallelLayout::context_comm
  // The ranks are one stage of a pipeline (model/report/pipeline_evaluate.h, which builds each stage's
  // schedule on the stage's nodes): the runtime's pipeline rules apply (FSDP2: fsdp_builder.cc).
  bool pipeline_stage = false;
  int total_gpus() const { return nodes * gpus_per_node; }
  bool operator==(const RankShape&) const = default;
};

// The ranks being placed: `nodes` nodes of `gpus_per_node` GPUs (the cluster's, or the nodes a SimGrid
// platform holds), the sizes of the schedule's groups and the layout's t and p.
// Valid: t p divides ranks(), and t divides N or is a multiple of it (model/spec/feasibility.h CheckLayout).
struct RankGrid {
  int nodes = 1;
  int gpus_per_node = 1;
  int hpz = 1;       // DP ranks of an hpZ group
  int shard = 0;     // DP ranks of a shard group (Schedule::shard_group_size); 0: one node's, N'
  int tensor = 1;    // t: ranks of a tensor-parallel group
  int pipeline = 1;  // p: pipeline stages
  int expert = 1;    // e: DP ranks of an expert-parallel group (kExpert); ranks where expert_folded
  int context = 1;   // c: DP ranks of a context-parallel group (kContext)
  // The expert grid folds the tensor ranks in (ParallelLayout::expert_folded): kExpert is e consecutive ranks
  // of a stage, kExpertData the ranks at one position of theirs (the t = 1 rules over the stage's ranks).
  bool expert_folded = false;
  int ranks() const { return nodes * gpus_per_node; }
  // d: ranks of one stage's data-parallel group, ranks() / (t p).
  int data() const { return ranks() / (tensor * pipeline); }
};

// A rank's coordinates in the tp-dp-pp order: 0 <= tp < t, 0 <= dp < d, 0 <= pp < p.
struct RankCoord {
  int tp = 0;
  int dp = 0;
  int pp = 0;
  bool operator==(const RankCoord&) const = default;
};

// The coordinates of `rank` (0 <= rank < grid.ranks()): tp = r mod t, dp = (r / t) mod d, pp = r / (t d).
RankCoord CoordOf(int rank, const RankGrid& grid);

// The rank with coordinates `c` (each in range): (c.pp d + c.dp) t + c.tp; the inverse of CoordOf.
int RankOf(const RankCoord& c, const RankGrid& grid);

// The grid a schedule's collectives are placed on: its ranks (nodes, GPUs per node) and the group sizes its
// builder declared (hpZ, shard, tensor, expert, context; one pipeline stage's schedule: p = 1).
RankGrid GridOf(const Schedule& s);

// The grid of the whole cluster `c` with hpZ groups of `hpz` ranks and shard groups of `shard` (0: one node),
// t = p = 1 (pure data parallelism).
RankGrid GridOf(const ClusterSpec& c, int hpz, int shard = 0);

// The same with the layout's tensor and pipeline sizes (`hpz` and `shard` in DP ranks).
RankGrid GridOf(const ClusterSpec& c, int hpz, int shard, const ParallelLayout& layout);

// Whether every pipeline stage holds whole nodes: p == 1 or t d a multiple of N. Precondition of the data-
// parallel kinds' members (their virtual cluster is whole nodes of the stage) and of every closed form below
// (GroupSize, PlaceGroup); model/spec/feasibility.h is to refuse other layouts.
bool StagesAlignWithNodes(const RankGrid& grid);

// N': members of one stage's DP group on one node it touches: N / t, or 1 when t >= N (TP across nodes).
int DpRanksPerNode(const RankGrid& grid);

// Number of group instances of `group` on `grid`: ranks() / (the group's size), but for kEmbedding with
// p > 2 (t d instances of 2 ranks: the middle stages' ranks are in none). Precondition for the data-parallel
// kinds: StagesAlignWithNodes(grid).
int GroupInstances(GroupKind group, const RankGrid& grid);

// The members of instance `instance` (0 <= instance < GroupInstances) of `group`: global ranks in ring order
// (stage order for kPipeline and kEmbedding). Precondition for the data-parallel kinds: StagesAlignWithNodes.
std::vector<int> GroupMembers(GroupKind group, int instance, const RankGrid& grid);

// The instance of `group` that rank `rank` is a member of; -1 for a middle-stage rank of kEmbedding.
// Precondition for the data-parallel kinds: StagesAlignWithNodes(grid).
int InstanceOf(GroupKind group, int rank, const RankGrid& grid);

// The nodes `members` (ranks, in ring order) sit on, each once, in ring order.
std::vector<int> NodesOf(const std::vector<int>& members, int gpus_per_node);

// Number of ranks in one instance of `group` on `grid`: t (kTensor), p (kPipeline), min(p, 2) (kEmbedding),
// else the data-parallel kind's size inside the DP group's virtual cluster (at t = p = 1 the cluster itself:
// hpz for kHpz, the shard size or one node for kShard, ...). Precondition:
// StagesAlignWithNodes(grid).
int GroupSize(GroupKind group, const RankGrid& grid);

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
  // Consecutive nodes one instance's members range over (for fat-tree leaves); kReplica: the range of its
  // whole DP group (the same leaves spanned where it has several members, leaves and nodes powers of two).
  int span_nodes = 1;
};
// The closed form of what GroupMembers enumerates on `grid` (whose nodes and GPUs per node are `cluster`'s;
// the cluster's fabric gives the fat-tree leaves): instances, nodes and span_nodes of one instance, per_node
// (instances on a node the kind touches; meaningful where nodes > 1) and per_leaf (instances under a leaf;
// meaningful where span_nodes exceeds the leaf). The data-parallel kinds are the t = p = 1 form on the DP
// group's virtual cluster, t p DP groups of them, min(t, N) on a node. Preconditions:
// StagesAlignWithNodes(grid), and for per_leaf a leaf size and a stage's nodes that divide one another
// (powers of two).
GroupPlacement PlaceGroup(GroupKind group, const RankGrid& grid, const ClusterSpec& cluster);

// A schedule's ranks placed on a cluster: the cluster (nodes, GPUs, NICs, fabric) and the grid of the group
// sizes the schedule's builder declared (GridOf(schedule)), with the cluster's nodes and GPUs per node. Built
// once per schedule and cluster (cost/placed_collectives.h PlaceCollectives, report/runtime_memory.cc); every
// collective of the schedule is placed on it by its group kind: the engines never read a group's sizes from
// the collectives.
struct Placement {
  Placement(const ClusterSpec& c, const RankGrid& groups);
  ClusterSpec cluster;
  RankGrid grid;
  int Size(GroupKind group) const { return GroupSize(group, grid); }
  GroupPlacement Place(GroupKind group) const { return PlaceGroup(group, grid, cluster); }
  std::vector<int> Members(GroupKind group, int instance) const {
    return GroupMembers(group, instance, grid);
  }
};

// The placement of a lone collective over `group` of `size` ranks on the whole cluster `c` (tensor size
// `tensor`, p = 1): the grid whose kind has that size (kTensor: t = size; kHpz: h = size; kShard: s = size;
// kReplica: s = d / size; kShardCrossNode: s = size x N'; kExpert: e = size; kExpertData: e = d / size;
// kContext: c = size; d = P / t). For what times one collective outside a schedule (study/nccl_check.cc,
// tests); a schedule's collectives are placed on GridOf(schedule).
Placement PlacementOfGroup(const ClusterSpec& c, GroupKind group, int size, int tensor = 1);

}  // namespace zerosim::model
