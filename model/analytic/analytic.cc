#include "model/analytic/analytic.h"

#include <algorithm>

#include "model/analytic/link_occupancy.h"
#include "model/cost/collective_time.h"
#include "model/cost/kernel_cost.h"
#include "model/cost/op_cost.h"
#include "model/cost/placed_collectives.h"

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
      s.compact.size() == s.ops.size() ? s.compact : CompactOps(s.ops, s.collective_classes.size());
  const size_t n = ops.size();
  const LocalCostModel local = MakeLocalCostModel(s, c, cal);
  // The rate table: every op's duration is offset + slope * amount (CompactOp::rate); each collective class
  // and module pass is timed once.
  const size_t num_collectives = s.collective_classes.size();
  const size_t compute_base = static_cast<size_t>(kCompactRateCollectives) + num_collectives;
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
  // Each collective class on this cluster: its time (EstimateScheduledCollective: NCCL's tuner's pick for a
  // tuned all-reduce, else its placement's ring or all-to-all), its share of the SMs its NCCL kernels hold
  // (nccl_channels.h: the communicator's channels, fewer for small ops) and its seconds of every link tier
  // (link_occupancy.h) from the bytes it puts on the wire.
  const std::vector<PlacedCollective> placed = PlaceCollectives(s, c);
  std::vector<LinkOccupancy::Demand> class_demand(num_collectives, LinkOccupancy::Demand{});
  for (size_t k = 0; k < num_collectives; ++k) {
    offset[kCompactRateCollectives + k] = placed[k].time.seconds;
    class_demand[k] = CollectiveLinkDemand(placed[k].wire, c, placed[k].time);
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
  // Collectives on different queues share the links: each is served in the tiers' idle time.
  LinkOccupancy links;
  std::vector<LinkOccupancy::Delayed> delayed;
  double end = 0;
  // Ops are timed in the order they start, not in issue order (issue 39): a collective issued late that starts
  // early (an hpZ or tensor-parallel gather beside data-parallel gathers issued before it) books its share of
  // the links before the later-starting ones, and the collectives it delays move their finish while the ops
  // that wait for them are still untimed. Each queue runs its ops in issue order, so the next op to time is
  // the head of some queue whose dependencies are timed (and, with one hardware queue, whose preceding GPU op
  // has started): of those, the one that starts first (ties: issue order). The earliest untimed op always
  // qualifies (its queue predecessors, dependencies and the GPU op before it are earlier), so every op is
  // timed once.
  thread_local std::vector<double> start_buffer;
  thread_local std::vector<char> timed_buffer;
  thread_local std::vector<int32_t> prev_gpu_buffer;
  thread_local std::array<std::vector<int32_t>, kNumQueues> queue_ops;
  if (start_buffer.size() < n) start_buffer.resize(n);
  timed_buffer.assign(n, 0);
  prev_gpu_buffer.assign(n, -1);
  double* start_of = start_buffer.data();
  for (auto& list : queue_ops) list.clear();
  int32_t last_gpu = -1;
  for (size_t i = 0; i < n; ++i) {
    queue_ops[static_cast<size_t>(ops[i].queue)].push_back(static_cast<int32_t>(i));
    if (ops[i].queue != Queue::kHost) {
      prev_gpu_buffer[i] = last_gpu;
      last_gpu = static_cast<int32_t>(i);
    }
  }
  std::array<size_t, kNumQueues> head{};
  // Each queue head's start once it is ready (kReady), kept until something it depends on moves: its own queue
  // advancing, side work taking compute-stream time, a delayed collective's finish moving (then every head).
  enum : char { kUnknown, kReady, kWaiting };
  std::array<char, kNumQueues> head_state{};
  std::array<double, kNumQueues> head_start{};
  std::vector<size_t> used_queues;
  for (size_t qq = 0; qq < static_cast<size_t>(kNumQueues); ++qq) {
    if (!queue_ops[qq].empty()) used_queues.push_back(qq);
  }
  for (size_t step = 0; step < n; ++step) {
    size_t i = n;
    double start = 0;
    for (size_t qq : used_queues) {
      if (head[qq] >= queue_ops[qq].size()) continue;
      const auto j = static_cast<size_t>(queue_ops[qq][head[qq]]);
      if (head_state[qq] != kReady) {
        const CompactOp& cand = ops[j];
        double s_j = queue_free[qq];
        bool ready = true;
        for (int d = 0; d < cand.num_deps && ready; ++d) {
          const auto dep = static_cast<size_t>(cand.deps[static_cast<size_t>(d)]);
          ready = timed_buffer[dep] != 0;
          if (ready) s_j = std::max(s_j, finish[dep]);
        }
        if (ready && one_queue && prev_gpu_buffer[j] >= 0) {
          const auto prev = static_cast<size_t>(prev_gpu_buffer[j]);
          ready = timed_buffer[prev] != 0;
          if (ready) s_j = std::max(s_j, start_of[prev]);
        }
        head_state[qq] = ready ? kReady : kWaiting;
        head_start[qq] = s_j;
        if (!ready) continue;
      }
      const double s_j = head_start[qq];
      if (i == n || s_j < start || (s_j == start && j < i)) {
        i = j;
        start = s_j;
      }
    }
    const CompactOp& op = ops[i];
    const auto q = static_cast<size_t>(op.queue);
    ++head[q];
    timed_buffer[i] = 1;
    head_state[q] = kUnknown;
    for (char& st : head_state) {
      if (st == kWaiting) st = kUnknown;  // this op may be what it waited for
    }
    if (one_queue && op.queue == Queue::kCompute && prev_gpu_buffer[i] >= 0) {
      // How long the single hardware queue held this compute op back: the GPU op issued before it started
      // after everything else this op waits for.
      double own = queue_free[q];
      for (int d = 0; d < op.num_deps; ++d)
        own = std::max(own, finish[static_cast<size_t>(op.deps[static_cast<size_t>(d)])]);
      if (start > own) t.queue_blocking_s += start - own;
    }
    start_of[i] = start;
    const auto r = static_cast<size_t>(op.rate);
    double dur = offset[r] + slope[r] * op.amount;
    if (op.kind == OpKind::kCollective) {
      // Links busy with collectives of other queues stretch this one to when its bytes got through.
      const auto k = r - static_cast<size_t>(kCompactRateCollectives);
      delayed.clear();
      dur = std::max(dur, links.Reserve(start, class_demand[k], static_cast<int>(i), &delayed) - start);
      // The collectives it shares a tier with give up part of it and finish later (link_occupancy.h), for
      // the ops not yet timed that wait for them.
      for (const LinkOccupancy::Delayed& d : delayed) {
        const auto o = static_cast<size_t>(d.owner);
        if (!(d.end_s > finish[o])) continue;
        head_state.fill(kUnknown);  // a finish some head may wait for moves
        const auto oq = static_cast<size_t>(ops[o].queue);
        queue_free[oq] = std::max(queue_free[oq], d.end_s);
        t.queue_busy_s[oq] += d.end_s - finish[o];
        end = std::max(end, d.end_s);
        finish[o] = d.end_s;
      }
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
        rate = placed[r - static_cast<size_t>(kCompactRateCollectives)].sm_share;
      } else if (op.occupies_gpu) {
        rate = 1;
        t.gpu_side_s += dur;
      }
      if (rate > 0) {
        if (start < queue_free[compute_q]) {
          // The compute stream is busy: it loses the GPU time this work takes. Side work that occupies the
          // whole GPU shares it with the compute stream while that runs, as the replay's max-min sharing of
          // the GPU host does (sim/README.md): each at half the GPU, so it takes as much longer as it overlaps
          // the compute stream's work booked so far (issue 39: copy-ins and gradient copies finished early here
          // and the collectives waiting for them started early).
          const double busy_left = queue_free[compute_q] - start;
          queue_free[compute_q] += rate * dur;
          head_state[compute_q] = kUnknown;
          if (rate < 1) t.interference_s += rate * dur;
          if (rate >= 1) dur += std::min(dur, busy_left);
        } else {
          idle_side.push_back({start, start + dur, rate});
        }
      }
    }
    finish[i] = start + dur;
    queue_free[q] = std::max(queue_free[q], start + dur);
    end = std::max(end, start + dur);
  }
  // The bytes collectives gave up to later ones on a shared tier move until it falls idle (link_occupancy.h).
  t.iteration_s = std::max({end, queue_free[compute_q], links.LastBusyEnd()});
  t.compute_busy_s = t.queue_busy_s[compute_q] + t.gpu_side_s + t.interference_s;
  t.exposed_comm_s = std::max(0.0, t.iteration_s - (t.compute_s + t.optimizer_s + t.gpu_side_s));
  if (timeline) t.finish_s.assign(finish, finish + n);
  return t;
}

}  // namespace zerosim::model
