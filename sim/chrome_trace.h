// The replay's op timelines as a Chrome trace-event JSON file (Perfetto and chrome://tracing open it):
// one process per (variant, rank), one thread per queue (the compute stream, the all-gather and reduce
// streams, each NCCL communicator, the host thread), one complete event per op that takes time, on
// simulated time in microseconds. What overlaps and what is exposed is then visible at a glance.
//
// Endpoints are rounded to whole nanoseconds once and durations are their differences, so slices on one
// thread nest strictly (Perfetto's rule). Dependencies between ops of different queues are flow events
// (arrows); per rank, counter tracks give the GPU's load (ops holding its SMs) and the collectives in flight
// with their payload rate. Parameter gathers are named after the module whose parameters they fetch.
#pragma once

#include <string>
#include <vector>

#include "model/schedule/schedule.h"
#include "sim/sim_result.h"

namespace zerosim::sim {

struct TracedRun {
  std::string name;  // e.g. the variant's name
  const model::Schedule* schedule = nullptr;
  const SimResult* result = nullptr;  // its `trace` holds the recorded ranks
};

std::string ChromeTraceJson(const std::vector<TracedRun>& runs);

}  // namespace zerosim::sim
