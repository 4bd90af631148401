#include "model/analytic.h"

#include <algorithm>

#include "model/collective_time.h"
#include "model/op_cost.h"

namespace zerosim::model {

Timing EvaluateAnalytic(const Schedule& s, const ClusterSpec& c, const Calibration& cal) {
  const LocalCostModel local = MakeLocalCostModel(s, c, cal);
  Timing t;
  const size_t n = s.ops.size();
  t.start_s.resize(n);
  t.finish_s.resize(n);
  std::array<double, kNumQueues> queue_free{};
  const auto compute_q = static_cast<size_t>(Queue::kCompute);
  double end = 0;
  for (size_t i = 0; i < n; ++i) {
    const Op& op = s.ops[i];
    const auto q = static_cast<size_t>(op.queue);
    double start = queue_free[q];
    for (int d = 0; d < op.num_deps; ++d) start = std::max(start, t.finish_s[static_cast<size_t>(op.deps[static_cast<size_t>(d)])]);
    const double dur = op.kind == OpKind::kCollective ? EstimateCollective(op.coll.traffic, c).seconds
                                                      : LocalOpDuration(op, local);
    t.start_s[i] = start;
    t.finish_s[i] = start + dur;
    queue_free[q] = start + dur;
    t.queue_busy_s[q] += dur;
    if (op.queue == Queue::kCompute) {
      (op.phase == Phase::kOptimizer ? t.optimizer_s : t.compute_s) += dur;
    } else if (op.kind == OpKind::kCollective && c.nccl.compute_interference > 0) {
      const double lost = c.nccl.compute_interference * dur;
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
  t.exposed_comm_s = std::max(0.0, t.iteration_s - t.compute_busy_s);
  return t;
}

}  // namespace zerosim::model
