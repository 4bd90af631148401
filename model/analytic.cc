#include "model/analytic.h"

#include <algorithm>

#include "model/collective_time.h"
#include "model/kernel_cost.h"
#include "model/link_occupancy.h"
#include "model/nccl_allreduce.h"
#include "model/nccl_channels.h"
#include "model/op_cost.h"

namespace zerosim::model {
namespace {

// GPU work beside an idle compute stream: [start, end) at `rate` of the GPU.
struct SideWork {
  double start;
  double end;
  double rate;
};

}  // namespace

Timing EvaluateAnalytic(const Schedule& s, const ClusterSpec& c, const Calibration& cal, bool timeline) {
  Timing t;
  const std::vector<CompactOp>& ops =
      s.compact.size() == s.ops.size() ? s.compact : CompactOps(s.ops, s.traffic_classes.size());
  const size_t n = ops.size();
  const LocalCostModel local = MakeLocalCostModel(s, c, cal);
  // The rate table: every op's duration is offset + slope * amount (CompactOp::rate); each distinct
  // collective traffic and module pass is timed once.
  const size_t compute_base = static_cast<size_t>(kCompactRateCollectives) + s.traffic_classes.size();
  std::vector<double> offset(compute_base + s.compute_classes.size(), 0.0);
  std::vector<double> slope(offset.size(), 0.0);
  slope[kCompactRateHost] = 1.0;
  slope[kCompactRateCompute] = 1.0 / local.effective_flops;
  slope[kCompactRateMemory] = 1.0 / cal.copy_Bps;
  for (int k = 0; k < kNumKernels; ++k) {
    offset[static_cast<size_t>(kCompactRateKernels + k)] = cal.kernels[static_cast<size_t>(k)].fit.alpha_s;
    slope[static_cast<size_t>(kCompactRateKernels + k)] =
        1.0 / cal.kernels[static_cast<size_t>(k)].fit.beta_Bps;
  }
  for (size_t i = 0; i < s.traffic_classes.size(); ++i) {
    offset[static_cast<size_t>(kCompactRateCollectives) + i] =
        EstimateCollective(s.traffic_classes[i], c).seconds;
  }
  // All-reduces are NCCL's tuner's pick, which needs the buffer and the group (EstimateScheduledCollective):
  // their classes are retimed once, from their first op (equal traffic, equal buffer over the same group).
  // Each class's share of the SMs its NCCL kernels hold (nccl_channels.h: the communicator's channels, fewer
  // for small ops), from its first op too (equal traffic: equal group shape and buffer).
  std::vector<bool> seen(s.traffic_classes.size(), false);
  std::vector<double> class_sm_share(s.traffic_classes.size(), 0.0);
  // Each class's seconds of every link tier (link_occupancy.h), from the same timing.
  std::vector<LinkOccupancy::Demand> class_demand(s.traffic_classes.size(), LinkOccupancy::Demand{});
  for (const Op& op : s.ops) {
    if (op.kind != OpKind::kCollective || op.coll.traffic_class < 0 ||
        seen[static_cast<size_t>(op.coll.traffic_class)])
      continue;
    const auto k = static_cast<size_t>(op.coll.traffic_class);
    seen[k] = true;
    const CollectiveTime tuned = EstimateScheduledCollective(op.coll, c);
    if (op.coll.kind == CollectiveKind::kAllReduce) offset[kCompactRateCollectives + k] = tuned.seconds;
    class_sm_share[k] = CollectiveSmShare(op.coll, tuned, c);
    class_demand[k] = CollectiveLinkDemand(WireTraffic(op.coll, tuned, c), c, tuned);
  }
  for (size_t i = 0; i < s.compute_classes.size(); ++i)
    offset[compute_base + i] = local.class_time[i].total();
  const bool one_queue = s.hardware_queues == 1;

  // Finish times, in a per-thread buffer reused across calls (sweeps evaluate thousands of schedules).
  thread_local std::vector<double> finish_buffer;
  if (finish_buffer.size() < n) finish_buffer.resize(n);
  double* finish = finish_buffer.data();
  if (timeline) t.start_s.resize(n);
  std::array<double, kNumQueues> queue_free{};
  const auto compute_q = static_cast<size_t>(Queue::kCompute);
  std::vector<SideWork> idle_side;  // side work that began while the compute stream was idle
  double last_gpu_start = 0;        // the latest start of a GPU op issued so far (one hardware queue)
  // Collectives on different queues share the links: each is served in the tiers' idle time.
  LinkOccupancy links;
  double end = 0;
  for (size_t i = 0; i < n; ++i) {
    const CompactOp& op = ops[i];
    const auto q = static_cast<size_t>(op.queue);
    double start = queue_free[q];
    for (int d = 0; d < op.num_deps; ++d)
      start = std::max(start, finish[static_cast<size_t>(op.deps[static_cast<size_t>(d)])]);
    if (one_queue && op.queue != Queue::kHost) {
      if (op.queue == Queue::kCompute && last_gpu_start > start) t.queue_blocking_s += last_gpu_start - start;
      start = std::max(start, last_gpu_start);
      last_gpu_start = start;
    }
    const auto r = static_cast<size_t>(op.rate);
    double dur = offset[r] + slope[r] * op.amount;
    if (op.kind == OpKind::kCollective) {
      // Links busy with collectives of other queues stretch this one to when its bytes got through.
      const auto k = r - static_cast<size_t>(kCompactRateCollectives);
      dur = std::max(dur, links.Reserve(start, class_demand[k]) - start);
    }
    if (timeline) t.start_s[i] = start;
    t.queue_busy_s[q] += dur;
    if (op.queue == Queue::kCompute) {
      (op.optimizer ? t.optimizer_s : t.compute_s) += dur;
      // The compute split, from the op's class (or its GEMM-rate FLOPs), in this same pass.
      if (r >= compute_base) {
        const ComputeTime& parts = local.class_time[r - compute_base];
        t.compute_parts.gemm_s += parts.gemm_s;
        t.compute_parts.attention_s += parts.attention_s;
        t.compute_parts.memory_s += parts.memory_s;
        t.compute_parts.launch_s += parts.launch_s;
      } else if (op.kind == OpKind::kCompute) {
        t.compute_parts.gemm_s += dur;
      } else if (!op.optimizer && (op.kind == OpKind::kMemory || op.kind == OpKind::kKernel)) {
        // Memory-bound passes on the compute stream (FSDP2's copy-out of the gathered parameters, gradient
        // copies): memory-bound kernels, so the parts add up to compute_s (SumComputeParts alike).
        t.compute_parts.memory_s += dur;
      }
      // Side work still running when this op starts takes its share of the GPU from it.
      for (const SideWork& w : idle_side) {
        const double lost = w.rate * std::max(0.0, w.end - std::max(w.start, start));
        dur += lost;
        if (w.rate < 1) t.interference_s += lost;
      }
      idle_side.clear();
    } else {
      double rate = 0;
      if (op.kind == OpKind::kCollective) {
        rate = class_sm_share[r - static_cast<size_t>(kCompactRateCollectives)];
      } else if (op.occupies_gpu) {
        rate = 1;
        t.gpu_side_s += dur;
      }
      if (rate > 0) {
        if (start < queue_free[compute_q]) {
          // The compute stream is busy: it loses the GPU time this work takes.
          queue_free[compute_q] += rate * dur;
          if (rate < 1) t.interference_s += rate * dur;
        } else {
          idle_side.push_back({start, start + dur, rate});
        }
      }
    }
    finish[i] = start + dur;
    queue_free[q] = std::max(queue_free[q], start + dur);
    end = std::max(end, start + dur);
  }
  t.iteration_s = std::max(end, queue_free[compute_q]);
  t.compute_busy_s = t.queue_busy_s[compute_q] + t.gpu_side_s + t.interference_s;
  t.exposed_comm_s = std::max(0.0, t.iteration_s - (t.compute_s + t.optimizer_s + t.gpu_side_s));
  if (timeline) t.finish_s.assign(finish, finish + n);
  return t;
}

}  // namespace zerosim::model
