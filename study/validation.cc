#include "study/validation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/report/evaluate.h"

namespace zerosim::study {

namespace {

const model::VariantReport* Find(const model::Report& r, const std::string& name, const std::string& engine) {
  for (const model::VariantReport& v : r.variants) {
    if (v.name == name && v.engine == engine) return &v;
  }
  return nullptr;
}

// The goals of issue #5, printed beside the errors.
std::string Target(io::Metric m) {
  switch (m) {
    case io::Metric::kTflopsPerGpu:
      return "target: every point within 15%";
    case io::Metric::kSpeedup:
      return "target: every point within 10%, median within 5%";
    case io::Metric::kCrossNodeVolumeM:
      return "target: within 3%";
    case io::Metric::kTokensPerSPerGpu:
      return "target: median within 8%, worst 25%";
    case io::Metric::kPeakReservedGiB:
      return "target: every point within 15% (issue 34)";
  }
  return "";
}

}  // namespace

bool PointResult::within() const { return std::abs(error) <= tolerance; }

double PointResult::OutOfSampleRatio() const {
  return published / (simulated_out_of_sample > 0 ? simulated_out_of_sample : simulated);
}

std::string PointResult::key() const {
  const std::string key = fmt::format("{}|{}|{}|{}", scenario, variant, io::MetricName(metric), baseline);
  return phase.empty() ? key : key + "|" + phase;
}

std::vector<PointResult> CheckExpectations(const io::Scenario& s, const model::Report& r, const std::string& engine) {
  std::vector<PointResult> out;
  for (const io::Expectation& e : s.expectations) {
    const model::VariantReport* v = Find(r, e.variant, engine);
    if (v == nullptr) continue;  // the loader checked the names
    PointResult p;
    p.engine = engine;
    p.scenario = s.scenario_file.path;
    p.variant = e.variant;
    p.baseline = e.baseline;
    p.phase = e.phase;
    p.metric = e.metric;
    p.published = e.value;
    p.tolerance = e.tolerance;
    p.source = e.source;
    p.group = s.group.empty() ? std::filesystem::path(s.scenario_file.path).parent_path().filename().string() : s.group;
    p.config = e.config;
    p.gpus = v->gpus;
    p.feasible = v->feasible;
    p.band_key = v->band.key;
    p.derived_from = s.calibration.compute.derived_from;
    switch (e.metric) {
      case io::Metric::kTflopsPerGpu:
        p.simulated = v->tflops_per_gpu;
        break;
      case io::Metric::kSpeedup: {
        const model::VariantReport* b = Find(r, e.baseline, engine);
        p.simulated = b != nullptr ? b->iteration_time_s / v->iteration_time_s : 0;
        if (!e.phase.empty() && b != nullptr) {
          // An RLHF phase: the variant's per-GPU throughput over the baseline's (the batch may differ).
          p.simulated = 0;
          for (size_t i = 0; i < v->phases.size() && i < b->phases.size(); ++i) {
            if (v->phases[i].name == e.phase && b->phases[i].throughput > 0) {
              p.simulated = v->phases[i].throughput / b->phases[i].throughput;
            }
          }
        }
        break;
      }
      case io::Metric::kCrossNodeVolumeM:
        p.simulated = model::CrossNodeVolumeInM(*v, r.cluster.nodes);
        break;
      case io::Metric::kTokensPerSPerGpu:
        p.simulated = v->tokens_per_s / v->gpus;
        break;
      case io::Metric::kPeakReservedGiB:
        // The fullest GPU's (a pipeline's fullest stage: pipeline_evaluate.h), as torchtitan reports the
        // maximum over its GPUs.
        p.simulated = v->memory.reserved_bytes / (1024.0 * 1024.0 * 1024.0);
        break;
    }
    p.error = (p.simulated - p.published) / p.published;
    out.push_back(std::move(p));
  }
  return out;
}

ErrorSummary Summarise(const std::vector<PointResult>& points, io::Metric metric) {
  ErrorSummary s;
  std::vector<double> errors;
  for (const PointResult& p : points) {
    if (p.metric != metric) continue;
    errors.push_back(std::abs(p.error));
    if (std::abs(p.error) >= s.worst) {
      s.worst = std::abs(p.error);
      s.worst_point = fmt::format("{} ({})", p.variant, std::filesystem::path(p.scenario).stem().string());
    }
  }
  s.count = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  s.median = n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  return s;
}

std::string FormatValidation(const std::vector<PointResult>& points) {
  std::string out = fmt::format("{:<9} {:<14} {:<18} {:<20} {:>10} {:>10} {:>8} {:>6}  {}\n", "engine", "scenario",
                                "variant", "metric", "published", "simulated", "error", "tol.", "");
  std::vector<std::string> engines;
  for (const PointResult& p : points) {
    out += fmt::format("{:<9} {:<14} {:<18} {:<20} {:>10.3f} {:>10.3f} {:>+7.1f}% {:>5.0f}%  {}\n", p.engine,
                       std::filesystem::path(p.scenario).stem().string(), p.variant,
                       p.phase.empty() ? std::string(io::MetricName(p.metric))
                                       : fmt::format("{} ({})", io::MetricName(p.metric), p.phase),
                       p.published, p.simulated, 100 * p.error, 100 * p.tolerance, p.within() ? "ok" : "OUTSIDE");
    if (std::find(engines.begin(), engines.end(), p.engine) == engines.end()) engines.push_back(p.engine);
  }
  out += "\n";
  for (const std::string& engine : engines) {
    std::vector<PointResult> mine;
    for (const PointResult& p : points) {
      if (p.engine == engine) mine.push_back(p);
    }
    for (io::Metric m : {io::Metric::kTflopsPerGpu, io::Metric::kSpeedup, io::Metric::kCrossNodeVolumeM,
                         io::Metric::kTokensPerSPerGpu, io::Metric::kPeakReservedGiB}) {
      const ErrorSummary s = Summarise(mine, m);
      if (s.count == 0) continue;
      out += fmt::format("{:<9} {:<20} {:>3} points: median |error| {:5.1f}%, worst {:5.1f}% ({})   [{}]\n", engine,
                         io::MetricName(m), s.count, 100 * s.median, 100 * s.worst, s.worst_point, Target(m));
    }
  }
  return out;
}

std::vector<GroupStats> GroupStatistics(const std::vector<PointResult>& points) {
  std::vector<GroupStats> out;
  std::vector<std::vector<double>> abs_errors;
  for (const PointResult& p : points) {
    size_t i = 0;
    while (i < out.size() &&
           !(out[i].engine == p.engine && out[i].group == p.group && out[i].metric == p.metric)) {
      ++i;
    }
    if (i == out.size()) {
      out.push_back({p.engine, p.group, p.metric});
      abs_errors.emplace_back();
    }
    GroupStats& g = out[i];
    ++g.n;
    g.mean_signed += p.error;  // the sum until the end
    g.infeasible += p.feasible ? 0 : 1;
    abs_errors[i].push_back(std::abs(p.error));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<double>& e = abs_errors[i];
    std::sort(e.begin(), e.end());
    const size_t n = e.size();
    out[i].median_abs = n % 2 == 1 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
    out[i].worst_abs = e.back();
    out[i].mean_signed /= static_cast<double>(n);
  }
  return out;
}

std::string FormatGroupSummary(const std::vector<PointResult>& points) {
  std::string out = fmt::format("{:<9} {:<32} {:<21} {:>4} {:>9} {:>8} {:>11} {:>10}\n", "engine", "group", "metric", "n",
                                "median|e|", "worst|e|", "mean signed", "infeasible");
  for (const GroupStats& g : GroupStatistics(points)) {
    out += fmt::format("{:<9} {:<32} {:<21} {:>4} {:>8.1f}% {:>7.1f}% {:>+10.1f}% {:>10}\n", g.engine, g.group,
                       io::MetricName(g.metric), g.n, 100 * g.median_abs, 100 * g.worst_abs, 100 * g.mean_signed,
                       g.infeasible);
  }
  // Scaling: the same configuration at its fewest and most GPUs.
  std::map<std::string, std::pair<const PointResult*, const PointResult*>> span;  // key -> (fewest, most)
  for (const PointResult& p : points) {
    if (p.config.empty() || p.metric == io::Metric::kSpeedup) continue;
    const std::string key = p.engine + "\t" + p.group + "\t" + p.config + "\t" + io::MetricName(p.metric);
    auto [it, inserted] = span.try_emplace(key, &p, &p);
    if (inserted) continue;
    if (p.gpus < it->second.first->gpus) it->second.first = &p;
    if (p.gpus > it->second.second->gpus) it->second.second = &p;
  }
  std::string scaling;
  for (const auto& [key, pair] : span) {
    const auto [lo, hi] = pair;
    if (lo->gpus == hi->gpus) continue;
    const double published = hi->published / lo->published;
    const double simulated = hi->simulated / lo->simulated;
    scaling += fmt::format("{:<9} {:<32} {:<34} {:>5} -> {:<5} {:>9.3f} {:>9.3f} {:>+7.1f}%\n", lo->engine, lo->group,
                           lo->config, lo->gpus, hi->gpus, published, simulated, 100 * (simulated / published - 1));
  }
  if (!scaling.empty()) {
    out += fmt::format("\nscaling (per-GPU throughput at the most GPUs over the fewest; target: within 10%)\n"
                       "{:<9} {:<32} {:<34} {:>5}    {:<5} {:>9} {:>9} {:>8}\n",
                       "engine", "group", "configuration", "GPUs", "", "published", "simulated", "error") +
           scaling;
  }
  return out;
}

std::string FormatEngineComparison(const std::vector<model::Report>& reports) {
  std::string out = fmt::format("{:<40} {:>12} {:>12} {:>10}\n", "variant (sim vs analytic)", "analytic (s)", "sim (s)",
                                "sim - an.");
  for (const model::Report& r : reports) {
    for (const model::VariantReport& a : r.variants) {
      if (a.engine != "analytic") continue;
      const model::VariantReport* s = Find(r, a.name, "sim");
      if (s == nullptr) continue;
      const double diff = s->iteration_time_s / a.iteration_time_s - 1;
      const std::string label = std::filesystem::path(r.provenance.scenario.path).stem().string() + ": " + a.name;
      out += fmt::format("{:<40} {:>12.4f} {:>12.4f} {:>+9.2f}%{}\n", label,
                         a.iteration_time_s, s->iteration_time_s, 100 * diff,
                         std::abs(diff) > 0.05 ? "  (differs by more than 5%)" : "");
    }
  }
  return out;
}

std::string BaselineJson(const std::vector<PointResult>& points, const std::string& engine) {
  nlohmann::ordered_json j;
  j["format"] = "zerosim-validation-baseline-1";
  j["engine"] = engine;
  nlohmann::ordered_json pts = nlohmann::ordered_json::object();
  for (const PointResult& p : points) pts[p.key()] = std::abs(p.error);
  j["abs_error"] = pts;
  return j.dump(2) + "\n";
}

StatusOr<std::vector<std::string>> CompareWithBaseline(const std::vector<PointResult>& points,
                                                       const std::string& baseline_json,
                                                       const std::vector<std::string>& run_scenarios,
                                                       std::string* notes) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(baseline_json);
  } catch (const nlohmann::json::parse_error& e) {
    return Status::Error(fmt::format("baseline: invalid JSON: {}", e.what()));
  }
  if (!j.contains("abs_error") || !j["abs_error"].is_object()) {
    return Status::Error("baseline: no 'abs_error' object");
  }
  const std::string engine = j.value("engine", "");
  for (const PointResult& p : points) {
    if (p.engine != engine) {
      return Status::Error(fmt::format("the baseline is for the {} engine, the points are the {} engine's", engine,
                                       p.engine));
    }
  }
  std::vector<std::string> worse;
  std::set<std::string> keys;
  for (const PointResult& p : points) {
    keys.insert(p.key());
    const auto it = j["abs_error"].find(p.key());
    if (it == j["abs_error"].end() || !it->is_number()) {
      *notes += fmt::format("not in the baseline (not gated): {}\n", p.key());
      continue;
    }
    const double was = it->get<double>();
    if (std::abs(p.error) > was + 1e-9) {
      worse.push_back(fmt::format("{}: |error| {:.2f}% is worse than the baseline's {:.2f}%", p.key(),
                                  100 * std::abs(p.error), 100 * was));
    }
  }
  // The baseline's points the run should have and lacks.
  namespace fs = std::filesystem;
  std::set<std::string> files, dirs;
  for (const std::string& f : run_scenarios) {
    files.insert(fs::path(f).lexically_normal().string());
    dirs.insert(fs::path(f).lexically_normal().parent_path().string());
  }
  for (const auto& [key, value] : j["abs_error"].items()) {
    if (keys.count(key) != 0) continue;
    const fs::path scenario = fs::path(key.substr(0, key.find('|'))).lexically_normal();
    std::error_code ec;
    if (files.count(scenario.string()) != 0) {
      worse.push_back(fmt::format("{}: in the baseline, missing from the run (a renamed variant or a removed "
                                  "expectation? if on purpose, write a new baseline with --write-baseline)",
                                  key));
    } else if (dirs.count(scenario.parent_path().string()) != 0 && !fs::exists(scenario, ec)) {
      worse.push_back(fmt::format("{}: in the baseline, and its scenario {} no longer exists (deleted or renamed? "
                                  "if on purpose, write a new baseline with --write-baseline)",
                                  key, scenario.string()));
    }
  }
  return worse;
}

std::vector<std::string> FindScenarioFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::filesystem::path& p = it->path();
    if (!it->is_regular_file() || p.extension() != ".toml") continue;
    bool in_models = false;
    for (const auto& part : p) in_models = in_models || part == "models";
    const bool sweep = p.filename().string().size() > 11 &&
                       p.filename().string().compare(p.filename().string().size() - 11, 11, ".sweep.toml") == 0;
    if (!in_models && !sweep) out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

StatusOr<std::vector<std::string>> ScenarioFilesOrDiscover(const std::vector<std::string>& files) {
  if (!files.empty()) return files;
  if (!std::filesystem::is_directory("scenarios")) {
    return Status::Error("no ./scenarios directory: run from the ZeroSim source tree or name scenario files");
  }
  return FindScenarioFiles("scenarios");
}

std::string ValidationJsonl(const std::vector<PointResult>& points) {
  std::string out;
  for (const PointResult& p : points) {
    nlohmann::ordered_json j;
    j["engine"] = p.engine;
    j["scenario"] = p.scenario;
    j["variant"] = p.variant;
    j["baseline"] = p.baseline;
    j["metric"] = io::MetricName(p.metric);
    if (!p.phase.empty()) j["phase"] = p.phase;
    j["published"] = p.published;
    j["simulated"] = p.simulated;
    j["error"] = p.error;
    j["tolerance"] = p.tolerance;
    j["source"] = p.source;
    j["group"] = p.group;
    j["config"] = p.config;
    j["gpus"] = p.gpus;
    j["feasible"] = p.feasible;
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace zerosim::study
