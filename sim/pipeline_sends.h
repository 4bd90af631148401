// The point-to-point sends between pipeline stages on the SimGrid platform of the whole cluster: the time
// of one steady-state exchange, which the pipeline composition (model/report/pipeline_evaluate.h) uses as its
// send time when the sim engine evaluates a pipelined layout.
//
// In 1F1B's steady state a stage sends its activation to the next stage while receiving the next stage's
// gradient (Megatron-LM's send_forward_recv_backward, batched isend/irecv; p2p_communication.py), so the
// step replayed is every pair of neighbouring stages (0, 1), (2, 3), ... exchanging b s h / t bytes per rank
// both ways at once: each GPU sends one payload and receives one, through its rail's NIC (stages hold whole
// nodes) and, on a fat tree, the leaf and pod uplinks its peer's placement needs. NCCL's latency of one
// network step and its protocol's bandwidth factor come from the same cost model as the analytic send
// (model::P2pTraffic, EstimateCollective): the latency a delay before the flows, the factor wire overhead.
#pragma once

#include "model/spec/cluster_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/status.h"
#include "sim/sim_options.h"

namespace zerosim::sim {

// Seconds of one exchange of `bytes` per rank, simulated in this process (SimGrid's engine runs once per
// process). Every rank on the platform (no symmetry reduction: the stages are not alike for the sends).
// Preconditions: l.pipeline > 1 and stages hold whole nodes (model/spec/validate.h); no perturbations.
StatusOr<double> SimulateSendStep(const model::ClusterSpec& c, const model::ParallelLayout& l, double bytes,
                                  const SimOptions& o);

// The same in a child process (isolation.h).
StatusOr<double> SimulateSendStepIsolated(const model::ClusterSpec& c, const model::ParallelLayout& l,
                                          double bytes, const SimOptions& o);

}  // namespace zerosim::sim
