#include "model/analytic.h"

#include <algorithm>

#include "model/collective_time.h"
#include "model/kernel_cost.h"
#include "model/op_cost.h"

namespace zerosim::model {

Timing EvaluateAnalytic(const Schedule& s, const ClusterSpec& c, const Calibration& cal, bool timeline) {
  Timing t;
  const std::vector<CompactOp>& ops = s.compact.size() == s.ops.size() ? s.compact : CompactOps(s.ops);
  const size_t n = ops.size();
  // The rate table: every op's duration is offset + slope * amount (CompactOp::rate); each distinct
  // collective traffic is estimated once.
  std::vector<double> offset(static_cast<size_t>(kCompactRateCollectives) + s.traffic_classes.size(), 0.0);
  std::vector<double> slope(offset.size(), 0.0);
  slope[kCompactRateHost] = 1.0;
  slope[kCompactRateCompute] = 1.0 / MakeLocalCostModel(s, c, cal).effective_flops;
  slope[kCompactRateMemory] = 1.0 / cal.copy_Bps;
  for (int k = 0; k < kNumKernels; ++k) {
    offset[static_cast<size_t>(kCompactRateKernels + k)] = cal.kernels[static_cast<size_t>(k)].fit.alpha_s;
    slope[static_cast<size_t>(kCompactRateKernels + k)] = 1.0 / cal.kernels[static_cast<size_t>(k)].fit.beta_Bps;
  }
  for (size_t i = 0; i < s.traffic_classes.size(); ++i) {
    offset[static_cast<size_t>(kCompactRateCollectives) + i] = EstimateCollective(s.traffic_classes[i], c).seconds;
  }
  const double interference = c.nccl.compute_interference;

  // Finish times, in a per-thread buffer reused across calls (sweeps evaluate thousands of schedules).
  thread_local std::vector<double> finish_buffer;
  if (finish_buffer.size() < n) finish_buffer.resize(n);
  double* finish = finish_buffer.data();
  if (timeline) t.start_s.resize(n);
  std::array<double, kNumQueues> queue_free{};
  const auto compute_q = static_cast<size_t>(Queue::kCompute);
  double end = 0;
  for (size_t i = 0; i < n; ++i) {
    const CompactOp& op = ops[i];
    const auto q = static_cast<size_t>(op.queue);
    double start = queue_free[q];
    for (int d = 0; d < op.num_deps; ++d) start = std::max(start, finish[static_cast<size_t>(op.deps[static_cast<size_t>(d)])]);
    const auto r = static_cast<size_t>(op.rate);
    const double dur = offset[r] + slope[r] * op.amount;
    if (timeline) t.start_s[i] = start;
    finish[i] = start + dur;
    queue_free[q] = start + dur;
    t.queue_busy_s[q] += dur;
    if (op.queue == Queue::kCompute) {
      (op.optimizer ? t.optimizer_s : t.compute_s) += dur;
    } else if (op.kind == OpKind::kCollective && interference > 0) {
      const double lost = interference * dur;
      queue_free[compute_q] = std::max(queue_free[compute_q], start) + lost;
      t.interference_s += lost;
    } else if (op.occupies_gpu) {
      // Shares the GPU: the compute stream loses this much time.
      queue_free[compute_q] = std::max(queue_free[compute_q], start) + dur;
      t.gpu_side_s += dur;
    }
    end = std::max(end, start + dur);
  }
  t.iteration_s = std::max(end, queue_free[compute_q]);
  t.compute_busy_s = t.queue_busy_s[compute_q] + t.gpu_side_s + t.interference_s;
  t.exposed_comm_s = std::max(0.0, t.iteration_s - (t.compute_s + t.optimizer_s + t.gpu_side_s));
  if (timeline) t.finish_s.assign(finish, finish + n);
  return t;
}

}  // namespace zerosim::model
