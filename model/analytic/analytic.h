// The analytic evaluator: times a Schedule without simulating the network. Each collective takes its
// uncontended time (collective_time.h); every other op its local cost (op_cost.h). Ops run in issue
// order on their queues (CUDA streams, NCCL streams, the host thread), each starting when its queue is
// free and its dependencies have finished, so one pass over the schedule gives every start and finish.
//
// Mechanisms of overlap (no fitted knob):
//  - GPU sharing: a kernel or memory op on a side stream takes the GPU from the compute stream for its own
//    duration (work-conserving, as the DES's max-min sharing of the GPU host); a collective holds
//    CollectiveSmShare (its channels / SMs, nccl_channels.h) of the GPU while it runs. Work that starts while
//    the compute stream is busy delays it whole; work that starts while the compute stream is idle delays the
//    next compute op only by the part still running when that op starts.
//  - Hardware queues: with Schedule::hardware_queues == 1 (CUDA_DEVICE_MAX_CONNECTIONS=1) a GPU op cannot
//    start before the GPU op issued before it has started.
//  - Shared links: collectives of different queues that overlap in time share each link tier (NICs, GPU
//    ports, leaf uplinks) as max-min sharing does: k + 1 on a tier get 1/(k + 1) of it each, the earlier
//    ones finishing later by what they gave up (link_occupancy.h), so together they never move more than a
//    link carries (issue 20, item 17; issue 39).
// One pass in start order (each queue's ops in issue order, the queue heads timed earliest start first:
// analytic.cc) is an approximation of the DES where side work and collectives interleave finely;
// its error against the SimGrid replay is measured by tests/sim/iteration_test.cc and
// tests/model/strategy_property_test.cc and tests/property (sim/README.md, "How far apart the engines may
// be"). What one pass cannot do: delay the ops already timed that wait for a collective slowed later.
#pragma once

#include <array>
#include <vector>

#include "model/cost/compute_cost.h"
#include "model/schedule/schedule.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

struct Timing {
  double iteration_s = 0;
  double compute_s = 0;         // the compute stream's own work (module passes), nominal durations
  double optimizer_s = 0;       // the optimizer step on the compute stream
  double gpu_side_s = 0;        // kernels and memory passes on side streams (they share the GPU)
  double interference_s = 0;    // compute-stream time lost to NCCL kernels holding SMs beside it
  double queue_blocking_s = 0;  // compute ops' start delayed only by the single hardware queue
  double compute_busy_s = 0;    // compute stream busy, side-stream GPU work and interference included
  // iteration_s minus the GPU's useful work (compute, optimizer, side-stream kernels): the time
  // communication costs the iteration, waiting and interference alike (and host stalls, if any).
  double exposed_comm_s = 0;
  ComputeTime compute_parts;  // compute_s split into GEMM, attention, memory-bound and kernel gaps
  std::array<double, kNumQueues> queue_busy_s{};
  std::vector<double> start_s;   // per op (when asked for)
  std::vector<double> finish_s;  // per op (when asked for)
};

// `timeline` = false leaves start_s and finish_s empty (faster; sweeps need only the totals).
Timing EvaluateAnalytic(const Schedule& s, const ClusterSpec& c, const Calibration& cal,
                        bool timeline = true);

}  // namespace zerosim::model
