#include "study/loo_record.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "study/fit.h"

namespace zerosim::study {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

std::string PointName(const std::string& variant, const std::string& metric) { return variant + "|" + metric; }

}  // namespace

std::string LooRecordPath(const std::string& scenario_path) {
  std::filesystem::path p(scenario_path);
  p.replace_extension(".loo.json");
  return p.string();
}

std::string LooRecordJson(const std::vector<PointResult>& predicted, const std::string& scenario_path,
                          const std::string& command) {
  ordered_json j;
  j["format"] = "zerosim-loo-1";
  j["about"] = "Leave-one-model-size-out predictions of a calibration set's points (study/loo_record.h), read by "
               "`zerosim validate` for the bands. Written by the command below; do not edit.";
  j["command"] = command;
  j["scenario"] = scenario_path;
  j["points"] = ordered_json::array();
  for (const PointResult& p : predicted) {
    if (p.scenario != scenario_path || !IsFitted(p.metric)) continue;
    ordered_json e;
    e["variant"] = p.variant;
    e["metric"] = io::MetricName(p.metric);
    e["published"] = p.published;
    e["predicted"] = p.simulated;
    j["points"].push_back(e);
  }
  return j.dump(1) + "\n";
}

Status ApplyLooRecord(const std::string& scenario_path, std::vector<PointResult>* points) {
  const std::string path = LooRecordPath(scenario_path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Ok();
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    return Status::Error(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  if (!doc.is_object() || doc.value("format", "") != "zerosim-loo-1" || !doc.contains("points") ||
      !doc["points"].is_array()) {
    return Status::Error(fmt::format("{}: key 'format': expected a \"zerosim-loo-1\" record with 'points'", path));
  }
  std::map<std::string, double> predicted;
  for (size_t i = 0; i < doc["points"].size(); ++i) {
    const json& e = doc["points"][i];
    if (!e.is_object() || !e.contains("variant") || !e["variant"].is_string() || !e.contains("metric") ||
        !e["metric"].is_string() || !e.contains("predicted") || !e["predicted"].is_number() ||
        !(e["predicted"].get<double>() > 0)) {
      return Status::Error(fmt::format("{}: key 'points[{}]': expected variant, metric and a positive predicted", path, i));
    }
    predicted[PointName(e["variant"].get<std::string>(), e["metric"].get<std::string>())] = e["predicted"].get<double>();
  }
  for (PointResult& p : *points) {
    if (p.scenario != scenario_path || !IsFitted(p.metric)) continue;
    const auto it = predicted.find(PointName(p.variant, io::MetricName(p.metric)));
    if (it == predicted.end()) {
      return Status::Error(fmt::format("{}: no prediction for {} ({}): the record is stale; rerun: {}", path, p.variant,
                                       io::MetricName(p.metric), doc.value("command", "zerosim fit --loo --write-loo")));
    }
    p.simulated_out_of_sample = it->second;
  }
  return Status::Ok();
}

}  // namespace zerosim::study
