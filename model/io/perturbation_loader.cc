#include "model/io/perturbation_loader.h"

#include <fmt/format.h>

namespace zerosim::io {
namespace {

// Each table of the array `key` of `section`, read by `read`. Anything else than an array of tables is an
// error.
template <typename F>
void ForEachTable(TableReader* section, const toml::table& table, const std::string& path,
                  std::string_view key, Status* status, F read) {
  section->MarkKnown(key);
  const toml::node* list = table.get(key);
  if (list == nullptr) return;
  if (!list->is_array_of_tables()) {
    section->Fail(key, fmt::format("expected [[perturbations.{}]] tables", key));
    return;
  }
  int i = 0;
  for (const toml::node& t : *list->as_array()) {
    TableReader r(t.as_table(), path, fmt::format("perturbations.{}.{}", key, i++), status);
    read(r);
    r.Finish();
  }
}

// The number of fabric groups at `level` (0: leaves, 1: pods), or 0 if the fabric has no such level.
int GroupsAt(const model::ClusterSpec& c, int level) {
  if (c.fabric.kind != model::FabricKind::kFatTree || c.fabric.nodes_per_leaf <= 0) return 0;
  const int per_leaf = c.fabric.nodes_per_leaf;
  if (level == 0) return per_leaf < c.nodes ? c.nodes / per_leaf : 0;
  const int per_pod = per_leaf * c.fabric.leaves_per_pod;
  if (level == 1 && c.fabric.leaves_per_pod > 1 && per_pod < c.nodes) return c.nodes / per_pod;
  return 0;
}

int Node(TableReader& r, std::string_view key, const model::ClusterSpec& c) {
  const auto node = static_cast<int>(r.Int(key, 0));
  if (node >= c.nodes)
    r.Fail(key, fmt::format("node {} does not exist: the cluster has nodes 0 to {}", node, c.nodes - 1));
  return node;
}

}  // namespace

model::Perturbations ReadPerturbations(TableReader* root, const toml::table& doc, const std::string& path,
                                     const model::ClusterSpec& c, Status* status) {
  model::Perturbations p;
  std::optional<TableReader> section = root->OptionalTable("perturbations");
  const toml::table* table = doc.get_as<toml::table>("perturbations");
  if (!section || table == nullptr) return p;

  ForEachTable(&*section, *table, path, "slow_node", status, [&](TableReader& r) {
    model::SlowNode s;
    s.node = Node(r, "node", c);
    s.slowdown = r.NumberOr("slowdown", 1, 1e-3, 1e3);
    if (!r.Has("slowdown")) r.Count("slowdown", 0);  // report it missing
    p.slow_nodes.push_back(s);
  });

  ForEachTable(&*section, *table, path, "degraded_link", status, [&](TableReader& r) {
    model::DegradedLink d;
    const std::string link = r.String("link");
    if (link == "nic") {
      d.kind = model::DegradedLink::Kind::kNic;
      d.node = Node(r, "node", c);
      d.rail = static_cast<int>(r.Int("rail", 0));
      if (d.rail >= c.nic.count) {
        r.Fail("rail",
               fmt::format("NIC {} does not exist: nodes have NICs 0 to {}", d.rail, c.nic.count - 1));
      }
    } else if (link == "leaf_uplink" || link == "pod_uplink") {
      d.kind = model::DegradedLink::Kind::kUplink;
      d.level = link == "leaf_uplink" ? 0 : 1;
      const char* key = d.level == 0 ? "leaf" : "pod";
      d.group = static_cast<int>(r.Int(key, 0));
      const int groups = GroupsAt(c, d.level);
      if (groups == 0) {
        r.Fail("link",
               fmt::format("the fabric has no {} uplinks (a fat tree with more than one {})", key, key));
      } else if (d.group >= groups) {
        r.Fail(key, fmt::format("{} {} does not exist: the fabric has {}s 0 to {}", key, d.group, key,
                                groups - 1));
      }
    } else {
      r.Fail("link", fmt::format("unknown link \"{}\" (nic, leaf_uplink, pod_uplink)", link));
    }
    d.bandwidth_factor = r.NumberOr("bandwidth_factor", 1, 1e-6, 1);
    if (!r.Has("bandwidth_factor")) r.Count("bandwidth_factor", 0);
    p.links.push_back(d);
  });

  ForEachTable(&*section, *table, path, "background_flow", status, [&](TableReader& r) {
    model::BackgroundFlow b;
    b.src_node = Node(r, "from_node", c);
    b.dst_node = Node(r, "to_node", c);
    b.gpu = static_cast<int>(r.Int("gpu", 0));
    if (b.gpu >= c.gpus_per_node) {
      r.Fail("gpu",
             fmt::format("GPU {} does not exist: nodes have GPUs 0 to {}", b.gpu, c.gpus_per_node - 1));
    }
    if (b.src_node == b.dst_node) r.Fail("to_node", "a background flow joins two different nodes");
    b.rate_Bps = r.Quantity("rate", Dimension::kBandwidth, /*positive=*/true);
    p.background.push_back(b);
  });
  section->Finish();
  return p;
}

}  // namespace zerosim::io
