// How a sweep runs: the engine, the workers, the shard and the output (study/sweep_runner.h).
#pragma once

#include <string>

#include "sim/sim_options.h"

namespace zerosim::study {

// The rows' format (study/sweep_rows.h): JSON lines, or CSV with a header record.
enum class SweepFormat { kJsonl, kCsv };

struct SweepOptions {
  bool sim = false;  // time with the SimGrid replay (one child process per variant) instead of analytically
  sim::SimOptions sim_options;
  int jobs = 1;   // worker processes
  int shard = 1;  // 1-based: this run does shard `shard` of `shards`
  int shards = 1;
  std::string out;  // the output ("" or "-": stdout, no resume)
  SweepFormat format = SweepFormat::kJsonl;
  std::string log;  // timings log ("" : out + ".log", none for stdout)
  bool progress = true;
};

}  // namespace zerosim::study
