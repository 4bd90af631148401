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

}  // namespace

model::Perturbations ReadPerturbations(TableReader* root, const toml::table& doc, const std::string& path,
                                       Status* status) {
  model::Perturbations p;
  std::optional<TableReader> section = root->OptionalTable("perturbations");
  const toml::table* table = doc.get_as<toml::table>("perturbations");
  if (!section || table == nullptr) return p;

  ForEachTable(&*section, *table, path, "slow_node", status, [&](TableReader& r) {
    model::SlowNode s;
    s.node = static_cast<int>(r.Int("node", 0));
    s.slowdown = r.NumberOr("slowdown", 1, 1e-3, 1e3);
    if (!r.Has("slowdown")) r.Count("slowdown", 0);  // report it missing
    p.slow_nodes.push_back(s);
  });

  ForEachTable(&*section, *table, path, "degraded_link", status, [&](TableReader& r) {
    model::DegradedLink d;
    const std::string link = r.String("link");
    if (link == "nic") {
      d.kind = model::DegradedLink::Kind::kNic;
      d.node = static_cast<int>(r.Int("node", 0));
      d.rail = static_cast<int>(r.Int("rail", 0));
    } else if (link == "leaf_uplink" || link == "pod_uplink") {
      d.kind = model::DegradedLink::Kind::kUplink;
      d.level = link == "leaf_uplink" ? 0 : 1;
      const char* key = d.level == 0 ? "leaf" : "pod";
      d.group = static_cast<int>(r.Int(key, 0));
    } else {
      r.Fail("link", fmt::format("unknown link \"{}\" (nic, leaf_uplink, pod_uplink)", link));
    }
    d.bandwidth_factor = r.NumberOr("bandwidth_factor", 1, 1e-6, 1);
    if (!r.Has("bandwidth_factor")) r.Count("bandwidth_factor", 0);
    p.links.push_back(d);
  });

  ForEachTable(&*section, *table, path, "background_flow", status, [&](TableReader& r) {
    model::BackgroundFlow b;
    b.src_node = static_cast<int>(r.Int("from_node", 0));
    b.dst_node = static_cast<int>(r.Int("to_node", 0));
    b.gpu = static_cast<int>(r.Int("gpu", 0));
    b.rate_Bps = r.Quantity("rate", Dimension::kBandwidth, /*positive=*/true);
    p.background.push_back(b);
  });
  section->Finish();
  return p;
}

}  // namespace zerosim::io
