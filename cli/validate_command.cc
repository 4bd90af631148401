// `zerosim validate [scenario...] [--baseline FILE] [--write-baseline FILE] [--jsonl FILE]`
#include <filesystem>
#include <fstream>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/scenario_runner.h"
#include "cli/validation.h"

namespace zerosim::cli {

namespace po = boost::program_options;

namespace {

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

std::string PointsJsonl(const std::vector<PointResult>& points) {
  std::string out;
  for (const PointResult& p : points) {
    nlohmann::ordered_json j;
    j["scenario"] = p.scenario;
    j["variant"] = p.variant;
    j["baseline"] = p.baseline;
    j["metric"] = io::MetricName(p.metric);
    j["published"] = p.published;
    j["simulated"] = p.simulated;
    j["error"] = p.error;
    j["tolerance"] = p.tolerance;
    j["source"] = p.source;
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace

int ValidateCommand(int argc, char** argv) {
  std::vector<std::string> files;
  std::string baseline, write_baseline, jsonl, engine_name = "analytic";
  po::options_description opts(
      "usage: zerosim validate [scenario.toml...] [options]\n\n"
      "Runs every scenario that carries published expectations ([[expect]] tables; with no argument, every\n"
      "such scenario under ./scenarios) and prints published against simulated values with the error, then\n"
      "the median and worst error per metric beside the targets. Exits 1 when a point is outside its\n"
      "tolerance; with --baseline, exits 1 only when a point is worse than the baseline (the regression gate).\n\n"
      "options");
  opts.add_options()("help,h", "print this help")
      ("engine", po::value<std::string>(&engine_name)->value_name("NAME"), "analytic (default)")
      ("baseline", po::value<std::string>(&baseline)->value_name("FILE"),
       "fail only on points whose |error| exceeds FILE's (written by --write-baseline)")
      ("write-baseline", po::value<std::string>(&write_baseline)->value_name("FILE"), "write the per-point errors to FILE")
      ("jsonl", po::value<std::string>(&jsonl)->value_name("FILE"), "write one JSON line per point to FILE");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::vector<std::string>>(&files));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "zerosim validate: {}\n\n", e.what());
    std::cerr << opts << "\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (engine_name != "analytic") {
    fmt::print(stderr, "zerosim validate: unknown engine '{}' (available: analytic)\n", engine_name);
    return kExitUsage;
  }
  const bool discover = files.empty();
  if (discover) {
    if (!std::filesystem::is_directory("scenarios")) {
      fmt::print(stderr, "zerosim validate: no ./scenarios directory: run from the ZeroSim source tree or name "
                         "scenario files\n");
      return kExitUsage;
    }
    files = FindScenarioFiles("scenarios");
  }

  std::vector<PointResult> points;
  for (const std::string& f : files) {
    StatusOr<io::Scenario> s = LoadScenarioOrDefault(f);
    if (!s.ok()) {
      fmt::print(stderr, "zerosim validate: error: {}\n", s.status().message());
      return kExitUsage;
    }
    if (s->expectations.empty()) {
      if (!discover) fmt::print(stderr, "zerosim validate: {} has no [[expect]] tables; skipped\n", f);
      continue;
    }
    fmt::print(stderr, "validating {} ({} variants, {} expectations)\n", f, s->variants.size(), s->expectations.size());
    const std::vector<PointResult> p = CheckExpectations(*s, EvaluateScenario(*s, Engine::kAnalytic));
    points.insert(points.end(), p.begin(), p.end());
  }
  if (points.empty()) {
    fmt::print(stderr, "zerosim validate: no expectations found\n");
    return kExitUsage;
  }
  fmt::print("{}", FormatValidation(points));
  if (!jsonl.empty() && !WriteFile(jsonl, PointsJsonl(points))) {
    fmt::print(stderr, "zerosim validate: cannot write {}\n", jsonl);
    return kExitFailed;
  }
  if (!write_baseline.empty() && !WriteFile(write_baseline, BaselineJson(points, engine_name))) {
    fmt::print(stderr, "zerosim validate: cannot write {}\n", write_baseline);
    return kExitFailed;
  }

  if (!baseline.empty()) {
    std::ifstream in(baseline, std::ios::binary);
    if (!in) {
      fmt::print(stderr, "zerosim validate: cannot open baseline {}\n", baseline);
      return kExitUsage;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string notes;
    StatusOr<std::vector<std::string>> worse = CompareWithBaseline(points, text, &notes);
    if (!worse.ok()) {
      fmt::print(stderr, "zerosim validate: {}: {}\n", baseline, worse.status().message());
      return kExitUsage;
    }
    fmt::print("{}", notes);
    if (!worse->empty()) {
      fmt::print("\nREGRESSION against {}:\n", baseline);
      for (const std::string& w : *worse) fmt::print("  {}\n", w);
      return kExitFailed;
    }
    fmt::print("\nno point is worse than the baseline {} ({} points gated)\n", baseline, points.size());
    return kExitOk;
  }
  int outside = 0;
  for (const PointResult& p : points) outside += !p.within();
  if (outside > 0) {
    fmt::print("\n{} of {} points outside their tolerance\n", outside, points.size());
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace zerosim::cli
