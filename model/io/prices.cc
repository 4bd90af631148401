#include "model/io/prices.h"

#include <optional>

#include <fmt/format.h>

namespace zerosim::io {
namespace {

std::string Where(const std::string& file, const toml::node& n) {
  return fmt::format("{}:{}:{}", file, n.source().begin.line, n.source().begin.column);
}

// The keys of one GPU's prices (a table file's [gpu."NAME"] or a sweep's [cost.gpu."NAME"]); `sourced`: each
// price needs its source (the table file), else sources are not read (a sweep's override is its own source).
GpuPrice ReadGpuPrice(TableReader* t, bool sourced) {
  GpuPrice p;
  p.gpu_hour_usd = t->NumberOr("gpu_hour_usd", 0, 0, 1e6);
  p.capex_per_gpu_usd = t->NumberOr("capex_per_gpu_usd", 0, 0, 1e9);
  p.power_per_gpu_w = t->NumberOr("power_per_gpu_w", 0, 0, 1e6);
  if (sourced) {
    auto source = [&](const char* price, const char* key) {
      if (!t->Has(price)) return std::string();
      if (!t->Has(key)) t->Fail(key, fmt::format("{} needs its source: where it is published, and when", price));
      return t->OptionalString(key).value_or("");
    };
    p.gpu_hour_source = source("gpu_hour_usd", "gpu_hour_source");
    p.capex_source = source("capex_per_gpu_usd", "capex_source");
    p.power_source = source("power_per_gpu_w", "power_source");
  }
  return p;
}

// The "gpu" table of `raw` (a file's root or a sweep's [cost]) read entry by entry into `out`.
Status ReadGpuTables(const toml::table& raw, const std::string& file, const std::string& prefix, bool sourced,
                     std::map<std::string, GpuPrice>* out, std::map<std::string, std::string>* where) {
  const toml::node* gpu = raw.get("gpu");
  if (gpu == nullptr) return Status::Ok();
  if (!gpu->is_table()) return Status::Error(fmt::format("{}: [{}gpu]: expected a table of GPUs", Where(file, *gpu), prefix));
  Status status;
  for (const auto& [name, node] : *gpu->as_table()) {
    const std::string key(name.str());
    if (!node.is_table()) {
      return Status::Error(fmt::format("{}: [{}gpu.\"{}\"]: expected a table of prices", Where(file, node), prefix, key));
    }
    TableReader t(node.as_table(), file, fmt::format("{}gpu.\"{}\"", prefix, key), &status);
    (*out)[key] = ReadGpuPrice(&t, sourced);
    t.Finish();
    if (!status.ok()) return status;
    (*where)[key] = Where(file, node);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<PriceTable> LoadPriceTable(const FileSource& fs, const std::string& path) {
  StatusOr<TomlFile> doc = ReadTomlFile(fs, path);
  if (!doc.ok()) return doc.status();
  PriceTable t;
  t.file = doc->file;
  Status status;
  TableReader root(&doc->table, path, "", &status);
  root.MarkKnown("gpu");
  if (!root.Has("gpu")) root.Fail("gpu", "a price table needs [gpu.\"NAME\"] tables (NAME: a topology's [gpu] name)");
  root.Finish();
  if (!status.ok()) return status;
  std::map<std::string, std::string> where;
  if (Status st = ReadGpuTables(doc->table, path, "", true, &t.gpus, &where); !st.ok()) return st;
  return t;
}

StatusOr<SweepPrices> ReadSweepPrices(const FileSource& fs, const std::string& path, TableReader* cost,
                                      const toml::table& raw, const std::vector<PricedGpu>& gpus, Status* status) {
  SweepPrices out;
  model::PriceModel& p = out.common;
  // The table of published prices, if any (relative to the sweep file).
  std::optional<PriceTable> table;
  if (std::optional<std::string> file = cost->OptionalFileName("prices")) {
    StatusOr<PriceTable> t = LoadPriceTable(fs, ResolvePath(path, *file));
    if (!t.ok()) return cost->Referred("prices", t.status());
    table = std::move(t).value();
    out.table_file = table->file;
  }
  // The basis: rent (a price per GPU-hour) or own (capital expense amortised, plus power). Without `basis`,
  // own when the sweep gives a capital expense, else rent.
  const bool flat_rent = cost->Has("gpu_hour_usd");
  const bool flat_own = cost->Has("capex_per_gpu_usd");
  bool own = flat_own;
  if (std::optional<std::string> basis = cost->OptionalString("basis")) {
    if (*basis != "rent" && *basis != "own") {
      cost->Fail("basis", fmt::format("expected \"rent\" (a price per GPU-hour) or \"own\" (capital expense and "
                                      "power), got \"{}\"",
                                      *basis));
    }
    own = *basis == "own";
  }
  if (flat_rent && flat_own) {
    cost->Fail("capex_per_gpu_usd",
               "give either gpu_hour_usd (rent) or capex_per_gpu_usd with its amortization (own), not both");
  } else if (own && flat_rent) {
    cost->Fail("gpu_hour_usd", "basis = \"own\" prices capital expense and power: gpu_hour_usd does not apply");
  } else if (!own && flat_own) {
    cost->Fail("capex_per_gpu_usd", "basis = \"rent\" prices GPU-hours: capex_per_gpu_usd does not apply");
  }
  p.gpu_hour_usd = cost->NumberOr("gpu_hour_usd", 0, 0, 1e6);
  p.capex_per_gpu_usd = cost->NumberOr("capex_per_gpu_usd", 0, 0, 1e9);
  p.power_per_gpu_w = cost->NumberOr("power_per_gpu_w", 0, 0, 1e6);
  p.pue = cost->NumberOr("pue", 1, 1, 10);
  p.energy_usd_per_kwh = cost->NumberOr("energy_usd_per_kwh", 0, 0, 1e3);
  cost->MarkKnown("nic_usd");
  cost->MarkKnown("switch_port_usd");
  cost->MarkKnown("gpu");
  if (own) {
    p.amortization_s = cost->Quantity("amortization", Dimension::kTime, true);
    for (const char* t : {"nic_usd", "switch_port_usd"}) {
      if (!cost->Has(t)) cost->Fail(t, fmt::format("missing [cost.{}] (prices by NIC bandwidth)", t));
    }
  } else {
    for (const char* key : {"amortization", "pue", "energy_usd_per_kwh", "power_per_gpu_w"}) {
      if (cost->Has(key)) cost->Fail(key, fmt::format("{} prices an owned cluster: set basis = \"own\"", key));
    }
  }
  if (!status->ok()) return *status;
  if (own) {
    // The price tables are keyed by bandwidth ("400Gbps").
    for (const char* name : {"nic_usd", "switch_port_usd"}) {
      const toml::table* t = raw.get_as<toml::table>(name);
      if (t == nullptr) continue;
      auto& target = std::string(name) == "nic_usd" ? p.nic_usd_by_Bps : p.switch_port_usd_by_Bps;
      for (const auto& [k, node] : *t) {
        StatusOr<double> bw = ParseQuantity(k.str(), Dimension::kBandwidth);
        if (!bw.ok()) {
          return Status::Error(fmt::format("{}: [cost.{}] {}: the key must be a bandwidth: {}", Where(path, node),
                                           name, k.str(), bw.status().message()));
        }
        const double usd = !node.is_number()    ? -1
                           : node.is_integer() ? static_cast<double>(node.as_integer()->get())
                                               : node.as_floating_point()->get();
        if (!(usd >= 0 && usd <= 1e12)) {
          return Status::Error(fmt::format("{}: [cost.{}] {}: expected a price in USD between 0 and 1e12",
                                           Where(path, node), name, k.str()));
        }
        target[*bw] = usd;
      }
    }
  }
  if (flat_rent) p.source = "sweep [cost] gpu_hour_usd";
  if (flat_own) p.source = "sweep [cost] capex_per_gpu_usd";

  // The sweep's own per-GPU prices ([cost.gpu."NAME"]): each must name a GPU of the sweep's clusters.
  std::map<std::string, GpuPrice> overrides;
  std::map<std::string, std::string> override_where;
  if (Status st = ReadGpuTables(raw, path, "cost.", false, &overrides, &override_where); !st.ok()) return st;
  for (const auto& [name, price] : overrides) {
    bool used = false;
    std::string names;
    for (const PricedGpu& g : gpus) {
      used = used || g.name == name;
      if (names.find('"' + g.name + '"') == std::string::npos) names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", g.name);
    }
    if (!used) {
      return Status::Error(fmt::format("{}: [cost.gpu.\"{}\"]: no cluster of this sweep has this GPU (its GPUs: {})",
                                       override_where[name], name, names));
    }
  }

  for (const PricedGpu& g : gpus) {
    if (out.by_gpu.count(g.name) > 0) continue;
    model::PriceModel m = p;
    const GpuPrice* listed = nullptr;
    if (table) {
      const auto it = table->gpus.find(g.name);
      if (it != table->gpus.end()) listed = &it->second;
    }
    const auto over = overrides.find(g.name);
    const GpuPrice* mine = over == overrides.end() ? nullptr : &over->second;
    // First found wins: the sweep's per-GPU key, its flat key, the table's entry.
    auto pick = [&](double GpuPrice::*field, const std::string GpuPrice::*source, double flat, double* value,
                    std::string* from) {
      if (mine != nullptr && mine->*field > 0) {
        *value = mine->*field;
        *from = fmt::format("sweep [cost.gpu.\"{}\"]", g.name);
      } else if (flat > 0) {
        *value = flat;
      } else if (listed != nullptr && listed->*field > 0) {
        *value = listed->*field;
        *from = listed->*source;
      }
    };
    std::string unused;
    if (own) {
      pick(&GpuPrice::capex_per_gpu_usd, &GpuPrice::capex_source, p.capex_per_gpu_usd, &m.capex_per_gpu_usd,
           &m.source);
      pick(&GpuPrice::power_per_gpu_w, &GpuPrice::power_source, p.power_per_gpu_w, &m.power_per_gpu_w, &unused);
    } else {
      pick(&GpuPrice::gpu_hour_usd, &GpuPrice::gpu_hour_source, p.gpu_hour_usd, &m.gpu_hour_usd, &m.source);
    }
    const bool priced = own ? m.capex_per_gpu_usd > 0 : m.gpu_hour_usd > 0;
    if (!priced) {
      const char* key = own ? "capex_per_gpu_usd" : "gpu_hour_usd";
      const std::string in = table ? fmt::format("the price table {} has no {} for it", table->file.path, key)
                                   : "no price table (`prices`) is named";
      return Status::Error(fmt::format(
          "{}: GPU \"{}\" (topology {}) has no {} price: {}; add [cost.gpu.\"{}\"] {} = ... or `{}` for every GPU",
          cost->Place(table ? "prices" : key), g.name, g.topology, own ? "capital" : "hourly", in, g.name, key, key));
    }
    out.by_gpu[g.name] = m;
  }
  return out;
}

}  // namespace zerosim::io
