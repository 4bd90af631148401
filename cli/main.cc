// zerosim: the command line. A table of subcommands (after ninja's kTools); main() only dispatches.
#include <cstring>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "model/version.h"

namespace {

using zerosim::cli::Command;

const Command kCommands[] = {
    {"run", "evaluate a scenario's variants (ZeRO-1/2/3, ZeRO++, FSDP, MiCS, TP, PP): throughput, exposed "
            "communication, volumes, memory",
     zerosim::cli::RunCommand},
    {"validate", "compare scenarios with published numbers ([[expect]] tables); the regression gate",
     zerosim::cli::ValidateCommand},
    {"sweep", "evaluate a sweep of cluster and ZeRO configurations (JSONL, parallel, sharded, resumable)",
     zerosim::cli::SweepCommand},
    {"plan", "rank clusters (GPU kind, size, price) with their best setting and layout by cost and days; the "
             "size that meets a deadline",
     zerosim::cli::PlanCommand},
    {"compare", "two scenarios or two clusters side by side: each metric, the difference and its causes",
     zerosim::cli::CompareCommand},
    {"fit", "fit at most six calibration parameters to the published expectations (Eigen least squares)",
     zerosim::cli::FitCommand},
    {"calibrate", "measure the quantization kernels and compute on this GPU; write a calibration file",
     zerosim::cli::CalibrateCommand},
    {"bench", "time and measure the SimGrid replay of one iteration at 384, 1,024 and 4,096 GPUs",
     zerosim::cli::BenchCommand},
};

std::string Usage() {
  std::string out = fmt::format(
      "ZeroSim {}: performance model and simulator of sharded data-parallel LLM training (ZeRO-1/2/3, ZeRO++, FSDP,\n"
      "MiCS, with tensor and pipeline parallelism) on configurable clusters, with cost and time to train.\n\n"
      "usage: zerosim <command> [options]\n\ncommands:\n",
      zerosim::Version());
  for (const Command& c : kCommands) out += fmt::format("  {:<10} {}\n", c.name, c.summary);
  out +=
      "\n`zerosim <command> --help` describes a command's options.\n"
      "`zerosim run` with no scenario runs the embedded default: the ZeRO++ paper's 18B model on 384 V100\n"
      "(24 nodes x 16 GPUs, NVSwitch, 1 x 100 Gbps InfiniBand per node), ZeRO-3 against ZeRO++.\n";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // Studies build and drop schedules of tens of megabytes by the thousand (plan --search-layout: a pipeline's
  // stages at each micro-batch). glibc maps such blocks afresh and unmaps them on free, and the page faults
  // of touching them again cost more CPU than the work (perf: 30% of a 70B layout plan in the kernel).
  // Keeping them in the heap: the 70B layout plan (scenarios/procurement/llama70b_h100_layouts.sweep.toml)
  // from 8.5 to 5.9 s of CPU. Memory stays at the peak the process reached.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  if (argc < 2) {
    fmt::print(stderr, "{}", Usage());
    return zerosim::cli::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    return zerosim::cli::Print("help", Usage()) ? zerosim::cli::kExitOk : zerosim::cli::kExitFailed;
  }
  if (name == "--version") {
    return zerosim::cli::Print("--version", fmt::format("zerosim {}\n", zerosim::Version()))
               ? zerosim::cli::kExitOk
               : zerosim::cli::kExitFailed;
  }
  for (const Command& c : kCommands) {
    if (name == c.name) return c.run(argc - 1, argv + 1);
  }
  fmt::print(stderr, "zerosim: unknown command '{}'\n\n{}", name, Usage());
  return zerosim::cli::kExitUsage;
}
