// zerosim: the command line. A table of subcommands (after ninja's kTools); main() only dispatches.
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "model/version.h"

namespace {

using zerosim::cli::Command;

const Command kCommands[] = {
    {"run", "evaluate a scenario: ZeRO-3 vs ZeRO++ throughput, exposed communication, volumes, memory",
     zerosim::cli::RunCommand},
    {"validate", "compare scenarios with published numbers ([[expect]] tables); the regression gate",
     zerosim::cli::ValidateCommand},
    {"sweep", "evaluate a sweep of cluster and ZeRO configurations (JSONL, parallel, sharded, resumable)",
     zerosim::cli::SweepCommand},
    {"plan", "rank cluster configurations with their best ZeRO setting; the cost/throughput Pareto front",
     zerosim::cli::PlanCommand},
    {"compare", "two scenarios or two clusters side by side: each metric, the difference and its causes",
     zerosim::cli::CompareCommand},
    {"fit", "fit at most three calibration parameters to the published expectations (Eigen least squares)",
     zerosim::cli::FitCommand},
    {"calibrate", "measure the quantization kernels and compute on this GPU; write a calibration file",
     zerosim::cli::CalibrateCommand},
    {"bench", "time and measure the SimGrid replay of one iteration at 384, 1,024 and 4,096 GPUs",
     zerosim::cli::BenchCommand},
};

void Usage(FILE* out) {
  fmt::print(out,
             "ZeroSim {}: performance model and simulator of ZeRO-3 vs ZeRO++ training communication.\n\n"
             "usage: zerosim <command> [options]\n\ncommands:\n",
             zerosim::Version());
  for (const Command& c : kCommands) fmt::print(out, "  {:<10} {}\n", c.name, c.summary);
  fmt::print(out,
             "\n`zerosim <command> --help` describes a command's options.\n"
             "`zerosim run` with no scenario runs the embedded default: the ZeRO++ paper's 18B model on 384 V100\n"
             "(24 nodes x 16 GPUs, NVSwitch, 1 x 100 Gbps InfiniBand per node), ZeRO-3 against ZeRO++.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    Usage(stderr);
    return zerosim::cli::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    Usage(stdout);
    return zerosim::cli::kExitOk;
  }
  if (name == "--version") {
    fmt::print("zerosim {}\n", zerosim::Version());
    return zerosim::cli::kExitOk;
  }
  for (const Command& c : kCommands) {
    if (name == c.name) return c.run(argc - 1, argv + 1);
  }
  fmt::print(stderr, "zerosim: unknown command '{}'\n\n", name);
  Usage(stderr);
  return zerosim::cli::kExitUsage;
}
