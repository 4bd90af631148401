// `zerosim compare A.toml B.toml [--scenario S] [--set-a K=V] [--set-b K=V] [--engine analytic|sim]
// [--format table|json|jsonl|csv]`: two scenarios, or one scenario on two clusters (A and B topology files),
// side by side with the differences and their causes (study/compare.h).
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "study/compare.h"
#include "study/output_format.h"
#include "study/scenario_runner.h"

namespace zerosim::cli {

namespace po = boost::program_options;

int CompareCommand(int argc, char** argv) {
  std::vector<std::string> files, set_a, set_b;
  std::string base, format_name = "table";
  EngineArgs engine_args;
  int jobs = 0;
  po::options_description opts(
      "usage: zerosim compare A.toml B.toml [options]\n\n"
      "Evaluates two scenarios (or, given two topology files, one scenario on two clusters) and prints, per\n"
      "variant, each metric for A and B with the difference, the inputs that differ, and how the iteration\n"
      "time's parts moved (compute by kind, exposed communication by cause) with the bytes per tier.\n\n"
      "options");
  opts.add_options()("help,h", "print this help")(
      "scenario", po::value<std::string>(&base)->value_name("FILE"),
      "with two topology files: the scenario to run on both (default: the embedded default scenario)")(
      "set-a", po::value<std::vector<std::string>>(&set_a)->value_name("KEY=VALUE"),
      "a what-if on A, any sweep axis (docs/sweeps.md)")(
      "set-b", po::value<std::vector<std::string>>(&set_b)->value_name("KEY=VALUE"),
      "a what-if on B, e.g. `zerosim compare s.toml s.toml --set-b nic.bandwidth=200Gbps`");
  AddEngineOptions(&opts, &engine_args, /*allow_both=*/false);
  AddVariantJobsOption(&opts, &jobs);
  AddFormatOption(&opts, &format_name);
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>(&files));
  po::positional_options_description pos;
  pos.add("files", 2);
  if (std::optional<int> stop = ParseCommandLine("compare", argc, argv, opts, &hidden, &pos)) return *stop;
  if (files.size() != 2) {
    fmt::print(stderr, "zerosim compare: give two files, A and B (scenarios or topologies)\n");
    return kExitUsage;
  }
  const StatusOr<study::OutputFormat> format = study::ParseOutputFormat(format_name);
  if (!format.ok()) {
    fmt::print(stderr, "zerosim compare: {}\n", format.status().message());
    return kExitUsage;
  }
  study::Engine engine = study::Engine::kAnalytic;
  sim::SimOptions sim_options;
  Status st = ResolveEngine(engine_args, /*allow_both=*/false, &engine, &sim_options);
  if (st.ok()) st = ResolveVariantJobs(jobs, &sim_options);
  if (!st.ok()) {
    fmt::print(stderr, "zerosim compare: {}\n", st.message());
    return kExitUsage;
  }
  // Two scenarios, or two clusters (topology files) for one scenario: a scenario against a cluster compares
  // nothing in particular, and --scenario with two scenarios would be ignored.
  bool topology[2];
  for (int side = 0; side < 2; ++side) {
    const io::DiskFileSource fs;
    topology[side] = !io::LoadScenario(fs, files[side], {.check_configuration = false}).ok() &&
                     io::LoadTopology(fs, files[side]).ok();
  }
  if (topology[0] != topology[1]) {
    fmt::print(
        stderr,
        "zerosim compare: error: {} is a scenario and {} a topology: compare two scenarios, or one scenario "
        "(--scenario FILE) on two topologies\n",
        files[topology[0] ? 1 : 0], files[topology[0] ? 0 : 1]);
    return kExitUsage;
  }
  if (!topology[0] && !base.empty()) {
    fmt::print(
        stderr,
        "zerosim compare: error: --scenario {}: it runs on two topology files; {} and {} are scenarios\n",
        base, files[0], files[1]);
    return kExitUsage;
  }
  std::vector<model::Report> reports;
  std::vector<model::Calibration> calibrations;
  for (int side = 0; side < 2; ++side) {
    StatusOr<io::Scenario> s = study::LoadComparedScenario(files[side], base, side == 0 ? set_a : set_b);
    if (!s.ok()) {
      fmt::print(stderr, "zerosim compare: error: {}\n", s.status().message());
      return kExitUsage;
    }
    StatusOr<model::Report> r = study::EvaluateScenario(*s, engine, sim_options);
    if (!r.ok()) {
      fmt::print(stderr, "zerosim compare: error: {}\n", r.status().message());
      return kExitFailed;
    }
    reports.push_back(std::move(r).value());
    calibrations.push_back(s->calibration);
  }
  const study::Comparison c = study::CompareReports(files[0], std::move(reports[0]), calibrations[0], files[1],
                                                    std::move(reports[1]), calibrations[1]);
  return Print("compare", study::RenderComparison(c, *format)) ? kExitOk : kExitFailed;
}

}  // namespace zerosim::cli
