// The replay's op timelines as a Chrome trace-event JSON file (Perfetto and chrome://tracing open it):
// one process per (variant, rank), one thread per queue (the compute stream, the all-gather and reduce
// streams, each NCCL communicator, the host thread), one complete event per op that takes time, on
// simulated time in microseconds. What overlaps and what is exposed is then visible at a glance.
#pragma once

#include <string>
#include <vector>

#include "model/schedule.h"
#include "sim/sim_result.h"

namespace zerosim::sim {

struct TracedRun {
  std::string name;  // e.g. the variant's name
  const model::Schedule* schedule = nullptr;
  const SimResult* result = nullptr;  // its `trace` holds the recorded ranks
};

std::string ChromeTraceJson(const std::vector<TracedRun>& runs);

}  // namespace zerosim::sim
