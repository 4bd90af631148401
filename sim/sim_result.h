// What one SimGrid replay of a schedule produces, and its byte encoding (results cross a pipe from the
// child process that ran the simulation: SimGrid allows one simulation per process).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/analytic/analytic.h"
#include "model/placement/traffic.h"
#include "model/status.h"

namespace zerosim::sim {

struct SimStats {
  int real_nodes = 0;
  int simulated_nodes = 0;  // nodes built on the platform
  int simulated_ranks = 0;  // ranks whose ops were replayed by actors (one per rank class)
  int actors = 0;
  bool symmetric = false;             // one representative rank (Reduction::kSymmetric)
  int64_t transfers = 0;              // host-to-host comms SimGrid carried (after merging)
  int64_t represented_transfers = 0;  // NVSwitch flows stood for by their class representative's
  int64_t gpu_activities = 0;         // computations on GPU hosts
  double build_wall_s = 0;            // wall time: schedule-to-platform setup
  double run_wall_s = 0;              // wall time: SimGrid's run
  // Link capacity (bytes) SimGrid's NIC egress and NVSwitch-port egress links carried on the simulated
  // platform, as Platform::CarriedBytes measures it (what SimGrid moved of each finished comm over its
  // route, or SimGrid's link-load plugin), and what the schedule's flows planned for them: each flow's wire
  // bytes over its bandwidth factor (link load counts payload over the factor). Equal within 1e-3
  // (carried_bytes.h) unless a second job's traffic shares the links or the user's --cfg settings change
  // what a flow loads.
  double nic_capacity_bytes_measured = 0;
  double nic_capacity_bytes_planned = 0;
  double nvlink_capacity_bytes_measured = 0;
  double nvlink_capacity_bytes_planned = 0;
  int64_t merged_transfers = 0;       // transfers folded into an identical one's comm (transfer_merge.h)
};

// One op of one rank on simulated time.
struct TraceEvent {
  int32_t rank = 0;
  int32_t op = 0;
  double start_s = 0;
  double finish_s = 0;
};

struct SimResult {
  // Times of the representative rank (rank 0). compute_s, optimizer_s and gpu_side_s are the nominal
  // durations of the GPU work (op_cost.h); interference_s the GPU time NCCL's kernels took while
  // collectives ran (NCCL kernels holding SMs, model::CollectiveSmShare); compute_busy_s their sum (the GPU's
  // busy time: sharing the GPU conserves work) and exposed_comm_s the iteration time minus the schedule's own GPU work (compute,
  // optimizer, side streams), as in the analytic Timing; start_s, finish_s and queue_busy_s are simulated.
  model::Timing timing;
  // Payload bytes of the flows handed to SimGrid, summed over the cluster (the platform's share times
  // Layout::scale()), on SimGrid's own routes: through NIC egress links (cross-node) and NVSwitch port
  // egress links (intra-node), per purpose. The measured link load (stats) confirms them: the
  // replay fails when the links carried other than these flows planned.
  model::TierVolumes volumes;
  SimStats stats;
  std::vector<TraceEvent> trace;
};

// The result's bytes for the pipe. The Timing travels by name (model/analytic/timing_fields.h: each
// quantity's name and value), the rest as its plain bytes (the same binary on both sides of the fork).
std::string SerializeSimResult(const SimResult& r);
// The result back. Errors: truncated or trailing bytes, a Timing quantity the list does not name, one given
// twice, or one of the list missing (never dropped or defaulted silently).
StatusOr<SimResult> DeserializeSimResult(const std::string& bytes);

}  // namespace zerosim::sim
