#include "model/placement.h"

#include <algorithm>

namespace zerosim::model {

int RailOf(int local_rank, int gpus_per_node, int nics) { return local_rank * nics / gpus_per_node; }

RankGrid GridOf(const ClusterSpec& c, int hpz, int shard) { return {c.nodes, c.gpus_per_node, hpz, shard}; }

namespace {

int ShardOf(const RankGrid& g) { return g.shard > 0 ? g.shard : g.gpus_per_node; }
// Nodes one shard group spans (1: inside a node).
int ShardNodes(const RankGrid& g) { return std::max(1, ShardOf(g) / g.gpus_per_node); }
// Ranks between the starts of two shard groups' same-local-rank groups: a shard group over several nodes, or
// a node (shard groups inside a node: kShardCrossNode is then the group of one rank).
int ShardStride(const RankGrid& g) { return std::max(ShardOf(g), g.gpus_per_node); }

}  // namespace

int GroupInstances(GroupKind group, const RankGrid& g) {
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
    case GroupKind::kCount:
      break;
  }
  return 1;
}

std::vector<int> GroupMembers(GroupKind group, int instance, const RankGrid& g) {
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
    case GroupKind::kCount:
      break;
  }
  return m;
}

int InstanceOf(GroupKind group, int rank, const RankGrid& g) {
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
    case GroupKind::kCount:
      break;
  }
  return 0;
}

std::vector<int> NodesOf(const std::vector<int>& members, int gpus_per_node) {
  std::vector<int> nodes;
  for (int r : members) {
    const int k = r / gpus_per_node;
    if (std::find(nodes.begin(), nodes.end(), k) == nodes.end()) nodes.push_back(k);
  }
  return nodes;
}

int GroupSize(GroupKind group, const RankShape& cluster, int hpz_size, int shard_size) {
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
    case GroupKind::kCount:
      break;
  }
  return 1;
}

GroupPlacement PlaceGroup(GroupKind group, int g, const ClusterSpec& c) {
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
    case GroupKind::kCount:
      break;
  }
  pl.per_leaf = std::max(pl.per_leaf, pl.per_node);
  return pl;
}

}  // namespace zerosim::model
