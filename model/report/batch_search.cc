#include "model/report/batch_search.h"

#include <fmt/format.h>

#include "model/report/pipeline_evaluate.h"
#include "model/builders/schedule_builder.h"
#include "model/spec/feasibility.h"
#include "model/units.h"

namespace zerosim::model {

MemoryBreakdown MemoryAtMicroBatch(const ModelSpec& m, ZeroConfig z, const ClusterSpec& c, int micro_batch,
                                   const ParallelLayout& l) {
  z.train_micro_batch_size_per_gpu = micro_batch;
  const int micro_batches = z.gradient_accumulation_steps;
  z.gradient_accumulation_steps = 1;  // memory does not depend on it; the schedule is shorter
  if (l.pipeline > 1) {
    // A stage holds the activations of its chunks in flight, which grow with the micro-batches per iteration
    // until 2 p for the 1F1B schedules (model/builders/pipeline_schedule.h MaxChunksInFlight); GPipe holds
    // them all. The accumulation is chosen after the micro-batch, so the 1F1B schedules count the most they
    // can hold.
    const int held =
        l.schedule == PipelineSchedule::kGPipe ? micro_batches : std::max(micro_batches, 2 * l.pipeline);
    return PipelineMemory(m, z, c, l, held);
  }
  return EstimateMemory(m, z, c, BuildSchedule(m, z, RankShape(c, l)));
}

BatchSearchResult SearchBatch(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                              int64_t target_global_batch, const ParallelLayout& l) {
  BatchSearchResult r;
  r.micro_batch = z.train_micro_batch_size_per_gpu;
  r.gradient_accumulation_steps = z.gradient_accumulation_steps;
  const int64_t p = l.batch_parallel(c.total_gpus());  // the ranks of distinct sequences, P / (t p c)
  r.global_batch = static_cast<int64_t>(r.micro_batch) * r.gradient_accumulation_steps * p;  // until found
  const double hbm = c.gpu.hbm_bytes;
  auto fits = [&](int b, MemoryBreakdown* out) {
    *out = MemoryAtMicroBatch(m, z, c, b, l);
    return out->total_bytes <= hbm;
  };
  MemoryBreakdown at;
  if (!fits(1, &at)) {
    r.memory = at;
    r.reason = fmt::format("one sequence per GPU needs {:.1f} GiB, the {} has {:.1f} GiB",
                           at.total_bytes / kGiB, c.gpu.name, hbm / kGiB);
    return r;
  }
  r.fits = true;
  // lo fits; hi does not (or is past the limit).
  int64_t lo = 1, hi = 2;
  MemoryBreakdown lo_memory = at, hi_memory;
  while (hi <= kMaxMicroBatch && fits(static_cast<int>(hi), &hi_memory)) {
    lo = hi;
    lo_memory = hi_memory;
    hi *= 2;
  }
  if (hi > kMaxMicroBatch) {
    hi = kMaxMicroBatch + 1;
    hi_memory = MemoryBreakdown{};
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    MemoryBreakdown mm;
    if (fits(static_cast<int>(mid), &mm)) {
      lo = mid;
      lo_memory = mm;
    } else {
      hi = mid;
      hi_memory = mm;
    }
  }
  r.largest_micro_batch = static_cast<int>(lo);
  r.memory = lo_memory;
  r.next_total_bytes = hi <= kMaxMicroBatch ? hi_memory.total_bytes : 0;
  r.micro_batch = r.largest_micro_batch;
  if (target_global_batch <= 0) {
    r.global_batch = static_cast<int64_t>(r.micro_batch) * r.gradient_accumulation_steps * p;
    return r;
  }
  // DeepSpeed requires train_batch_size = micro-batch x accumulation x GPUs (docs/config-json).
  for (int64_t b = lo; b >= 1; --b) {
    if (target_global_batch % (b * p) != 0) continue;
    const int64_t steps = target_global_batch / (b * p);
    if (steps > kMaxGradientAccumulation) break;  // smaller b only needs more steps
    // Megatron's interleaved schedule runs a multiple of p micro-batches (model/spec/feasibility.h
    // CheckLayout).
    if (l.virtual_stages > 1 && steps % l.pipeline != 0) continue;
    r.micro_batch = static_cast<int>(b);
    r.gradient_accumulation_steps = static_cast<int>(steps);
    r.global_batch = target_global_batch;
    return r;
  }
  r.micro_batch = z.train_micro_batch_size_per_gpu;
  r.gradient_accumulation_steps = z.gradient_accumulation_steps;
  r.global_batch = static_cast<int64_t>(r.micro_batch) * r.gradient_accumulation_steps * p;
  r.reason = fmt::format(
      "a global batch of {} sequences is not micro-batch x accumulation x {} GPUs for any "
      "micro-batch up to {} and at most {} steps",
      target_global_batch, p, lo, kMaxGradientAccumulation);
  return r;
}

}  // namespace zerosim::model
