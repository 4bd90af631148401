// `zerosim bench`: wall time, CPU time and peak memory of the SimGrid replay of one training iteration, per
// case, each case in its own process (one SimGrid engine per process). Prints figures; not a timed test.
#include <chrono>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "cli/options.h"
#include "model/io/embedded.h"
#include "model/builders/schedule_builder.h"
#include "model/units.h"
#include "sim/isolation.h"
#include "sim/replay.h"
#include "study/scenario_runner.h"

namespace zerosim::cli {

namespace po = boost::program_options;

namespace {

struct BenchCase {
  const char* name;
  int nodes;
  const char* model_file;
  int slow_node = -1;          // a node whose GPUs run 10% slow (-1: none)
  int nodes_per_leaf = 0;      // > 0: a fat tree (2:1 leaf uplinks)
  int leaves_per_pod = 0;      // > 0: pods of that many leaves (2:1 pod uplinks)
  bool own_reduction = false;  // replayed with --reduction (else with the case's own)
  sim::Reduction reduction = sim::Reduction::kSymmetric;
};

// The cases (#13), on the paper's cluster type (16 V100 and one 100 Gbps NIC per node) with the
// node count scaled: 384, 1,024 and 4,096 GPUs with the 18B, 49B and 138B models under --reduction; the
// 1,024-GPU case replayed by classes on the whole cluster (equal to the full replay); 4,096 GPUs with one
// straggler node; two- and three-level fat trees of 1,024 nodes with 256 nodes per leaf and per pod.
const BenchCase kCases[] = {
    {"uniform", 24, "scenarios/models/gpt_18b.toml", -1, 0, 0, true},
    {"uniform", 64, "scenarios/models/gpt_49b.toml", -1, 0, 0, true},
    {"uniform", 256, "scenarios/models/gpt_138b.toml", -1, 0, 0, true},
    {"classes", 64, "scenarios/models/gpt_49b.toml", -1, 0, 0, false, sim::Reduction::kClasses},
    {"1 slow", 256, "scenarios/models/gpt_138b.toml", 17},
    {"leaf 256", 1024, "scenarios/models/gpt_18b.toml", -1, 256, 0},
    {"pod 256", 1024, "scenarios/models/gpt_18b.toml", -1, 64, 4},
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int BenchCommand(int argc, char** argv) {
  std::string reduction = "symmetric";
  int max_gpus = 20000;
  bool fat_trees = true;
  std::string only_case;
  std::string only_variant;
  po::options_description opts(
      "usage: zerosim bench [options]\n\n"
      "Times the SimGrid replay of one training iteration of ZeRO-3 and ZeRO++ (the default scenario's\n"
      "settings) on the paper's cluster type with the node count scaled: 384 GPUs (18B), 1,024 GPUs (49B)\n"
      "and 4,096 GPUs (138B) with --reduction; 1,024 GPUs replayed by rank classes on the whole cluster;\n"
      "4,096 GPUs with one node 10% slow; two- and three-level fat trees of 1,024 nodes with 256 nodes per\n"
      "leaf and per pod (2:1 uplinks). One case per process; prints wall time, CPU time and peak RSS.\n\n"
      "options");
  opts.add_options()("help,h", "print this help")(
      "reduction", po::value<std::string>(&reduction)->value_name("MODE"),
      "for the uniform cases: symmetric (default), classes, or full (every rank on the whole cluster: the "
      "reference, slow past a few hundred GPUs)")("max-gpus", po::value<int>(&max_gpus)->value_name("N"),
                                                  "skip cases with more than N GPUs")(
      "no-fat-trees", po::bool_switch()->notifier([&](bool off) { fat_trees = !off; }),
      "skip the fat-tree cases")(
      "case", po::value<std::string>(&only_case)->value_name("NAME"),
      "run only the cases named NAME (the case column: uniform, classes, \"1 slow\", "
      "\"leaf 256\", \"pod 256\")")("variant", po::value<std::string>(&only_variant)->value_name("NAME"),
                                    "run only the variant named NAME (the variant column)");
  if (std::optional<int> stop = ParseCommandLine("bench", argc, argv, opts)) return *stop;
  StatusOr<sim::Reduction> parsed = ParseReduction(reduction);
  if (!parsed.ok()) {
    fmt::print(stderr, "zerosim bench: {}\n", parsed.status().message());
    return kExitUsage;
  }

  StatusOr<io::Scenario> base = study::LoadScenarioOrDefault("");
  if (!base.ok()) {
    fmt::print(stderr, "zerosim bench: error: {}\n", base.status().message());
    return kExitFailed;
  }
  const io::MemoryFileSource embedded(io::EmbeddedFiles());
  const std::string head =
      fmt::format("SimGrid replay of one iteration, {} collectives; cluster: {} with the node count scaled\n\n",
                  sim::FidelityName(sim::Fidelity::kMacro), base->cluster.name) +
      fmt::format("{:>6} {:>6} {:<8} {:<9} {:<10} {:>7} {:>6} {:>9} {:>10} {:>8} {:>8} {:>9}\n", "GPUs", "model",
                  "variant", "case", "reduction", "ops", "ranks", "flows", "iter (s)", "wall (s)", "CPU (s)",
                  "RSS (MiB)");
  if (!Print("bench", head)) return kExitFailed;
  int status = kExitOk;
  for (const BenchCase& bc : kCases) {
    model::ClusterSpec c = base->cluster;
    c.nodes = bc.nodes;
    if (c.total_gpus() > max_gpus || (bc.nodes_per_leaf > 0 && !fat_trees)) continue;
    if (!only_case.empty() && only_case != bc.name) continue;
    if (bc.nodes_per_leaf > 0) {
      c.fabric.kind = model::FabricKind::kFatTree;
      c.fabric.nodes_per_leaf = bc.nodes_per_leaf;
      c.fabric.oversubscription = 2;
      c.fabric.leaves_per_pod = bc.leaves_per_pod;
      c.fabric.pod_oversubscription = 2;
    }
    sim::SimOptions o;
    o.reduction = bc.own_reduction ? *parsed : bc.reduction;
    if (bc.slow_node >= 0) o.perturbations.slow_nodes.push_back({bc.slow_node, 1.1});
    StatusOr<io::ModelFile> mf = io::LoadModel(embedded, bc.model_file);
    if (!mf.ok()) {
      fmt::print(stderr, "zerosim bench: error: {}\n", mf.status().message());
      return kExitFailed;
    }
    for (const io::Variant& v : base->variants) {
      if (!only_variant.empty() && only_variant != v.name) continue;
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
        if (!Print("bench", fmt::format("{:>6} {:>6} {:<8} {:<9} error: {}\n", c.total_gpus(), model_name,
                                        v.name, bc.name, bytes.status().message())))
          return kExitFailed;
        status = kExitFailed;
        continue;
      }
      const size_t space = bytes->find(' ');
      const int ops = std::stoi(bytes->substr(0, space));
      StatusOr<sim::SimResult> r = sim::DeserializeSimResult(bytes->substr(space + 1));
      if (!r.ok()) return kExitFailed;
      // What ran: the shrunk platform (symmetric, one rank class per slowdown), or classes or every rank
      // on the whole cluster.
      const char* reduction_name = r->stats.symmetric                     ? "symmetric"
                                   : o.reduction == sim::Reduction::kFull ? "full"
                                                                          : "classes";
      const std::string line =
          fmt::format("{:>6} {:>6} {:<8} {:<9} {:<10} {:>7} {:>6} {:>9} {:>10.6f} {:>8.2f} {:>8.2f} {:>9.1f}\n",
                      c.total_gpus(), model_name, v.name, bc.name, reduction_name, ops, r->stats.simulated_ranks,
                      r->stats.transfers, r->timing.iteration_s, wall, usage.cpu_s, usage.max_rss_bytes / kMiB);
      if (!Print("bench", line)) return kExitFailed;
    }
  }
  const char* legend =
      "\nwall: the child process's whole life (schedule, platform, simulation), elapsed; CPU: its user + "
      "system "
      "time (wait4's rusage), the figure to compare on a shared machine; RSS: its peak resident memory "
      "(wait4's "
      "ru_maxrss; the child forks nothing further, and the parent's own RSS is the small CLI's); ranks: rank "
      "classes replayed; flows: transfers SimGrid carried.\n";
  if (!Print("bench", legend)) return kExitFailed;
  return status;
}

}  // namespace zerosim::cli
