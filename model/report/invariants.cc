#include "model/report/invariants.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "model/cost/collective_time.h"
#include "model/cost/placed_collectives.h"
#include "model/units.h"

namespace zerosim::model {
namespace {

class Violations {
 public:
  void Add(std::string what) { text_ += (text_.empty() ? "" : "; ") + what; }
  // `value` finite and >= 0.
  void NonNegative(const char* name, double value) {
    if (!std::isfinite(value) || value < 0)
      Add(fmt::format("{} = {} (must be finite and >= 0)", name, value));
  }
  // a <= b, with the relative slack.
  void AtMost(const std::string& what, double a, double b) {
    if (!(a <= b * (1 + kInvariantTolerance) + 1e-300)) Add(fmt::format("{}: {:.9g} > {:.9g}", what, a, b));
  }
  void Equal(const std::string& what, double a, double b) {
    if (!(std::fabs(a - b) <= kInvariantTolerance * std::max(std::fabs(a), std::fabs(b)) + 1e-300)) {
      Add(fmt::format("{}: schedule {:.9g} vs engine {:.9g}", what, a, b));
    }
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

const char* PurposeKey(size_t p) { return PurposeName(static_cast<Purpose>(p)); }

}  // namespace

double LinkTimeLowerBound(const ClusterSpec& c, const Schedule& s) {
  return LinkTimeLowerBound(c, s, PlaceCollectives(s, c));
}

double LinkTimeLowerBound(const ClusterSpec& c, const Schedule& s,
                          const std::vector<PlacedCollective>& placed) {
  // Every queue's collectives share the same links (link_occupancy.h): per tier, the busiest link's bytes of
  // all of them, over the link's line rate (no efficiency: NCCL reaches less, never more).
  double nic_s = 0, port_s = 0, leaf_s = 0;
  const double nic_Bps = c.node_nic_Bps();
  const double leaf_Bps = LeafUplinkBps(c);
  // A tuned all-reduce counts the bytes of the algorithm NCCL's tuner picked (PlacedCollective::wire).
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective) continue;
    const Traffic& wire = placed[static_cast<size_t>(op.coll.collective_class)].wire;
    if (nic_Bps > 0) nic_s += wire.max_node_nic_bytes / nic_Bps;
    if (c.intra.bandwidth_Bps > 0) port_s += wire.max_gpu_port_bytes / c.intra.bandwidth_Bps;
    if (leaf_Bps > 0) leaf_s += wire.max_leaf_uplink_bytes / leaf_Bps;
  }
  return std::max({nic_s, port_s, leaf_s});
}

std::string CheckInvariants(const VariantReport& r, const ClusterSpec& c, const Schedule& s, const Timing& t,
                            const TierVolumes& engine_volumes) {
  Violations v;
  // 0. The schedule was built for this cluster's ranks (schedule.h: it is placed on the cluster it runs on).
  const std::string shape = ScheduleShapeMismatch(s, c);
  if (!shape.empty()) {
    v.Add(shape);
    return v.text();
  }
  const std::vector<PlacedCollective> placed = PlaceCollectives(s, c);
  // 1. Finite, non-negative; an iteration takes time.
  v.NonNegative("iteration_time_s", r.iteration_time_s);
  if (!(r.iteration_time_s > 0))
    v.Add(fmt::format("iteration_time_s = {} (an iteration takes time)", r.iteration_time_s));
  v.NonNegative("tflops_per_gpu", r.tflops_per_gpu);
  v.NonNegative("tokens_per_s", r.tokens_per_s);
  v.NonNegative("exposed_comm_s", r.exposed_comm_s);
  v.NonNegative("compute_s", r.compute_s);
  v.NonNegative("optimizer_s", r.optimizer_s);
  v.NonNegative("gpu_side_s", r.gpu_side_s);
  v.NonNegative("comm_interference_s", r.comm_interference_s);
  for (const auto& [tier, b] :
       {std::pair{"cross_node", &r.bytes.cross_node}, std::pair{"intra_node", &r.bytes.intra_node}}) {
    v.NonNegative(fmt::format("{}.forward_allgather_bytes", tier).c_str(), b->forward_allgather);
    v.NonNegative(fmt::format("{}.backward_allgather_bytes", tier).c_str(), b->backward_allgather);
    v.NonNegative(fmt::format("{}.gradient_reduce_bytes", tier).c_str(), b->gradient_reduce);
  }
  const MemoryBreakdown& m = r.memory;
  const double parts[] = {
      m.parameters_bytes,   m.gradients_bytes,        m.optimizer_states_bytes,    m.hpz_secondary_bytes,
      m.buffers_bytes,      m.activations_bytes,      m.gathered_parameters_bytes, m.cuda_context_bytes,
      m.nccl_buffers_bytes, m.cublas_workspace_bytes, m.allocator_rounding_bytes,  m.fragmentation_bytes,
      m.reserve_bytes};
  const char* names[] = {"memory.parameters_bytes",
                         "memory.gradients_bytes",
                         "memory.optimizer_states_bytes",
                         "memory.hpz_secondary_bytes",
                         "memory.buffers_bytes",
                         "memory.activations_bytes",
                         "memory.gathered_parameters_bytes",
                         "memory.cuda_context_bytes",
                         "memory.nccl_buffers_bytes",
                         "memory.cublas_workspace_bytes",
                         "memory.allocator_rounding_bytes",
                         "memory.fragmentation_bytes",
                         "memory.reserve_bytes"};
  double sum = 0;
  for (size_t i = 0; i < std::size(parts); ++i) {
    v.NonNegative(names[i], parts[i]);
    sum += parts[i];
  }
  v.NonNegative("memory.total_bytes", m.total_bytes);
  // 5. Memory parts sum to the total.
  v.Equal("memory parts vs memory.total_bytes", sum, m.total_bytes);

  // 2. At most the GPU's peak.
  // With FP8 GEMMs (precision.h) the bound is the FP8 peak: the linear layers' FLOPs run there.
  const double peak =
      r.zero.precision.fp8_gemms ? std::max(c.gpu.peak_flops, c.gpu.fp8_peak_flops) : c.gpu.peak_flops;
  v.AtMost(fmt::format("TFLOPs per GPU above the {}'s peak", c.gpu.name), r.tflops_per_gpu * kTera, peak);
  // 3. The iteration holds the compute stream's work and the link time.
  v.AtMost("compute + optimizer time exceeds the iteration time", t.compute_s + t.optimizer_s, t.iteration_s);
  v.AtMost("the links' busy time exceeds the iteration time", LinkTimeLowerBound(c, s, placed),
           t.iteration_s);
  // 4. Bytes conserved per tier and purpose (the tuned all-reduces at their algorithm's bytes).
  const TierVolumes planned = WireVolumes(s, placed);
  for (size_t p = 1; p < planned.cross_node.size(); ++p) {
    v.Equal(fmt::format("cross-node {} bytes", PurposeKey(p)), planned.cross_node[p],
            engine_volumes.cross_node[p]);
    v.Equal(fmt::format("intra-node {} bytes", PurposeKey(p)), planned.intra_node[p],
            engine_volumes.intra_node[p]);
  }
  return v.text();
}

Status InvariantStatus(const std::string& scenario, const VariantReport& r) {
  if (r.invariant_violation.empty()) return Status::Ok();
  return Status::Error(
      fmt::format("scenario '{}', variant '{}' ({} engine): invariant violated: {}. This is a bug in "
                  "ZeroSim: please report it with the input files",
                  scenario, r.name, r.engine, r.invariant_violation));
}

}  // namespace zerosim::model
