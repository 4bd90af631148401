#include "model/builders/pipeline_schedule.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace zerosim::model {
namespace {

// schedules.py (interleaved): get_model_chunk_id and the micro-batch of unit k.
PipelinePass InterleavedPass(int k, bool backward, int p, int v) {
  const int in_group = k % (p * v);
  int chunk = in_group / p;
  if (backward) chunk = v - 1 - chunk;
  return {backward, (k / (p * v)) * p + k % p, chunk};
}

std::vector<PipelinePass> Interleaved(int p, int v, int m, int stage) {
  const int total = m * v;
  int warmup = m == p ? total : std::min(total, (p - stage - 1) * 2 + (v - 1) * p);
  std::vector<PipelinePass> order;
  order.reserve(static_cast<size_t>(2 * total));
  for (int k = 0; k < warmup; ++k) order.push_back(InterleavedPass(k, false, p, v));
  const int steady = total - warmup;
  for (int k = 0; k < steady; ++k) {
    order.push_back(InterleavedPass(warmup + k, false, p, v));
    order.push_back(InterleavedPass(k, true, p, v));
  }
  for (int k = steady; k < total; ++k) order.push_back(InterleavedPass(k, true, p, v));
  return order;
}

std::vector<PipelinePass> OneFOneB(int p, int m, int stage) {
  const int warmup = std::min(p - stage - 1, m);
  std::vector<PipelinePass> order;
  order.reserve(static_cast<size_t>(2 * m));
  for (int j = 0; j < warmup; ++j) order.push_back({false, j, 0});
  for (int j = 0; j < m - warmup; ++j) {
    order.push_back({false, warmup + j, 0});
    order.push_back({true, j, 0});
  }
  for (int j = m - warmup; j < m; ++j) order.push_back({true, j, 0});
  return order;
}

}  // namespace

std::vector<PipelinePass> PipelineOrder(PipelineSchedule schedule, int stages, int virtual_stages,
                                        int micro_batches, int stage) {
  const int p = stages, v = virtual_stages, m = micro_batches;
  if (schedule == PipelineSchedule::kGPipe) {
    std::vector<PipelinePass> order;
    for (int c = 0; c < v; ++c)
      for (int j = 0; j < m; ++j) order.push_back({false, j, c});
    for (int c = v - 1; c >= 0; --c)
      for (int j = 0; j < m; ++j) order.push_back({true, j, c});
    return order;
  }
  if (v > 1) return Interleaved(p, v, m, stage);
  return OneFOneB(p, m, stage);
}

int MaxChunksInFlight(PipelineSchedule schedule, int stages, int virtual_stages, int micro_batches,
                      int stage) {
  int in_flight = 0, most = 0;
  for (const PipelinePass& pass : PipelineOrder(schedule, stages, virtual_stages, micro_batches, stage)) {
    in_flight += pass.backward ? -1 : 1;
    most = std::max(most, in_flight);
  }
  return most;
}

PipelineTimeline RunPipeline(PipelineSchedule schedule, int stages, int virtual_stages, int micro_batches,
                             const std::vector<StagePassTimes>& times, double p2p_s, bool blocking_sends) {
  const int p = stages, v = virtual_stages, m = micro_batches;
  const int virtual_count = p * v;
  const double kNotYet = -1;
  // Finish of each (virtual stage, micro-batch) pass, forward and backward.
  std::vector<double> forward_end(static_cast<size_t>(virtual_count * m), kNotYet);
  std::vector<double> backward_end(forward_end.size(), kNotYet);
  auto at = [m](int vs, int j) { return static_cast<size_t>(vs * m + j); };
  const bool per_chunk = times.size() == static_cast<size_t>(virtual_count);
  // With p > 1 the neighbouring virtual stage is always another stage; with one stage there is no transfer.
  const double hop_s = p > 1 ? p2p_s : 0.0;

  std::vector<std::vector<PipelinePass>> orders;
  PipelineTimeline out;
  out.finish_s.assign(static_cast<size_t>(p), 0);
  out.busy_s.assign(static_cast<size_t>(p), 0);
  out.max_in_flight.assign(static_cast<size_t>(p), 0);
  for (int i = 0; i < p; ++i) {
    orders.push_back(PipelineOrder(schedule, p, v, m, i));
    out.max_in_flight[static_cast<size_t>(i)] = MaxChunksInFlight(schedule, p, v, m, i);
  }
  std::vector<size_t> next(static_cast<size_t>(p), 0);
  std::vector<double> free_at(static_cast<size_t>(p), 0);
  size_t remaining = 0;
  for (const auto& o : orders) remaining += o.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int i = 0; i < p; ++i) {
      const auto si = static_cast<size_t>(i);
      // Run this stage's passes while their dependencies are done.
      while (next[si] < orders[si].size()) {
        const PipelinePass& pass = orders[si][next[si]];
        const int vs = pass.chunk * p + i;
        double ready = 0;
        if (!pass.backward) {
          if (vs > 0) {
            const double dep = forward_end[at(vs - 1, pass.micro_batch)];
            if (dep == kNotYet) break;
            ready = dep + hop_s;
          }
        } else if (vs < virtual_count - 1) {
          const double dep = backward_end[at(vs + 1, pass.micro_batch)];
          if (dep == kNotYet) break;
          ready = dep + hop_s;
        } else {
          const double dep = forward_end[at(vs, pass.micro_batch)];
          if (dep == kNotYet) break;
          ready = dep;
        }
        const StagePassTimes& t = per_chunk ? times[static_cast<size_t>(vs)] : times[si];
        const double duration = pass.backward ? t.backward_s : t.forward_s;
        const double start = std::max(free_at[si], ready);
        const double end = start + duration;
        (pass.backward ? backward_end : forward_end)[at(vs, pass.micro_batch)] = end;
        const bool sends = p > 1 && (pass.backward ? vs > 0 : vs < virtual_count - 1);
        free_at[si] = end + (blocking_sends && sends ? hop_s : 0.0);
        out.finish_s[si] = end;
        out.busy_s[si] += duration;
        ++next[si];
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("RunPipeline: the stages' orders deadlock (a schedule bug)");
  }
  out.makespan_s = *std::max_element(out.finish_s.begin(), out.finish_s.end());
  out.stage_bubble_fraction.assign(static_cast<size_t>(p), 0);
  for (size_t i = 0; i < out.busy_s.size(); ++i) {
    const double busy = out.busy_s[i];
    out.stage_bubble_fraction[i] = busy > 0 ? (out.makespan_s - busy) / busy : 0;
    out.bubble_fraction = std::max(out.bubble_fraction, out.stage_bubble_fraction[i]);
  }
  return out;
}

}  // namespace zerosim::model
