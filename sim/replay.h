// The discrete-event replay of a Schedule on a SimGrid model of the cluster.
//
// Each replayed rank runs one actor per queue it uses (the host thread, the compute stream, the
// all-gather and reduce streams, one per NCCL communicator), on its GPU's host. An actor takes its queue's
// ops in issue order; each op starts when the previous one on the queue has finished and every op in
// `deps` has finished (schedule.h), so queues are FIFO and overlap between them is simulated:
//  - compute, kernel and memory ops execute on the GPU host for their op_cost.h duration; ops of several
//    streams running at once share the GPU (max-min), so side-stream quantization and copies slow the
//    compute stream as the hardware does;
//  - host ops wait their host time; waits take no time;
//  - a collective starts when every member rank has reached it; then NCCL's protocol choice
//    (model::EstimateCollective) gives its latency, applied as a delay, and its bandwidth factor, applied
//    as wire overhead (payload / factor bytes on the wire); then its flows (collective_plan.h) run
//    through SimGrid, contending with every other flow on the links they share; it finishes for all its
//    members when the last flow arrives (a pipelined ring finishes everywhere at the pace of its slowest
//    edge).
// Bytes per tier are summed from the payloads SimGrid carried over the links of its routes.
#pragma once

#include "model/schedule/schedule.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/status.h"
#include "sim/sim_options.h"
#include "sim/sim_result.h"

namespace zerosim::sim {

// Replays `s` on `c` in this process. SimGrid's engine is a process-wide singleton, so this runs at most
// once per process; SimulateIsolated (isolation.h) runs it in a child process.
StatusOr<SimResult> SimulateSchedule(const model::Schedule& s, const model::ClusterSpec& c,
                                     const model::Calibration& cal, const SimOptions& o);

}  // namespace zerosim::sim
