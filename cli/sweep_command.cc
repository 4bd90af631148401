// `zerosim sweep <sweep.toml> [-j N] [--shard k/n] [--out results.jsonl]`
#include <fstream>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/sweep_runner.h"
#include "model/version.h"

namespace zerosim::cli {

namespace po = boost::program_options;

bool ParseShard(const std::string& text, int* k, int* n) {
  char extra = 0;
  return std::sscanf(text.c_str(), "%d/%d%c", k, n, &extra) == 2 && *n >= 1 && *k >= 1 && *k <= *n;
}

int SweepCommand(int argc, char** argv) {
  std::string file, shard = "1/1", engine = "analytic";
  SweepOptions o;
  bool quiet = false;
  po::options_description opts(
      "usage: zerosim sweep <sweep.toml> [options]\n\n"
      "Evaluates every point of a sweep (a base scenario and axes: NIC bandwidth and count, node count, GPU\n"
      "type, fabric oversubscription, model, tokens per GPU, ZeRO++ switches; format: docs/sweeps.md) and\n"
      "writes one JSON line per point and variant, in point order: throughput, memory, volumes, and with\n"
      "prices, cost per million tokens and the time and cost of a training run. An existing output is\n"
      "resumed: points already in it are skipped. The same sweep gives the same bytes.\n\n"
      "options");
  opts.add_options()("help,h", "print this help")
      ("jobs,j", po::value<int>(&o.jobs)->value_name("N"), "worker processes (default 1)")
      ("shard", po::value<std::string>(&shard)->value_name("k/n"),
       "run the k-th of n contiguous slices (e.g. one Slurm array task); outputs concatenate in k order")
      ("out,o", po::value<std::string>(&o.out)->value_name("FILE"), "JSONL output (default: stdout, no resume)")
      ("engine", po::value<std::string>(&engine)->value_name("NAME"), "analytic (default)")
      ("quiet,q", po::bool_switch(&quiet), "no progress display");
  po::options_description hidden;
  hidden.add_options()("sweep", po::value<std::string>(&file));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("sweep", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "zerosim sweep: {}\n\n", e.what());
    std::cerr << opts << "\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (file.empty()) {
    fmt::print(stderr, "zerosim sweep: name a sweep file (see --help)\n");
    return kExitUsage;
  }
  if (!ParseShard(shard, &o.shard, &o.shards)) {
    fmt::print(stderr, "zerosim sweep: --shard wants k/n with 1 <= k <= n, got '{}'\n", shard);
    return kExitUsage;
  }
  if (engine != "analytic") {
    fmt::print(stderr, "zerosim sweep: unknown engine '{}' (available: analytic)\n", engine);
    return kExitUsage;
  }
  o.progress = !quiet;
  StatusOr<io::SweepSpec> spec = io::LoadSweep(io::DiskFileSource(), file);
  if (!spec.ok()) {
    fmt::print(stderr, "zerosim sweep: error: {}\n", spec.status().message());
    return kExitUsage;
  }
  StatusOr<SweepStats> stats = RunSweep(*spec, o);
  if (!stats.ok()) {
    fmt::print(stderr, "zerosim sweep: error: {}\n", stats.status().message());
    return kExitFailed;
  }
  const double rate = stats->wall_s > 0 ? static_cast<double>(stats->points_run) / stats->wall_s : 0;
  const std::string summary = fmt::format(
      "sweep '{}': shard {}/{}: {} points ({} already done), {} evaluated in {:.3f} s with {} job(s): {:.0f} points/s, "
      "{} schedules built in process\n",
      spec->name, o.shard, o.shards, stats->points_total, stats->points_skipped, stats->points_run, stats->wall_s, o.jobs,
      rate, stats->schedules_built);
  fmt::print(stderr, "{}", summary);
  if (!o.out.empty() && o.out != "-") {
    // Timings stay out of the rows: they go to a log beside the output.
    std::ofstream log(o.out + ".log", std::ios::app);
    log << "zerosim " << Version() << ": " << summary;
  }
  return kExitOk;
}

}  // namespace zerosim::cli
