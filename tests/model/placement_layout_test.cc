// Placement with a tensor/pipeline layout (model/placement/placement.h, docs/design/tensor_pipeline.md sec. 5
// steps 2 and 8): ranks ordered tp-dp-pp; for every group kind on grids of 1 to 8 nodes of 4, 8 or 16 GPUs
// with t in {1, 2, N/2, N, 2N, 4N} and p in {1, 2, 4} whose stages hold whole nodes, single switch and fat
// trees of 1, 2 and 4 nodes per leaf, the instances partition the ranks (kEmbedding: the first- and
// last-stage ranks), members share the coordinates their kind fixes, and PlaceGroup's closed form equals what
// the enumerated members give. At t = p = 1 every kind is what placement was before layouts (a copy of those
// rules below).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "model/placement/placement.h"
#include "test_util.h"

namespace zerosim::model {
namespace {

constexpr GroupKind kDpKinds[] = {GroupKind::kGlobal,         GroupKind::kHpz,    GroupKind::kLocal,
                                  GroupKind::kCrossNode,      GroupKind::kShard,  GroupKind::kReplica,
                                  GroupKind::kShardCrossNode, GroupKind::kExpert, GroupKind::kExpertData,
                                  GroupKind::kContext};

std::vector<GroupKind> AllKinds() {
  std::vector<GroupKind> out;
  for (int k = 0; k < kNumGroupKinds; ++k) out.push_back(static_cast<GroupKind>(k));
  return out;
}

bool IsDpKind(GroupKind kind) {
  return std::find(std::begin(kDpKinds), std::end(kDpKinds), kind) != std::end(kDpKinds);
}

struct Case {
  ClusterSpec c;
  RankGrid grid;
  std::string name;
};

std::string Name(const RankGrid& g, int leaf) {
  return std::to_string(g.nodes) + "x" + std::to_string(g.gpus_per_node) + " t " + std::to_string(g.tensor) +
         " p " + std::to_string(g.pipeline) + " leaf " + std::to_string(leaf) + " hpz " +
         std::to_string(g.hpz) + " shard " + std::to_string(g.shard) + " expert " + std::to_string(g.expert) +
         " context " + std::to_string(g.context);
}

// Every valid layout (t divides N or is a multiple of it, t p divides P) whose stages hold whole nodes, with
// hpZ sizes dividing a node's DP ranks N' and shard sizes dividing N' or multiples of it dividing d; the
// expert and context groups of such sizes too (the expert group the shard group's, or one rank where that is
// a node's; the context group the next size in the list), so that each kind is seen beside another's size.
std::vector<Case> Cases() {
  struct Shape {
    int nodes, gpus;
  };
  const Shape shapes[] = {{1, 8}, {2, 8}, {4, 8}, {8, 8}, {4, 4}, {8, 4}, {2, 16}};
  std::vector<Case> out;
  for (const Shape& sh : shapes) {
    for (int leaf : {0, 1, 2, 4}) {
      if (leaf >= sh.nodes) continue;  // a fat tree of one leaf is a single switch
      ClusterSpec c = testing::PaperCluster(1, sh.nodes, sh.gpus);
      if (leaf > 0) {
        c.fabric.kind = FabricKind::kFatTree;
        c.fabric.nodes_per_leaf = leaf;
        c.fabric.oversubscription = 2;
      }
      const int n = sh.gpus;
      for (int t : {1, 2, n / 2, n, 2 * n, 4 * n}) {
        if (t < 1 || (n % t != 0 && t % n != 0)) continue;
        for (int p : {1, 2, 4}) {
          if (c.total_gpus() % (t * p) != 0) continue;
          ParallelLayout layout;
          layout.tensor = t;
          layout.pipeline = p;
          const RankGrid base = GridOf(c, 1, 0, layout);
          if (!StagesAlignWithNodes(base)) continue;
          const int per_node = DpRanksPerNode(base);
          const int d = base.data();
          std::vector<int> shards = {0};
          for (int s = 1; s <= per_node && s <= d; s *= 2) shards.push_back(s);
          for (int k = 2; k * per_node <= d; k *= 2) {
            if (d % (k * per_node) == 0) shards.push_back(k * per_node);
          }
          for (int hpz = 1; hpz <= per_node && hpz <= d; hpz *= 2) {
            for (size_t i = 0; i < shards.size(); ++i) {
              RankGrid g = GridOf(c, hpz, shards[i], layout);
              g.expert = std::max(1, shards[i]);
              g.context = std::max(1, shards[(i + 1) % shards.size()]);
              out.push_back({c, g, Name(g, leaf)});
              if (t > 1) {  // the expert grid folded: e counts ranks (t of them per DP rank of the size)
                g.expert_folded = true;
                g.expert *= t;
                out.push_back({c, g, Name(g, leaf) + " folded"});
              }
            }
          }
        }
      }
    }
  }
  return out;
}

std::vector<std::vector<int>> Instances(GroupKind kind, const RankGrid& grid) {
  std::vector<std::vector<int>> out;
  for (int i = 0; i < GroupInstances(kind, grid); ++i) out.push_back(GroupMembers(kind, i, grid));
  return out;
}

int Leaf(const ClusterSpec& c, int node) {
  return c.fabric.kind == FabricKind::kFatTree ? node / c.fabric.nodes_per_leaf : 0;
}

TEST(PlacementLayout, CasesCoverTheLayoutsTheBriefNames) {
  bool t_node = false, t_half = false, t_across = false, p4 = false, fat_across = false;
  for (const Case& k : Cases()) {
    const int n = k.grid.gpus_per_node;
    t_node |= k.grid.tensor == n && k.grid.pipeline > 1;
    t_half |= k.grid.tensor == n / 2 && k.grid.pipeline > 1;
    t_across |= k.grid.tensor == 2 * n && k.grid.pipeline > 1;
    p4 |= k.grid.pipeline == 4;
    fat_across |= k.grid.tensor > n && k.c.fabric.kind == FabricKind::kFatTree;
  }
  EXPECT_TRUE(t_node && t_half && t_across && p4 && fat_across);
}

TEST(PlacementLayout, CoordOfAndRankOfAreInverseAndInRange) {
  for (const Case& k : Cases()) {
    SCOPED_TRACE(k.name);
    const RankGrid& g = k.grid;
    EXPECT_EQ(g.tensor * g.data() * g.pipeline, g.ranks());
    for (int r = 0; r < g.ranks(); ++r) {
      const RankCoord c = CoordOf(r, g);
      ASSERT_GE(c.tp, 0);
      ASSERT_LT(c.tp, g.tensor);
      ASSERT_GE(c.dp, 0);
      ASSERT_LT(c.dp, g.data());
      ASSERT_GE(c.pp, 0);
      ASSERT_LT(c.pp, g.pipeline);
      EXPECT_EQ(RankOf(c, g), r);
      EXPECT_EQ(c.tp, r % g.tensor);  // tp innermost, pp outermost
      EXPECT_EQ(c.pp, r / (g.tensor * g.data()));
    }
  }
}

TEST(PlacementLayout, InstancesPartitionTheRanksAndShareTheirKindsCoordinates) {
  for (const Case& k : Cases()) {
    const RankGrid& g = k.grid;
    for (GroupKind kind : AllKinds()) {
      SCOPED_TRACE(k.name + " " + GroupKindName(kind));
      const int size = GroupSize(kind, g);
      std::vector<int> seen(static_cast<size_t>(g.ranks()), 0);
      const std::vector<std::vector<int>> instances = Instances(kind, g);
      for (size_t i = 0; i < instances.size(); ++i) {
        const std::vector<int>& m = instances[i];
        ASSERT_FALSE(m.empty());
        EXPECT_EQ(static_cast<int>(m.size()), size);
        EXPECT_TRUE(std::is_sorted(m.begin(), m.end()));  // node-major ring order; stage order
        const RankCoord first = CoordOf(m.front(), g);
        for (size_t j = 0; j < m.size(); ++j) {
          const int r = m[j];
          ASSERT_GE(r, 0);
          ASSERT_LT(r, g.ranks());
          ++seen[static_cast<size_t>(r)];
          EXPECT_EQ(InstanceOf(kind, r, g), static_cast<int>(i)) << "rank " << r;
          const RankCoord c = CoordOf(r, g);
          if (kind == GroupKind::kTensor) {
            EXPECT_EQ(c.dp, first.dp);
            EXPECT_EQ(c.pp, first.pp);
            EXPECT_EQ(c.tp, static_cast<int>(j));
          } else if (g.expert_folded && (kind == GroupKind::kExpert || kind == GroupKind::kExpertData)) {
            EXPECT_EQ(c.pp, first.pp);  // the stage's ranks, across the tensor groups
          } else if (IsDpKind(kind)) {
            EXPECT_EQ(c.tp, first.tp);
            EXPECT_EQ(c.pp, first.pp);
          } else {  // kPipeline, kEmbedding: one (tp, dp), stages in order
            EXPECT_EQ(c.tp, first.tp);
            EXPECT_EQ(c.dp, first.dp);
            const int stage =
                kind == GroupKind::kPipeline ? static_cast<int>(j) : static_cast<int>(j) * (g.pipeline - 1);
            EXPECT_EQ(c.pp, stage);
          }
        }
      }
      for (int r = 0; r < g.ranks(); ++r) {
        const int pp = CoordOf(r, g).pp;
        if (kind == GroupKind::kEmbedding && pp != 0 && pp != g.pipeline - 1) {
          EXPECT_EQ(seen[static_cast<size_t>(r)], 0) << "rank " << r;
          EXPECT_EQ(InstanceOf(kind, r, g), -1) << "rank " << r;
        } else {
          EXPECT_EQ(seen[static_cast<size_t>(r)], 1) << "rank " << r;
        }
      }
    }
  }
}

TEST(PlacementLayout, DataParallelGroupsAreTheStagesDpGroups) {
  for (const Case& k : Cases()) {
    SCOPED_TRACE(k.name);
    const RankGrid& g = k.grid;
    // kGlobal: one instance per (tp, pp), the d ranks of stride t.
    ASSERT_EQ(GroupInstances(GroupKind::kGlobal, g), g.tensor * g.pipeline);
    for (int pp = 0; pp < g.pipeline; ++pp) {
      for (int tp = 0; tp < g.tensor; ++tp) {
        std::vector<int> expected;
        for (int j = 0; j < g.data(); ++j) expected.push_back(RankOf({tp, j, pp}, g));
        EXPECT_EQ(GroupMembers(GroupKind::kGlobal, pp * g.tensor + tp, g), expected);
      }
    }
    // kLocal: a DP group's members on one node, N' of them.
    for (const std::vector<int>& m : Instances(GroupKind::kLocal, g)) {
      EXPECT_EQ(static_cast<int>(m.size()), DpRanksPerNode(g));
      EXPECT_EQ(NodesOf(m, g.gpus_per_node).size(), 1u);
    }
  }
}

TEST(PlacementLayout, AFoldedExpertGroupIsConsecutiveRanksOfAStage) {
  int folded = 0;
  for (const Case& k : Cases()) {
    if (!k.grid.expert_folded) continue;
    SCOPED_TRACE(k.name);
    const RankGrid& g = k.grid;
    const int e = g.expert;
    const int stage = g.ranks() / g.pipeline;
    ASSERT_EQ(GroupSize(GroupKind::kExpert, g), e);
    ASSERT_EQ(GroupSize(GroupKind::kExpertData, g), stage / e);
    for (const std::vector<int>& m : Instances(GroupKind::kExpert, g)) {
      for (size_t j = 0; j < m.size(); ++j) EXPECT_EQ(m[j], m.front() + static_cast<int>(j));
      EXPECT_EQ(m.front() % e, 0);
    }
    for (const std::vector<int>& m : Instances(GroupKind::kExpertData, g)) {
      for (size_t j = 1; j < m.size(); ++j) EXPECT_EQ(m[j] - m[j - 1], e);
      EXPECT_EQ(m.front() % stage, m.front() % e);  // starts at its position in the stage's first group
    }
    ++folded;
  }
  EXPECT_GT(folded, 0);
}

TEST(PlacementLayout, ExpertAndContextGroupsAreShardGroupsOfTheirOwnSize) {
  int beside_another_shard = 0;
  for (const Case& k : Cases()) {
    if (k.grid.expert_folded) continue;  // AFoldedExpertGroupIsConsecutiveRanksOfAStage
    SCOPED_TRACE(k.name);
    RankGrid expert = k.grid;
    expert.shard = k.grid.expert;
    RankGrid context = k.grid;
    context.shard = k.grid.context;
    EXPECT_EQ(Instances(GroupKind::kExpert, k.grid), Instances(GroupKind::kShard, expert));
    EXPECT_EQ(Instances(GroupKind::kExpertData, k.grid), Instances(GroupKind::kReplica, expert));
    EXPECT_EQ(Instances(GroupKind::kContext, k.grid), Instances(GroupKind::kShard, context));
    EXPECT_EQ(GroupSize(GroupKind::kExpert, k.grid), k.grid.expert);
    EXPECT_EQ(GroupSize(GroupKind::kContext, k.grid), k.grid.context);
    EXPECT_EQ(GroupSize(GroupKind::kExpertData, k.grid), k.grid.data() / k.grid.expert);
    if (GroupSize(GroupKind::kShard, k.grid) != k.grid.context) ++beside_another_shard;
  }
  EXPECT_GT(beside_another_shard, 0);  // the kinds do not read the shard group's size
}

TEST(PlacementLayout, PlaceGroupCountsWhatTheMembersSpan) {
  std::map<GroupKind, int> leaves_checked;  // cases whose per_leaf was checked, by kind
  for (const Case& k : Cases()) {
    const RankGrid& g = k.grid;
    const bool fat = k.c.fabric.kind == FabricKind::kFatTree;
    for (GroupKind kind : AllKinds()) {
      SCOPED_TRACE(k.name + " " + GroupKindName(kind));
      const GroupPlacement pl = PlaceGroup(kind, g, k.c);
      const std::vector<std::vector<int>> instances = Instances(kind, g);
      EXPECT_EQ(pl.instances, static_cast<int>(instances.size()));
      std::map<int, int> per_node;  // instances with members on a node
      std::map<int, int> per_leaf;  // ... under a leaf
      for (const std::vector<int>& m : instances) {
        const std::vector<int> nodes = NodesOf(m, g.gpus_per_node);
        EXPECT_EQ(pl.nodes, static_cast<int>(nodes.size()));
        const int range = nodes.back() - nodes.front() + 1;
        // kReplica's span is its DP group's node range (the closed form before layouts), at least its own.
        if (kind == GroupKind::kReplica || kind == GroupKind::kExpertData) {
          EXPECT_GE(pl.span_nodes, range);
          if (fat && nodes.size() > 1) {  // a replica group of one rank spans nothing
            EXPECT_EQ(pl.span_nodes > k.c.fabric.nodes_per_leaf, range > k.c.fabric.nodes_per_leaf);
          }
        } else {
          EXPECT_EQ(pl.span_nodes, range);
        }
        std::vector<int> leaves;
        for (int node : nodes) {
          ++per_node[node];
          if (std::find(leaves.begin(), leaves.end(), Leaf(k.c, node)) == leaves.end())
            leaves.push_back(Leaf(k.c, node));
        }
        for (int leaf : leaves) ++per_leaf[leaf];
      }
      if (pl.nodes <= 1) continue;  // per_node and per_leaf count ring edges out of nodes
      for (const auto& [node, count] : per_node) EXPECT_EQ(count, pl.per_node) << "node " << node;
      if (fat && pl.span_nodes > k.c.fabric.nodes_per_leaf) {
        for (const auto& [leaf, count] : per_leaf) EXPECT_EQ(count, pl.per_leaf) << "leaf " << leaf;
        ++leaves_checked[kind];
      }
    }
  }
  // Every kind that can span nodes was checked across fat-tree leaves (kHpz and kLocal never leave a node).
  for (GroupKind kind : AllKinds()) {
    if (kind == GroupKind::kHpz || kind == GroupKind::kLocal) continue;
    EXPECT_GT(leaves_checked[kind], 0) << GroupKindName(kind);
  }
}

// Placement before layouts (model/placement/placement.cc at 42e7159), copied: the reference the t = p = 1
// identity is checked against.
namespace legacy {

int ShardOf(const RankGrid& g) { return g.shard > 0 ? g.shard : g.gpus_per_node; }
int ShardNodes(const RankGrid& g) { return std::max(1, ShardOf(g) / g.gpus_per_node); }
int ShardStride(const RankGrid& g) { return std::max(ShardOf(g), g.gpus_per_node); }

int Instances(GroupKind group, const RankGrid& g) {
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
    default:
      return g.ranks();  // the layout kinds at t = p = 1: groups of one rank
  }
}

std::vector<int> Members(GroupKind group, int instance, const RankGrid& g) {
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
    default:
      m.push_back(instance);
      break;
  }
  return m;
}

}  // namespace legacy

TEST(PlacementLayout, WithoutTensorOrPipelineEveryKindIsAsBefore) {
  for (const Case& k : Cases()) {
    if (k.grid.tensor != 1 || k.grid.pipeline != 1) continue;
    const RankGrid old_grid = GridOf(k.c, k.grid.hpz, k.grid.shard);
    const RankGrid g = GridOf(k.c, k.grid.hpz, k.grid.shard, ParallelLayout{});
    for (GroupKind kind : AllKinds()) {
      // The expert and context kinds came after layouts: ExpertAndContextGroupsAreShardGroupsOfTheirOwnSize.
      if (kind == GroupKind::kExpert || kind == GroupKind::kExpertData || kind == GroupKind::kContext)
        continue;
      SCOPED_TRACE(k.name + " " + GroupKindName(kind));
      ASSERT_EQ(GroupInstances(kind, g), legacy::Instances(kind, old_grid));
      ASSERT_EQ(GroupInstances(kind, old_grid), legacy::Instances(kind, old_grid));
      for (int i = 0; i < GroupInstances(kind, g); ++i) {
        const std::vector<int> m = legacy::Members(kind, i, old_grid);
        EXPECT_EQ(GroupMembers(kind, i, g), m);
        EXPECT_EQ(GroupMembers(kind, i, old_grid), m);
        for (int r : m) EXPECT_EQ(InstanceOf(kind, r, g), i);
      }
      const int size = GroupSize(kind, k.grid);
      EXPECT_EQ(GroupSize(kind, g), size);
      const GroupPlacement a = PlacementOfGroup(k.c, kind, size).Place(kind);  // the lone group's grid
      const GroupPlacement b = PlaceGroup(kind, g, k.c);
      EXPECT_EQ(a.instances, b.instances);
      EXPECT_EQ(a.nodes, b.nodes);
      EXPECT_EQ(a.per_node, b.per_node);
      EXPECT_EQ(a.per_leaf, b.per_leaf);
      EXPECT_EQ(a.span_nodes, b.span_nodes);
    }
  }
}

}  // namespace
}  // namespace zerosim::model
