#include "model/io/band_loader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/io/embedded.h"

namespace zerosim::io {

using nlohmann::json;
using nlohmann::ordered_json;

StatusOr<model::BandTable> ParseBands(const std::string& text, const std::string& path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    return Status::Error(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  auto fail = [&](const std::string& key, const std::string& why) {
    return Status::Error(fmt::format("{}: key '{}': {}", path, key, why));
  };
  if (!doc.is_object() || doc.value("format", "") != "zerosim-bands-1") {
    return fail("format", "expected \"zerosim-bands-1\"");
  }
  model::BandTable t;
  if (doc.contains("derived_widening")) {
    if (!doc["derived_widening"].is_number() || doc["derived_widening"].get<double>() < 1) {
      return fail("derived_widening", "expected a number of at least 1");
    }
    t.derived_widening = doc["derived_widening"].get<double>();
  }
  if (doc.contains("min_points")) {
    if (!doc["min_points"].is_number_integer() || doc["min_points"].get<int>() < 1) {
      return fail("min_points", "expected a count of at least 1");
    }
    t.min_points = doc["min_points"].get<int>();
  }
  if (!doc.contains("groups") || !doc["groups"].is_array()) return fail("groups", "expected an array");
  for (size_t i = 0; i < doc["groups"].size(); ++i) {
    const json& g = doc["groups"][i];
    const std::string where = fmt::format("groups[{}]", i);
    if (!g.is_object() || !g.contains("key") || !g["key"].is_string()) return fail(where + ".key", "expected a string");
    model::BandGroup b;
    b.key = g["key"].get<std::string>();
    if (!g.contains("n") || !g["n"].is_number_integer() || g["n"].get<int>() < 1) {
      return fail(where + ".n", "expected a count of at least 1");
    }
    b.n = g["n"].get<int>();
    for (const char* k : {"low", "high"}) {
      if (!g.contains(k) || !g[k].is_number() || !(g[k].get<double>() > 0)) {
        return fail(where + "." + k, "expected a number greater than zero");
      }
    }
    b.low = g["low"].get<double>();
    b.high = g["high"].get<double>();
    if (b.low > b.high) return fail(where + ".low", "greater than high");
    if (g.contains("median")) {
      if (!g["median"].is_number() || g["median"].get<double>() < b.low || g["median"].get<double>() > b.high) {
        return fail(where + ".median", "expected a number between low and high");
      }
      b.median = g["median"].get<double>();
    }
    b.sources = g.value("sources", "");
    t.groups.push_back(b);
  }
  return t;
}

const model::BandTable& ShippedBands() {
  static const model::BandTable table = [] {
    const auto& files = EmbeddedFiles();
    const auto it = files.find(kBandsFile);
    if (it == files.end()) return model::BandTable{};
    StatusOr<model::BandTable> t = ParseBands(it->second, kBandsFile);
    return t.ok() ? std::move(t).value() : model::BandTable{};
  }();
  return table;
}

std::string BandsJson(const model::BandTable& table, const std::string& about) {
  ordered_json j;
  j["format"] = "zerosim-bands-1";
  j["about"] = about;
  j["derived_widening"] = table.derived_widening;
  j["min_points"] = table.min_points;
  j["groups"] = ordered_json::array();
  for (const model::BandGroup& g : table.groups) {
    ordered_json e;
    e["key"] = g.key;
    e["n"] = g.n;
    e["low"] = g.low;
    e["high"] = g.high;
    e["median"] = g.median;
    e["sources"] = g.sources;
    j["groups"].push_back(e);
  }
  return j.dump(1) + "\n";
}

}  // namespace zerosim::io
