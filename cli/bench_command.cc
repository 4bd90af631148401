// `zerosim bench`: wall time and peak memory of the SimGrid replay of one training iteration, per case,
// each case in its own process (one SimGrid engine per process). Prints figures; not a timed test.
#include <chrono>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/scenario_runner.h"
#include "model/io/embedded.h"
#include "model/schedule_builder.h"
#include "model/units.h"
#include "sim/isolation.h"
#include "sim/replay.h"

namespace zerosim::cli {

namespace po = boost::program_options;

namespace {

struct BenchCase {
  int nodes;
  const char* model_file;
};

// The cases: the paper's cluster type (16 V100 per node) at 384, 1,024 and 4,096 GPUs with the
// paper's 18B, 49B and 138B models.
constexpr BenchCase kCases[] = {
    {24, "scenarios/models/gpt_18b.toml"},
    {64, "scenarios/models/gpt_49b.toml"},
    {256, "scenarios/models/gpt_138b.toml"},
};

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int BenchCommand(int argc, char** argv) {
  std::string reduction = "symmetric";
  int max_gpus = 4096;
  po::options_description opts(
      "usage: zerosim bench [options]\n\n"
      "Times the SimGrid replay of one training iteration of ZeRO-3 and ZeRO++ (the default scenario's\n"
      "settings) on the paper's cluster type at 384 GPUs (18B), 1,024 GPUs (49B) and 4,096 GPUs (138B), one\n"
      "case per process, and prints wall time (schedule + platform + simulation) and peak RSS per case.\n\n"
      "options");
  opts.add_options()("help,h", "print this help")
      ("reduction", po::value<std::string>(&reduction)->value_name("MODE"),
       "symmetric (default) or full (every rank on the whole cluster: slow past a few hundred GPUs)")
      ("max-gpus", po::value<int>(&max_gpus)->value_name("N"), "skip cases with more than N GPUs");
  if (std::optional<int> stop = ParseCommandLine("bench", argc, argv, opts)) return *stop;
  StatusOr<sim::Reduction> parsed = ParseReduction(reduction);
  if (!parsed.ok()) {
    fmt::print(stderr, "zerosim bench: {}\n", parsed.status().message());
    return kExitUsage;
  }
  sim::SimOptions o;
  o.reduction = *parsed;

  StatusOr<io::Scenario> base = LoadScenarioOrDefault("");
  if (!base.ok()) {
    fmt::print(stderr, "zerosim bench: error: {}\n", base.status().message());
    return kExitFailed;
  }
  const io::MemoryFileSource embedded(io::EmbeddedFiles());
  fmt::print("SimGrid replay of one iteration, {} reduction, {} collectives; cluster: {} with the node count "
             "scaled\n\n",
             sim::ReductionName(o.reduction), sim::FidelityName(o.fidelity), base->cluster.name);
  fmt::print("{:>6} {:>6} {:<8} {:>7} {:>6} {:>9} {:>10} {:>10} {:>10} {:>10}\n", "GPUs", "model", "variant", "ops",
             "ranks", "flows", "iter (s)", "wall (s)", "run (s)", "RSS (MiB)");
  int status = kExitOk;
  for (const BenchCase& bc : kCases) {
    model::ClusterSpec c = base->cluster;
    c.nodes = bc.nodes;
    if (c.total_gpus() > max_gpus) continue;
    StatusOr<io::ModelFile> mf = io::LoadModel(embedded, bc.model_file);
    if (!mf.ok()) {
      fmt::print(stderr, "zerosim bench: error: {}\n", mf.status().message());
      return kExitFailed;
    }
    for (const io::Variant& v : base->variants) {
      model::ModelSpec m = mf->model;
      m.seq_len = v.model.seq_len;
      const std::string model_name = fmt::format("{:.0f}B", model::TotalParams(m) / 1e9);
      sim::ChildUsage usage;
      const double t0 = Now();
      StatusOr<std::string> bytes = sim::RunInChild(
          [&]() -> StatusOr<std::string> {
            const model::Schedule s = model::BuildSchedule(m, v.zero, c);
            StatusOr<sim::SimResult> r = sim::SimulateSchedule(s, c, base->calibration, o);
            if (!r.ok()) return r.status();
            return fmt::format("{} ", s.ops.size()) + sim::SerializeSimResult(*r);
          },
          &usage);
      const double wall = Now() - t0;
      if (!bytes.ok()) {
        fmt::print("{:>6} {:>6} {:<8} error: {}\n", c.total_gpus(), model_name, v.name, bytes.status().message());
        status = kExitFailed;
        continue;
      }
      const size_t space = bytes->find(' ');
      const int ops = std::stoi(bytes->substr(0, space));
      StatusOr<sim::SimResult> r = sim::DeserializeSimResult(bytes->substr(space + 1));
      if (!r.ok()) return kExitFailed;
      fmt::print("{:>6} {:>6} {:<8} {:>7} {:>6} {:>9} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.1f}\n", c.total_gpus(), model_name,
                 v.name, ops, r->stats.simulated_ranks,
                 r->stats.transfers, r->timing.iteration_s, wall, r->stats.run_wall_s,
                 usage.max_rss_bytes / kMiB);
    }
  }
  fmt::print("\nwall: the child process's whole life (schedule, platform, simulation); run: SimGrid's run() alone; "
             "RSS: the child's peak resident memory.\n");
  return status;
}

}  // namespace zerosim::cli
