// The analytic evaluator: times a Schedule without simulating the network. Each collective takes its
// uncontended time (collective_time.h); every other op its local cost (op_cost.h). Ops run in issue
// order on their queues (CUDA streams, NCCL streams, the host thread), each starting when its queue is
// free and its dependencies have finished, so one pass over the schedule gives every start and finish.
//
// The GPU is shared: a kernel or memory op on a side stream delays the compute stream's next op by its own
// duration, counted from when it starts (work-conserving; the DES shares the GPU host instead), and a
// collective delays it by compute_interference (cluster_spec.h) times its duration. One pass in issue
// order cannot see that a compute op issued later may run before a side op that starts later: it is
// pushed behind it. The SimGrid replay shares the GPU exactly; on the paper cluster the two agree within
// 1e-6 with the fitted interference (1) and within 1% with none (18B, ZeRO-3, 1 x 100 Gbps: -0.93%).
// What the analytic model cannot see: two collectives sharing a link at the same time (each is timed as
// if alone). The SimGrid replay captures that contention.
#pragma once

#include <array>
#include <vector>

#include "model/calibration.h"
#include "model/cluster_spec.h"
#include "model/schedule.h"

namespace zerosim::model {

struct Timing {
  double iteration_s = 0;
  double compute_s = 0;         // GEMM/attention time on the compute stream
  double optimizer_s = 0;       // the optimizer step on the compute stream
  double gpu_side_s = 0;        // kernels and memory passes on side streams (they share the GPU)
  double interference_s = 0;    // compute-stream time lost to concurrent collectives
  double compute_busy_s = 0;    // compute stream busy, side-stream GPU work and interference included
  // iteration_s minus the GPU's useful work (compute, optimizer, side-stream kernels): the time
  // communication costs the iteration, waiting and interference alike (and host stalls, if any).
  double exposed_comm_s = 0;
  std::array<double, kNumQueues> queue_busy_s{};
  std::vector<double> start_s;   // per op (when asked for)
  std::vector<double> finish_s;  // per op (when asked for)
};

// `timeline` = false leaves start_s and finish_s empty (faster; sweeps need only the totals).
Timing EvaluateAnalytic(const Schedule& s, const ClusterSpec& c, const Calibration& cal, bool timeline = true);

}  // namespace zerosim::model
