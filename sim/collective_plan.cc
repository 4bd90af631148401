#include "sim/collective_plan.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "model/cost/collective_time.h"
#include "model/enum_names.h"
#include "model/placement/placement.h"
#include "model/spec/intra_fabric.h"

namespace zerosim::sim {

using model::CollectiveKind;
using model::GroupKind;

const char* FidelityName(Fidelity f) { return f == Fidelity::kMacro ? "macro-flow" : "step-level"; }
const char* ReductionName(Reduction r) {
  constexpr std::array<const char*, 3> kNames = {"symmetric", "full", "classes"};  // Reduction's order
  return model::NameOf(kNames, r);
}

Layout MakeLayout(const model::ClusterSpec& c, const model::RankGrid& groups, const SimOptions& o) {
  const int hpz = groups.hpz;
  const int tensor = groups.tensor;
  Layout l;
  l.real_nodes = c.nodes;
  l.sim_nodes = c.nodes;
  l.gpus_per_node = c.gpus_per_node;
  l.nics = c.nic.count;
  l.groups = groups;
  if (c.intra.fabric == model::IntraFabric::kNvLinkMesh) l.intra_rings = model::MeshRings(c.gpus_per_node);
  l.all_pairs_in_node = c.intra.fabric != model::IntraFabric::kNvSwitch;
  if (c.fabric.kind == model::FabricKind::kFatTree && c.fabric.nodes_per_leaf > 0 &&
      c.fabric.nodes_per_leaf < c.nodes) {
    l.level_nodes.push_back(c.fabric.nodes_per_leaf);
    const int per_pod = c.fabric.nodes_per_leaf * c.fabric.leaves_per_pod;
    if (c.fabric.leaves_per_pod > 1 && per_pod < c.nodes) l.level_nodes.push_back(per_pod);
  }
  const bool macro = o.fidelity == Fidelity::kMacro;
  const Perturbations& p = o.perturbations;
  const bool fabric_perturbed = !p.links.empty() || !p.background.empty();
  const bool hpz_in_node = hpz <= c.gpus_per_node && c.gpus_per_node % hpz == 0;
  const int unit = l.level_nodes.empty() ? 1 : l.level_nodes.back();
  // Shard groups over several nodes must tile the shrunk platform at least twice, so that every replica
  // ring keeps a cross-node edge out of every node as on the real cluster; so must expert and context groups
  // (groups of consecutive DP ranks alike: placement.h). The widest of them decides.
  // The groups count DP ranks, N' = N / t of them a node (placement.h DpRanksPerNode).
  // A folded expert group (placement.h RankGrid::expert_folded) is e consecutive ranks: e / t DP ranks' span.
  const int expert = groups.expert_folded ? std::max(1, groups.expert / groups.tensor) : groups.expert;
  const int shard = std::max({groups.shard, expert, groups.context});
  const int dp_per_node = model::DpRanksPerNode(l.grid());
  const int shard_nodes = shard > dp_per_node ? shard / dp_per_node : 1;
  const bool can_shrink = c.nodes % unit == 0 && c.nodes >= 2 * unit && (2 * unit) % shard_nodes == 0 &&
                          2 * unit >= 2 * shard_nodes && tensor <= c.gpus_per_node;
  int slow_classes = 1;
  if (!p.slow_nodes.empty()) {
    const std::vector<int> classes = SlowdownClasses(c.nodes, p.slow_nodes, nullptr);
    slow_classes = 1 + *std::max_element(classes.begin(), classes.end());
  }
  if (o.reduction == Reduction::kSymmetric && macro && !fabric_perturbed) {
    if (p.slow_nodes.empty()) {
      l.symmetric = true;
      if (can_shrink) l.sim_nodes = 2 * unit;
      // Groups inside a unit (hpZ, shard groups) must tile it for the mirror image to be a group.
      const int unit_gpus = unit * c.gpus_per_node;
      l.folded = can_shrink && o.fold_units && unit_gpus % hpz == 0 &&
                 (shard <= 0 || (unit * dp_per_node) % shard == 0);
    } else if (hpz_in_node && can_shrink && slow_classes <= 2 * unit) {
      l.symmetric = true;
      l.sim_nodes = 2 * unit;
    }
  }
  l.node_classes =
      macro && !l.symmetric &&
      (o.reduction == Reduction::kClasses || (o.reduction == Reduction::kSymmetric && !p.empty()));
  return l;
}

std::vector<int> SlowdownClasses(int nodes, const std::vector<SlowNode>& slow,
                                 std::vector<double>* slowdowns) {
  std::vector<double> factor(static_cast<size_t>(nodes), 1.0);
  for (const SlowNode& s : slow) {
    if (s.node >= 0 && s.node < nodes) factor[static_cast<size_t>(s.node)] *= s.slowdown;
  }
  std::vector<double> seen;
  std::vector<int> classes;
  for (double f : factor) {
    auto it = std::find(seen.begin(), seen.end(), f);
    classes.push_back(static_cast<int>(it - seen.begin()));
    if (it == seen.end()) seen.push_back(f);
  }
  if (slowdowns != nullptr) *slowdowns = seen;
  return classes;
}

StatusOr<PlatformSpec> MakePlatformSpec(const model::ClusterSpec& c, const Layout& layout, double gpu_flops,
                                        int actor_stack_kib, const Perturbations& pert) {
  PlatformSpec p;
  p.nodes = layout.sim_nodes;
  p.gpus_per_node = c.gpus_per_node;
  p.nics_per_node = c.nic.count;
  if (c.nic.count == 0 && c.nodes == 1) {
    // One node without NICs (model/spec/feasibility.h accepts it: nothing crosses nodes): the platform gets
    // one idle NIC per node, which no flow crosses.
    p.nics_per_node = 1;
  }
  p.gpu_flops = gpu_flops;
  p.nvlink_Bps = c.intra.bandwidth_Bps;
  if (c.intra.fabric == model::IntraFabric::kPcie) {
    const model::PcieSpec& pcie = c.intra.pcie;
    p.fabric = NodeFabric::kPcie;
    p.nvlink_Bps = pcie.gpu_link_Bps;
    p.gpus_per_switch = pcie.gpus_per_switch;
    p.switch_uplink_Bps = pcie.switch_uplink_Bps;
    p.sockets = pcie.sockets;
    p.socket_link_Bps = pcie.socket_link_Bps;
  } else if (c.intra.fabric == model::IntraFabric::kNvLinkMesh) {
    p.fabric = NodeFabric::kMesh;
    p.nvlink_Bps = c.intra.pair_Bps;
  }
  p.nic_Bps = c.nic.count == 0 && c.nodes == 1 && !(c.nic.bandwidth_Bps > 0) ? 1.0 : c.nic.bandwidth_Bps;
  // The leaf's uplinks are what model::LeafUplinkBps gives the analytic model; a pod's carry its leaves'
  // uplinks together over its own oversubscription.
  int below = 1;
  double uplink_Bps = model::LeafUplinkBps(c);
  for (size_t i = 0; i < layout.level_nodes.size(); ++i) {
    const int children = layout.level_nodes[i] / below;
    if (i > 0) uplink_Bps = children * uplink_Bps / c.fabric.pod_oversubscription;
    p.levels.push_back({children, uplink_Bps});
    below = layout.level_nodes[i];
  }
  p.intra_efficiency = c.nccl.intra_bandwidth_efficiency;
  p.inter_efficiency = c.nccl.inter_bandwidth_efficiency;
  p.actor_stack_kib = actor_stack_kib;
  p.mirrored = layout.folded;
  if (pert.empty()) return p;
  for (const SlowNode& s : pert.slow_nodes) {
    if (s.node < 0 || s.node >= layout.real_nodes) {
      return Status::Error(
          fmt::format("slow node {}: the cluster has nodes 0 to {}", s.node, layout.real_nodes - 1));
    }
    if (!(s.slowdown > 0))
      return Status::Error(fmt::format("slow node {}: slowdown {} is not positive", s.node, s.slowdown));
  }
  if (!pert.slow_nodes.empty() && layout.sim_nodes != layout.real_nodes) {
    // A shrunk platform: slowdown class k is replayed on node k (rank_classes.h).
    SlowdownClasses(layout.real_nodes, pert.slow_nodes, &p.node_slowdown);
  } else if (!pert.slow_nodes.empty()) {
    p.node_slowdown.assign(static_cast<size_t>(p.nodes), 1.0);
    for (const SlowNode& s : pert.slow_nodes) p.node_slowdown[static_cast<size_t>(s.node)] *= s.slowdown;
  }
  if (layout.sim_nodes != layout.real_nodes && (!pert.links.empty() || !pert.background.empty())) {
    return Status::Error("degraded links and background flows need the whole platform");
  }
  for (const DegradedLink& d : pert.links) {
    if (!(d.bandwidth_factor > 0) || d.bandwidth_factor > 1) {
      return Status::Error(
          fmt::format("degraded link: bandwidth factor {} is not in (0, 1]", d.bandwidth_factor));
    }
    if (d.kind == DegradedLink::Kind::kNic) {
      if (d.node < 0 || d.node >= p.nodes || d.rail < 0 || d.rail >= p.nics_per_node) {
        return Status::Error(
            fmt::format("degraded NIC {} of node {}: the cluster has nodes 0 to {} with NICs 0 to {}", d.rail,
                        d.node, p.nodes - 1, p.nics_per_node - 1));
      }
      p.nic_factor.resize(static_cast<size_t>(p.nodes * p.nics_per_node), 1.0);
      p.nic_factor[static_cast<size_t>(d.node * p.nics_per_node + d.rail)] *= d.bandwidth_factor;
      continue;
    }
    const int levels = static_cast<int>(layout.level_nodes.size());
    const int groups =
        d.level >= 0 && d.level < levels ? p.nodes / layout.level_nodes[static_cast<size_t>(d.level)] : 0;
    if (d.group < 0 || d.group >= groups) {
      return Status::Error(
          fmt::format("degraded uplink of group {} at level {}: the fabric has {} level(s){}", d.group,
                      d.level, levels, groups > 0 ? fmt::format(", {} groups at that level", groups) : ""));
    }
    p.uplink_factor.resize(static_cast<size_t>(levels));
    p.uplink_factor[static_cast<size_t>(d.level)].resize(static_cast<size_t>(groups), 1.0);
    p.uplink_factor[static_cast<size_t>(d.level)][static_cast<size_t>(d.group)] *= d.bandwidth_factor;
  }
  for (const BackgroundFlow& b : pert.background) {
    if (b.src_node < 0 || b.src_node >= p.nodes || b.dst_node < 0 || b.dst_node >= p.nodes || b.gpu < 0 ||
        b.gpu >= p.gpus_per_node) {
      return Status::Error(
          fmt::format("background flow from node {} to node {} (GPU {}): the cluster has nodes 0 to {} "
                      "of GPUs 0 to {}",
                      b.src_node, b.dst_node, b.gpu, p.nodes - 1, p.gpus_per_node - 1));
    }
  }
  return p;
}

namespace {

// Ring edges member[i] -> member[i+1] (closing the ring), each carrying `bytes`. With `split_channels`, a
// cross-node edge is split evenly over the NICs (rails) the ring's members on the node are attached to, one
// flow per rail from the node's first member on that rail to the next node's: NCCL runs a ring as several
// channels, each entering and leaving a node through a different GPU and its NIC (src/graph/search.cc
// searches rings per channel over the communicator's GPUs and NICs), so the communicator's inter-node bytes
// spread over its GPUs' NICs (each GPU's rail: model::RailOf). The
// global ring's members are the whole node (every rail, from its first GPU); a replica ring of MiCS / HSDP
// with shard groups smaller than a node has N / s members on each node (s = 1: the whole node, the same ring
// as the global one) and uses their rails; a ring with one member per node keeps that member's NIC.
// model/placement/traffic.cc counts the same: a node's NICs together carry the edges of the instances
// touching it (max_node_nic_bytes over ClusterSpec::node_nic_Bps).
void AddRingEdges(const std::vector<int>& members, double bytes, bool split_channels, const Layout& l,
                  std::vector<Flow>* flows) {
  const int n = l.gpus_per_node;
  const int m = static_cast<int>(members.size());
  // Per node on the platform, the first member on each rail (-1: none).
  std::vector<std::vector<int>> first_on_rail;
  if (split_channels && l.nics > 1) {
    first_on_rail.assign(static_cast<size_t>(l.sim_nodes), std::vector<int>(static_cast<size_t>(l.nics), -1));
    for (int r : members) {
      const int rail = model::RailOf(r % n, n, l.nics);
      int& first = first_on_rail[static_cast<size_t>(r / n)][static_cast<size_t>(rail)];
      if (first < 0) first = r;
    }
  }
  for (int i = 0; i < m; ++i) {
    const int a = members[static_cast<size_t>(i)];
    const int b = members[static_cast<size_t>((i + 1) % m)];
    if (a / n == b / n && l.intra_rings == 2) {
      // An NVLink mesh: NCCL's two rings, this one and its reverse (model/spec/intra_fabric.h MeshRings),
      // each carry half of the bytes, on opposite directions of the pair's links.
      flows->push_back({a, b, bytes / 2});
      flows->push_back({b, a, bytes / 2});
      continue;
    }
    if (a / n == b / n || first_on_rail.empty()) {
      flows->push_back({a, b, bytes});
      continue;
    }
    const std::vector<int>& from = first_on_rail[static_cast<size_t>(a / n)];
    const std::vector<int>& to = first_on_rail[static_cast<size_t>(b / n)];
    int rails = 0;
    bool same_rails = true;
    for (int rail = 0; rail < l.nics; ++rail) {
      const auto k = static_cast<size_t>(rail);
      rails += from[k] >= 0 ? 1 : 0;
      same_rails = same_rails && (from[k] >= 0) == (to[k] >= 0);
    }
    if (rails <= 1 || !same_rails) {
      flows->push_back({a, b, bytes});
      continue;
    }
    for (int rail = 0; rail < l.nics; ++rail) {
      const auto k = static_cast<size_t>(rail);
      if (from[k] >= 0) flows->push_back({from[k], to[k], bytes / rails});
    }
  }
}

// Macro all-to-all across nodes: GPU (node k, local rank r) sends buffer/K to every other node. Nodes
// fall into classes by the lowest fabric level whose group they share with k (the same leaf, the same
// pod, anywhere); one flow per class goes to k's mirror image in the next group of that class (the node
// at k's offset in the next child group, cyclically), carrying the bytes of the whole class. Every NIC and
// uplink then carries exactly what the uniform all-to-all puts on it.
void AddCrossNodeAllToAll(const std::vector<int>& members, double out_bytes, const Layout& l,
                          std::vector<Flow>* flows) {
  const int n = l.gpus_per_node;
  const int classes = static_cast<int>(l.level_nodes.size()) + 1;
  for (int gpu : members) {
    const int k = gpu / n;
    for (int cls = 0; cls < classes; ++cls) {
      const bool top = cls == classes - 1;
      const int lower = cls == 0 ? 1 : l.level_nodes[static_cast<size_t>(cls - 1)];
      const int upper_real = top ? l.real_nodes : l.level_nodes[static_cast<size_t>(cls)];
      const int upper_sim = top ? l.sim_nodes : upper_real;
      const int count = upper_real - lower;
      if (count <= 0) continue;
      const int target =
          k / upper_sim * upper_sim + ((k % upper_sim) / lower + 1) % (upper_sim / lower) * lower + k % lower;
      const double bytes = count == l.real_nodes - 1 ? out_bytes : out_bytes * count / (l.real_nodes - 1);
      flows->push_back({k * n + gpu % n, target * n + gpu % n, bytes});
    }
  }
}

// All-to-all over a group of consecutive nodes with the same m members on each (an expert-parallel group:
// model/builders/schedule_parts.cc), each member sending `chunk` to every other member. Inside a node: each
// member's m - 1 chunks as one flow to the next member (the node-local ring's stand-in of NCCL's pairwise
// sends over NVSwitch, as the qgZ local all-to-all's), or a flow per pair at kStep and on PCIe and mesh
// nodes. Across nodes: the m chunks a member sends to each other node of its group, the nodes grouped into
// classes by the lowest fabric level whose group they share with it inside the group's span
// (AddCrossNodeAllToAll's classes), one flow per class to its mirror image's same-local-rank member carrying
// the class's bytes. Every NIC, rail and uplink carries what the uniform exchange puts on it. Spans that the
// fabric's levels do not tile get one flow per other node.
void AddGroupAllToAll(const std::vector<int>& members, double chunk, const Layout& l, Fidelity f,
                      std::vector<Flow>* flows) {
  const int n = l.gpus_per_node;
  const std::vector<int> nodes = model::NodesOf(members, n);
  const int span = static_cast<int>(nodes.size());
  const int m = static_cast<int>(members.size()) / span;
  // Inside each node: its members are consecutive in `members` (node-major order).
  for (int k = 0; k < span; ++k) {
    const auto first = members.begin() + static_cast<std::ptrdiff_t>(k) * m;
    const std::vector<int> local(first, first + m);
    if (m <= 1) continue;
    if (f == Fidelity::kStep || l.all_pairs_in_node) {
      for (int a : local) {
        for (int b : local) {
          if (a != b) flows->push_back({a, b, chunk});
        }
      }
    } else {
      for (int j = 0; j < m; ++j) {
        flows->push_back(
            {local[static_cast<size_t>(j)], local[static_cast<size_t>((j + 1) % m)], chunk * (m - 1)});
      }
    }
  }
  if (span <= 1) return;
  const int base = nodes.front();
  const double per_node = chunk * m;
  // The class sizes: the fabric's levels below the span, then the span.
  std::vector<int> levels;
  for (int level : l.level_nodes) {
    if (level < span) levels.push_back(level);
  }
  levels.push_back(span);
  bool tiles = true;
  for (size_t i = 0; i < levels.size(); ++i) {
    const int lower = i == 0 ? 1 : levels[i - 1];
    tiles = tiles && levels[i] % lower == 0;
  }
  for (int gpu : members) {
    const int offset = gpu / n - base;
    if (!tiles) {
      for (int other = 0; other < span; ++other) {
        if (other != offset) flows->push_back({gpu, (base + other) * n + gpu % n, per_node});
      }
      continue;
    }
    int lower = 1;
    for (int upper : levels) {
      const int count = upper - lower;
      if (count > 0) {
        const int target = offset / upper * upper + ((offset % upper) / lower + 1) % (upper / lower) * lower +
                           offset % lower;
        flows->push_back({gpu, (base + target) * n + gpu % n, per_node * count});
      }
      lower = upper;
    }
  }
}

}  // namespace

StatusOr<std::vector<PlanStep>> PlanCollective(const model::CollectiveSpec& c,
                                               const model::PlacedCollective& placed, const Layout& l,
                                               Fidelity f, const std::vector<int>& instances) {
  const model::CollectiveTime& t = placed.time;
  const int g = c.group_size;
  if (g <= 1) return std::vector<PlanStep>{{t.latency_s, {}}};
  const model::NcclProtocol& p = t.params;

  if (c.kind != CollectiveKind::kAllToAll) {
    // NCCL spreads a multi-node ring's channels over the NICs of its members on each node (the global ring, a
    // shard group over several nodes, a replica group with several members per node); rings of one member per
    // node leave through that member's own NIC (AddRingEdges).
    const bool split = true;
    const int rounds = c.kind == CollectiveKind::kAllReduce ? 2 : 1;
    const double chunk = c.buffer_bytes / g;
    if (f == Fidelity::kMacro) {
      PlanStep step{t.latency_s, {}};
      for (int i : instances)
        AddRingEdges(model::GroupMembers(c.group, i, l.grid()), rounds * (g - 1) * chunk, split, l,
                     &step.flows);
      return std::vector<PlanStep>{std::move(step)};
    }
    std::vector<Flow> edges;
    for (int i : instances) AddRingEdges(model::GroupMembers(c.group, i, l.grid()), chunk, split, l, &edges);
    std::vector<PlanStep> steps(static_cast<size_t>(rounds * (g - 1)));
    for (int s = 0; s < rounds * (g - 1); ++s) {
      PlanStep& step = steps[static_cast<size_t>(s)];
      step.latency_s = (s == 0 ? p.base_latency_s : 0) +
                       (s < placed.ring.inter_steps ? p.inter_step_latency_s : p.intra_step_latency_s);
      step.flows = edges;
    }
    return steps;
  }

  PlanStep step{t.latency_s, {}};
  if (c.group != GroupKind::kLocal && c.group != GroupKind::kCrossNode) {
    // Any other group (an expert-parallel group, placed as a shard group: model/builders/schedule_parts.cc):
    // AddGroupAllToAll's flows, one step (NCCL's all-to-all is a grouped send/recv to every peer at once).
    for (int i : instances)
      AddGroupAllToAll(model::GroupMembers(c.group, i, l.grid()), c.buffer_bytes / g, l, f, &step.flows);
    return std::vector<PlanStep>{std::move(step)};
  }
  const double out_bytes = c.buffer_bytes * (g - 1) / g;
  for (int i : instances) {
    const std::vector<int> members = model::GroupMembers(c.group, i, l.grid());
    const int m = static_cast<int>(members.size());
    if (f == Fidelity::kStep || (l.all_pairs_in_node && c.group == GroupKind::kLocal)) {
      for (int a : members) {
        for (int b : members) {
          if (a != b) step.flows.push_back({a, b, c.buffer_bytes / g});
        }
      }
    } else if (c.group == GroupKind::kLocal) {
      for (int j = 0; j < m; ++j) {
        step.flows.push_back(
            {members[static_cast<size_t>(j)], members[static_cast<size_t>((j + 1) % m)], out_bytes});
      }
    } else {
      AddCrossNodeAllToAll(members, out_bytes, l, &step.flows);
    }
  }
  return std::vector<PlanStep>{std::move(step)};
}

}  // namespace zerosim::sim
