// `zerosim run [scenario.toml] [--json out.json]`
#include <fstream>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/scenario_runner.h"
#include "model/io/report_json.h"
#include "model/io/report_table.h"

namespace zerosim::cli {

namespace po = boost::program_options;

int RunCommand(int argc, char** argv) {
  std::string scenario;
  std::string json_path;
  std::string engine_name = "analytic";
  po::options_description opts(
      "usage: zerosim run [scenario.toml] [options]\n\n"
      "Evaluates every variant of a scenario (ZeRO-3, ZeRO++ and any mix of qwZ/hpZ/qgZ) and prints a table:\n"
      "iteration time, TFLOPs per GPU, tokens/s, exposed communication, bytes per link tier and phase, memory\n"
      "per GPU with feasibility. With no scenario, runs the embedded default (the ZeRO++ paper's 18B model\n"
      "on 384 V100 with 1 x 100 Gbps per node). Scenario format: docs/inputs.md; JSON: docs/report.md.\n\n"
      "options");
  opts.add_options()("help,h", "print this help")
      ("json", po::value<std::string>(&json_path)->value_name("FILE"), "also write the full report as JSON to FILE")
      ("engine", po::value<std::string>(&engine_name)->value_name("NAME"),
       "how communication is timed: analytic (NCCL's cost model per tier; default)");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>(&scenario));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "zerosim run: {}\n\n", e.what());
    std::cerr << opts << "\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (engine_name != "analytic") {
    fmt::print(stderr, "zerosim run: unknown engine '{}' (available: analytic)\n", engine_name);
    return kExitUsage;
  }

  StatusOr<io::Scenario> s = LoadScenarioOrDefault(scenario);
  if (!s.ok()) {
    fmt::print(stderr, "zerosim run: error: {}\n", s.status().message());
    return kExitUsage;
  }
  const model::Report report = EvaluateScenario(*s, Engine::kAnalytic);
  fmt::print("{}", io::FormatReportTable(report));
  if (!json_path.empty()) {
    std::ofstream out(json_path, std::ios::binary);
    out << io::ReportJsonText(report);
    if (!out) {
      fmt::print(stderr, "zerosim run: error: cannot write {}\n", json_path);
      return kExitFailed;
    }
    fmt::print("\nreport written to {}\n", json_path);
  }
  return kExitOk;
}

}  // namespace zerosim::cli
