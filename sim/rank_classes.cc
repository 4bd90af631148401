#include "sim/rank_classes.h"

#include <algorithm>
#include <map>

#include "model/placement/placement.h"

namespace zerosim::sim {

using model::GroupKind;

namespace {

// What makes a node different from another on its own: its GPUs' slowdown, its NICs' and its fabric
// groups' uplinks' bandwidth factors.
std::vector<double> OwnSignature(int node, const Layout& l, const Perturbations& p) {
  std::vector<double> sig(static_cast<size_t>(1 + l.nics) + l.level_nodes.size(), 1.0);
  for (const SlowNode& s : p.slow_nodes) {
    if (s.node == node) sig[0] *= s.slowdown;
  }
  for (const DegradedLink& d : p.links) {
    if (d.kind == DegradedLink::Kind::kNic && d.node == node && d.rail >= 0 && d.rail < l.nics) {
      sig[static_cast<size_t>(1 + d.rail)] *= d.bandwidth_factor;
    }
    if (d.kind == DegradedLink::Kind::kUplink && d.level >= 0 &&
        d.level < static_cast<int>(l.level_nodes.size()) &&
        node / l.level_nodes[static_cast<size_t>(d.level)] == d.group) {
      sig[static_cast<size_t>(1 + l.nics + d.level)] *= d.bandwidth_factor;
    }
  }
  return sig;
}

}  // namespace

RankClasses MakeRankClasses(const Layout& l, const Perturbations& p) {
  RankClasses rc;
  const int gpus = l.sim_gpus();
  const int n = l.gpus_per_node;
  rc.class_of_gpu.assign(static_cast<size_t>(gpus), 0);
  rc.node_intra_simulated.assign(static_cast<size_t>(l.sim_nodes), false);
  if (l.symmetric) {
    // One class per GPU slowdown (one without slow nodes), replayed on node k of the platform for class k;
    // the other nodes of the platform carry fabric flows only. Node k's NVSwitch traffic stands for that
    // of every node of its class.
    rc.class_of_real_node = SlowdownClasses(l.real_nodes, p.slow_nodes, nullptr);
    const int classes = 1 + *std::max_element(rc.class_of_real_node.begin(), rc.class_of_real_node.end());
    for (int k = 0; k < classes; ++k) {
      rc.representative.push_back(k * n);
      rc.node_intra_simulated[static_cast<size_t>(k)] = true;
      for (int g = 0; g < n; ++g) rc.class_of_gpu[static_cast<size_t>(k * n + g)] = k;
    }
    return rc;
  }
  if (!l.node_classes) {
    for (int g = 0; g < gpus; ++g) {
      rc.class_of_gpu[static_cast<size_t>(g)] = g;
      rc.representative.push_back(g);
    }
    rc.node_intra_simulated.assign(static_cast<size_t>(l.sim_nodes), true);
    return rc;
  }
  std::vector<std::vector<double>> own;
  for (int k = 0; k < l.sim_nodes; ++k) own.push_back(OwnSignature(k, l, p));
  // hpZ groups wider than a node (or straddling nodes) couple their nodes: a node's signature then holds
  // the own signatures of the nodes of its groups, in order, and its offset among them.
  const bool coupled = l.groups.hpz > n || n % l.groups.hpz != 0;
  const model::RankGrid grid = l.grid();
  // A cross-node group holds one local rank of every node, so it runs on one rail: when the fabric is
  // perturbed, rails may finish their cross-node collectives at different times, and a class holds one rail.
  const bool by_rail = l.nics > 1 && (!p.links.empty() || !p.background.empty());
  std::map<std::vector<double>, int> ids;
  for (int k = 0; k < l.sim_nodes; ++k) {
    std::vector<double> sig = own[static_cast<size_t>(k)];
    if (coupled) {
      // The nodes from the first member of the hpZ group of k's first rank to the last of its last rank's.
      auto hpz_group = [&grid](int rank) {
        return model::GroupMembers(GroupKind::kHpz, model::InstanceOf(GroupKind::kHpz, rank, grid), grid);
      };
      const int first = hpz_group(k * n).front() / n;
      const int last = hpz_group(k * n + n - 1).back() / n;
      sig.push_back(k - first);
      for (int j = first; j <= last && j < l.sim_nodes; ++j) {
        sig.insert(sig.end(), own[static_cast<size_t>(j)].begin(), own[static_cast<size_t>(j)].end());
      }
    }
    sig.push_back(0);
    for (int g = 0; g < n; ++g) {
      sig.back() = by_rail ? model::RailOf(g, n, l.nics) : 0;
      auto [it, added] = ids.emplace(sig, rc.count());
      if (added) {
        rc.representative.push_back(k * n + g);
        rc.node_intra_simulated[static_cast<size_t>(k)] = true;
      }
      rc.class_of_gpu[static_cast<size_t>(k * n + g)] = it->second;
    }
  }
  return rc;
}

}  // namespace zerosim::sim
