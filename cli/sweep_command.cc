// `zerosim sweep <sweep.toml> [-j N] [--shard k/n] [--out results.jsonl] [--format jsonl|csv]`: wiring for
// study/sweep_runner.h.
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "study/sweep_grid.h"
#include "study/sweep_runner.h"
#include "study/sweep_summary.h"
#include "model/version.h"

namespace zerosim::cli {

namespace po = boost::program_options;

bool ParseShard(const std::string& text, int* k, int* n) {
  // "k/n", both whole numbers that fit an int, 1 <= k <= n.
  const char* end = text.data() + text.size();
  const auto [slash, ec1] = std::from_chars(text.data(), end, *k);
  if (ec1 != std::errc() || slash == end || *slash != '/') return false;
  const auto [rest, ec2] = std::from_chars(slash + 1, end, *n);
  return ec2 == std::errc() && rest == end && *n >= 1 && *k >= 1 && *k <= *n;
}

int SweepCommand(int argc, char** argv) {
  std::string file, shard = "1/1", format = "jsonl";
  EngineArgs engine_args;
  study::SweepOptions o;
  bool quiet = false;
  po::options_description opts(
      "usage: zerosim sweep <sweep.toml> [options]\n\n"
      "Evaluates every point of a sweep (a base scenario and axes: NIC bandwidth and count, node count, GPU\n"
      "type, fabric oversubscription, model, tokens per GPU, ZeRO++ switches; format: docs/sweeps.md) and\n"
      "writes one JSON line (or CSV record) per point and variant, in point order: throughput, memory,\n"
      "volumes, and with prices, cost per million tokens and the time and cost of a training run. An\n"
      "existing output is resumed: points already in it are skipped. The same sweep gives the same bytes.\n"
      "With -o FILE, a summary ends the run on stderr: the best variant of each cluster,\n"
      "infeasible rows by reason.\n\n"
      "options");
  opts.add_options()("help,h", "print this help")
      ("jobs,j", po::value<int>(&o.jobs)->value_name("N"), "worker processes (default 1)")
      ("shard", po::value<std::string>(&shard)->value_name("k/n"),
       "run the k-th of n contiguous slices (e.g. one Slurm array task); outputs concatenate in k order")
      ("out,o", po::value<std::string>(&o.out)->value_name("FILE"), "the output (default: stdout, no resume)")
      ("format", po::value<std::string>(&format)->value_name("FORMAT"),
       "jsonl (default: one JSON line per point and variant) or csv (the same rows flattened, with a header "
       "record; the columns of `run --format csv` among them)")
      ("quiet,q", po::bool_switch(&quiet), "no progress display and no summary table");
  AddEngineOptions(&opts, &engine_args, /*allow_both=*/false);
  po::options_description hidden;
  hidden.add_options()("sweep", po::value<std::string>(&file));
  po::positional_options_description pos;
  pos.add("sweep", 1);
  if (std::optional<int> stop = ParseCommandLine("sweep", argc, argv, opts, &hidden, &pos)) return *stop;
  if (file.empty()) {
    fmt::print(stderr, "zerosim sweep: name a sweep file (see --help)\n");
    return kExitUsage;
  }
  if (!ParseShard(shard, &o.shard, &o.shards)) {
    fmt::print(stderr, "zerosim sweep: --shard wants k/n with 1 <= k <= n, got '{}'\n", shard);
    return kExitUsage;
  }
  if (format != "jsonl" && format != "csv") {
    fmt::print(stderr, "zerosim sweep: --format: '{}' is not one of jsonl, csv\n", format);
    return kExitUsage;
  }
  o.format = format == "csv" ? study::SweepFormat::kCsv : study::SweepFormat::kJsonl;
  if (o.jobs < 1 || o.jobs > 1024) {
    fmt::print(stderr, "zerosim sweep: --jobs wants 1 to 1024 worker processes, got {}\n", o.jobs);
    return kExitUsage;
  }
  study::Engine engine = study::Engine::kAnalytic;
  if (Status st = ResolveEngine(engine_args, /*allow_both=*/false, &engine, &o.sim_options); !st.ok()) {
    fmt::print(stderr, "zerosim sweep: {}\n", st.message());
    return kExitUsage;
  }
  o.sim = engine == study::Engine::kSim;
  o.progress = !quiet;
  StatusOr<io::SweepSpec> spec = study::LoadSweep(io::DiskFileSource(), file);
  if (!spec.ok()) {
    fmt::print(stderr, "zerosim sweep: error: {}\n", spec.status().message());
    return kExitUsage;
  }
  StatusOr<study::SweepStats> stats = study::RunSweep(*spec, o);
  if (!stats.ok()) {
    fmt::print(stderr, "zerosim sweep: error: {}\n", stats.status().message());
    return kExitFailed;
  }
  const double rate = stats->wall_s > 0 ? static_cast<double>(stats->points_run) / stats->wall_s : 0;
  const std::string summary = fmt::format(
      "sweep '{}' ({} engine): shard {}/{}: {} points ({} already done), {} evaluated in {:.3f} s with {} job(s): "
      "{:.0f} points/s, {} schedules built in process\n",
      spec->name, engine_args.engine, o.shard, o.shards, stats->points_total, stats->points_skipped, stats->points_run,
      stats->wall_s, o.jobs, rate, stats->schedules_built);
  fmt::print(stderr, "{}", summary);
  if (!o.out.empty() && o.out != "-") {
    // Timings stay out of the rows: they go to a log beside the output.
    std::ofstream log(o.out + ".log", std::ios::app);
    log << "zerosim " << Version() << ": " << summary;
    // The summary of the whole output (resumed rows included), read back from a regular file.
    std::error_code ec;
    if (!quiet && std::filesystem::is_regular_file(o.out, ec) &&
        std::filesystem::file_size(o.out, ec) < (uint64_t{1} << 28)) {
      std::ifstream in(o.out, std::ios::binary);
      const std::string rows((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      StatusOr<std::string> table = o.format == study::SweepFormat::kCsv ? study::SummarizeSweepCsv(rows)
                                                                         : study::SummarizeSweepRows(rows);
      if (!table.ok()) {
        fmt::print(stderr, "zerosim sweep: error: {}: {}\n", o.out, table.status().message());
        return kExitFailed;
      }
      fmt::print(stderr, "{}", *table);
    }
  }
  return kExitOk;
}

}  // namespace zerosim::cli
