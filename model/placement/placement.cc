#include "model/placement/placement.h"

#include <algorithm>

namespace zerosim::model {

int RailOf(int local_rank, int gpus_per_node, int nics) { return local_rank * nics / gpus_per_node; }

RankGrid GridOf(const Schedule& s) {
  return {.nodes = s.nodes,
          .gpus_per_node = s.gpus_per_node,
          .hpz = s.hpz_group_size,
          .shard = s.shard_group_size,
          .tensor = s.tensor,
          .expert = s.expert,
          .context = s.context,
          .expert_folded = s.layout().expert_folded()};
}

RankGrid GridOf(const ClusterSpec& c, int hpz, int shard) { return {c.nodes, c.gpus_per_node, hpz, shard}; }

RankGrid GridOf(const ClusterSpec& c, int hpz, int shard, const ParallelLayout& layout) {
  RankGrid g = GridOf(c, hpz, shard);
  g.tensor = layout.tensor;
  g.pipeline = layout.pipeline;
  return g;
}

RankCoord CoordOf(int rank, const RankGrid& g) {
  const int t = g.tensor;
  const int d = g.data();
  return {rank % t, rank / t % d, rank / (t * d)};
}

int RankOf(const RankCoord& c, const RankGrid& g) { return (c.pp * g.data() + c.dp) * g.tensor + c.tp; }

Placement::Placement(const ClusterSpec& c, const RankGrid& groups) : cluster(c), grid(groups) {
  grid.nodes = c.nodes;
  grid.gpus_per_node = c.gpus_per_node;
}

Placement PlacementOfGroup(const ClusterSpec& c, GroupKind group, int size, int tensor) {
  RankGrid grid{.nodes = c.nodes,
                .gpus_per_node = c.gpus_per_node,
                .tensor = group == GroupKind::kTensor ? size : tensor};
  if (group == GroupKind::kHpz) grid.hpz = size;
  if (group == GroupKind::kShard) grid.shard = size;
  if (group == GroupKind::kReplica) grid.shard = grid.data() / size;
  if (group == GroupKind::kShardCrossNode) grid.shard = size * DpRanksPerNode(grid);
  if (group == GroupKind::kExpert) grid.expert = size;
  if (group == GroupKind::kExpertData) grid.expert = grid.data() / size;
  if (group == GroupKind::kContext) grid.context = size;
  return Placement(c, grid);
}

bool StagesAlignWithNodes(const RankGrid& g) {
  ParallelLayout l;
  l.tensor = g.tensor;
  l.pipeline = g.pipeline;
  return l.stages_fill_nodes(g.ranks(), g.gpus_per_node);
}

int DpRanksPerNode(const RankGrid& g) { return g.tensor >= g.gpus_per_node ? 1 : g.gpus_per_node / g.tensor; }

std::vector<int> NodesOf(const std::vector<int>& members, int gpus_per_node) {
  std::vector<int> nodes;
  for (int r : members) {
    const int k = r / gpus_per_node;
    if (std::find(nodes.begin(), nodes.end(), k) == nodes.end()) nodes.push_back(k);
  }
  return nodes;
}

// The data-parallel kinds' rules on a cluster of pure data parallelism (t = p = 1; the grid's tensor and
// pipeline are not read): the whole of placement before layouts, and each stage's DP group's "virtual
// cluster" (placement_layout.cc).
namespace {

int ShardOf(const RankGrid& g) { return g.shard > 0 ? g.shard : g.gpus_per_node; }
// Nodes one shard group spans (1: inside a node).
int ShardNodes(const RankGrid& g) { return std::max(1, ShardOf(g) / g.gpus_per_node); }
// Ranks between the starts of two shard groups' same-local-rank groups: a shard group over several nodes, or
// a node (shard groups inside a node: kShardCrossNode is then the group of one rank).
int ShardStride(const RankGrid& g) { return std::max(ShardOf(g), g.gpus_per_node); }

int FlatInstances(GroupKind group, const RankGrid& g) {
  switch (group) {
    case GroupKind::kGlobal:
      return 1;
    case GroupKind::kHpz:
      return g.ranks() / g.hpz;
    case GroupKind::kLocal:
      return g.nodes;
    case GroupKind::kCrossNode:
      return g.gpus_per_node;
    case GroupKind::kShard:
      return g.ranks() / ShardOf(g);
    case GroupKind::kReplica:
      return ShardOf(g);
    case GroupKind::kShardCrossNode:
      return g.ranks() / ShardNodes(g);
    default:  // never called for the layout kinds (IsLayoutKind) nor those placed as others (AsFlat)
      break;
  }
  return 1;
}

std::vector<int> FlatMembers(GroupKind group, int instance, const RankGrid& g) {
  const int n = g.gpus_per_node;
  std::vector<int> m;
  switch (group) {
    case GroupKind::kGlobal:
      for (int r = 0; r < g.ranks(); ++r) m.push_back(r);
      break;
    case GroupKind::kHpz:
      for (int r = 0; r < g.hpz; ++r) m.push_back(instance * g.hpz + r);
      break;
    case GroupKind::kLocal:
      for (int r = 0; r < n; ++r) m.push_back(instance * n + r);
      break;
    case GroupKind::kCrossNode:
      for (int k = 0; k < g.nodes; ++k) m.push_back(k * n + instance);
      break;
    case GroupKind::kShard:
      for (int r = 0; r < ShardOf(g); ++r) m.push_back(instance * ShardOf(g) + r);
      break;
    case GroupKind::kReplica:
      for (int r = instance; r < g.ranks(); r += ShardOf(g)) m.push_back(r);
      break;
    case GroupKind::kShardCrossNode: {
      const int first = instance / n * ShardStride(g) + instance % n;
      for (int k = 0; k < ShardNodes(g); ++k) m.push_back(first + k * n);
      break;
    }
    default:  // never called for the layout kinds (IsLayoutKind) nor those placed as others (AsFlat)
      break;
  }
  return m;
}

int FlatInstanceOf(GroupKind group, int rank, const RankGrid& g) {
  const int n = g.gpus_per_node;
  switch (group) {
    case GroupKind::kGlobal:
      return 0;
    case GroupKind::kHpz:
      return rank / g.hpz;
    case GroupKind::kLocal:
      return rank / n;
    case GroupKind::kCrossNode:
      return rank % n;
    case GroupKind::kShard:
      return rank / ShardOf(g);
    case GroupKind::kReplica:
      return rank % ShardOf(g);
    case GroupKind::kShardCrossNode:
      return rank / ShardStride(g) * n + rank % n;
    default:  // never called for the layout kinds (IsLayoutKind) nor those placed as others (AsFlat)
      break;
  }
  return 0;
}

int FlatSize(GroupKind group, const RankShape& cluster, int hpz_size, int shard_size) {
  const int s = shard_size > 0 ? shard_size : cluster.gpus_per_node;
  switch (group) {
    case GroupKind::kGlobal:
      return cluster.total_gpus();
    case GroupKind::kHpz:
      return hpz_size;
    case GroupKind::kLocal:
      return cluster.gpus_per_node;
    case GroupKind::kCrossNode:
      return cluster.nodes;
    case GroupKind::kShard:
      return s;
    case GroupKind::kReplica:
      return cluster.total_gpus() / s;
    case GroupKind::kShardCrossNode:
      return std::max(1, s / cluster.gpus_per_node);
    default:  // never called for the layout kinds (IsLayoutKind) nor those placed as others (AsFlat)
      break;
  }
  return 1;
}

GroupPlacement FlatPlace(GroupKind group, int g, const ClusterSpec& c) {
  const int p = c.total_gpus();
  const int n = c.gpus_per_node;
  GroupPlacement pl;
  pl.instances = std::max(1, p / std::max(1, g));
  switch (group) {
    case GroupKind::kGlobal:
      pl.nodes = pl.span_nodes = c.nodes;
      break;
    case GroupKind::kHpz:
    case GroupKind::kLocal:
      break;
    case GroupKind::kShard:  // s consecutive ranks
      if (g > n) pl.nodes = pl.span_nodes = g / n;
      break;
    case GroupKind::kReplica: {  // one member per shard group of s = P/g ranks
      const int s = p / g;
      pl.span_nodes = c.nodes;
      pl.nodes = s <= n ? c.nodes : g;
      pl.per_node = std::min(s, n);
      // With s > N, node k holds the instances of positions k N .. k N + N - 1 (mod s): the leaf's nodes hold
      // different instances, up to all s of them.
      if (s > n && c.fabric.kind == FabricKind::kFatTree && c.fabric.nodes_per_leaf > 0)
        pl.per_leaf = std::min(s, c.fabric.nodes_per_leaf * n);
      break;
    }
    case GroupKind::kCrossNode:
    case GroupKind::kShardCrossNode:  // one member per node of a run of g consecutive nodes
      pl.nodes = pl.span_nodes = g;
      pl.per_node = n;
      break;
    default:  // never called for the layout kinds (IsLayoutKind) nor those placed as others (AsFlat)
      break;
  }
  pl.per_leaf = std::max(pl.per_leaf, pl.per_node);
  return pl;
}

// The kind and grid the data-parallel rules place `group` as: kExpert and kContext are shard groups of their
// own size (e, c), kExpertData the replica groups of the expert groups (placement.h); every other kind is
// itself.
struct Flat {
  GroupKind group;
  RankGrid grid;
};
Flat AsFlat(GroupKind group, const RankGrid& g) {
  RankGrid as = g;
  switch (group) {
    case GroupKind::kExpert:
      as.shard = g.expert;
      if (g.expert_folded) as.tensor = 1;  // over the stage's ranks
      return {GroupKind::kShard, as};
    case GroupKind::kExpertData:
      as.shard = g.expert;
      if (g.expert_folded) as.tensor = 1;
      return {GroupKind::kReplica, as};
    case GroupKind::kContext:
      as.shard = g.context;
      return {GroupKind::kShard, as};
    default:
      return {group, g};
  }
}

bool IsLayoutKind(GroupKind group) {
  return group == GroupKind::kTensor || group == GroupKind::kPipeline || group == GroupKind::kEmbedding;
}

// The virtual cluster of one stage's DP group: d / N' nodes of N' ranks (its rank j is DP rank j).
RankGrid DpGrid(const RankGrid& g) {
  const int per_node = DpRanksPerNode(g);
  return {g.data() / per_node, per_node, g.hpz, g.shard};
}

// Nodes of one pipeline stage: t d / N (whole nodes: StagesAlignWithNodes).
int StageNodes(const RankGrid& g) { return std::max(1, g.tensor * g.data() / g.gpus_per_node); }

int LayoutInstances(GroupKind group, const RankGrid& g) {
  return group == GroupKind::kTensor ? g.data() * g.pipeline : g.tensor * g.data();
}

std::vector<int> LayoutMembers(GroupKind group, int instance, const RankGrid& g) {
  std::vector<int> m;
  const int t = g.tensor;
  const int stage = t * g.data();  // ranks of one stage
  if (group == GroupKind::kTensor) {
    for (int k = 0; k < t; ++k) m.push_back(instance * t + k);
  } else if (group == GroupKind::kPipeline) {
    for (int k = 0; k < g.pipeline; ++k) m.push_back(k * stage + instance);
  } else {  // kEmbedding
    m.push_back(instance);
    if (g.pipeline > 1) m.push_back((g.pipeline - 1) * stage + instance);
  }
  return m;
}

int LayoutInstanceOf(GroupKind group, int rank, const RankGrid& g) {
  const int stage = g.tensor * g.data();
  if (group == GroupKind::kTensor) return rank / g.tensor;
  if (group == GroupKind::kPipeline) return rank % stage;
  const int pp = rank / stage;  // kEmbedding
  return pp == 0 || pp == g.pipeline - 1 ? rank % stage : -1;
}

int LayoutSize(GroupKind group, const RankGrid& g) {
  if (group == GroupKind::kTensor) return g.tensor;
  if (group == GroupKind::kPipeline) return g.pipeline;
  return std::min(g.pipeline, 2);  // kEmbedding
}

GroupPlacement LayoutPlace(GroupKind group, const RankGrid& g, const ClusterSpec& c) {
  const int n = g.gpus_per_node;
  const int t = g.tensor;
  GroupPlacement pl;
  pl.instances = LayoutInstances(group, g);
  if (group == GroupKind::kTensor) {
    // t consecutive ranks: N / t groups inside a node, or t / N whole nodes of one group.
    pl.nodes = pl.span_nodes = std::max(1, t / n);
    pl.per_node = std::max(1, n / t);
    pl.per_leaf = pl.per_node;
    return pl;
  }
  // kPipeline, kEmbedding: one member per stage (or the first and last), the same local rank on each: a
  // node holds N instances, a leaf inside a stage its N x nodes_per_leaf, a leaf over whole stages a stage's.
  pl.per_node = pl.per_leaf = n;
  if (g.pipeline == 1) return pl;
  const int stage_nodes = StageNodes(g);
  pl.nodes = group == GroupKind::kPipeline ? g.pipeline : 2;
  pl.span_nodes = (g.pipeline - 1) * stage_nodes + 1;
  if (c.fabric.kind == FabricKind::kFatTree && c.fabric.nodes_per_leaf > 0)
    pl.per_leaf = std::min(c.fabric.nodes_per_leaf, stage_nodes) * n;
  return pl;
}

}  // namespace

int GroupInstances(GroupKind kind, const RankGrid& grid) {
  if (IsLayoutKind(kind)) return LayoutInstances(kind, grid);
  const auto [group, g] = AsFlat(kind, grid);
  return g.tensor * g.pipeline * FlatInstances(group, DpGrid(g));
}

std::vector<int> GroupMembers(GroupKind kind, int instance, const RankGrid& grid) {
  if (IsLayoutKind(kind)) return LayoutMembers(kind, instance, grid);
  const auto [group, g] = AsFlat(kind, grid);
  const RankGrid dp = DpGrid(g);
  const int per_group = FlatInstances(group, dp);
  const int dp_group = instance / per_group;  // pp t + tp
  std::vector<int> m = FlatMembers(group, instance % per_group, dp);
  for (int& r : m) r = RankOf({dp_group % g.tensor, r, dp_group / g.tensor}, g);
  return m;
}

int InstanceOf(GroupKind kind, int rank, const RankGrid& grid) {
  if (IsLayoutKind(kind)) return LayoutInstanceOf(kind, rank, grid);
  const auto [group, g] = AsFlat(kind, grid);
  const RankGrid dp = DpGrid(g);
  const RankCoord c = CoordOf(rank, g);
  return (c.pp * g.tensor + c.tp) * FlatInstances(group, dp) + FlatInstanceOf(group, c.dp, dp);
}

int GroupSize(GroupKind kind, const RankGrid& grid) {
  if (IsLayoutKind(kind)) return LayoutSize(kind, grid);
  const auto [group, g] = AsFlat(kind, grid);
  const RankGrid dp = DpGrid(g);
  return FlatSize(group, RankShape(dp.nodes, dp.gpus_per_node), dp.hpz, dp.shard);
}

GroupPlacement PlaceGroup(GroupKind kind, const RankGrid& grid, const ClusterSpec& cluster) {
  if (IsLayoutKind(kind)) return LayoutPlace(kind, grid, cluster);
  const auto [group, g] = AsFlat(kind, grid);
  // The DP group's virtual cluster, its fat-tree leaves those of its virtual nodes (consecutive virtual nodes
  // are `stride` real nodes apart: t / N with TP across nodes).
  const RankGrid dp = DpGrid(g);
  const int n = g.gpus_per_node;
  const int stride = std::max(1, g.tensor / n);
  ClusterSpec virt = cluster;
  virt.nodes = dp.nodes;
  virt.gpus_per_node = dp.gpus_per_node;
  if (virt.fabric.nodes_per_leaf > 0)
    virt.fabric.nodes_per_leaf = std::max(1, virt.fabric.nodes_per_leaf / stride);
  GroupPlacement pl = FlatPlace(group, GroupSize(group, g), virt);
  // t p DP groups; a node holds min(t, N) of them (one virtual node each); a leaf inside a stage holds
  // min(t, N x nodes_per_leaf).
  pl.instances *= g.tensor * g.pipeline;
  pl.span_nodes = (pl.span_nodes - 1) * stride + 1;
  const int groups_per_node = std::min(g.tensor, n);
  pl.per_node *= groups_per_node;
  if (cluster.fabric.kind == FabricKind::kFatTree && cluster.fabric.nodes_per_leaf > 0)
    pl.per_leaf *= std::min(g.tensor, n * cluster.fabric.nodes_per_leaf);
  else
    pl.per_leaf *= groups_per_node;
  pl.per_leaf = std::max(pl.per_leaf, pl.per_node);
  return pl;
}

}  // namespace zerosim::model
