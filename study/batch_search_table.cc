#include "study/batch_search_table.h"

#include <fmt/format.h>

#include "model/report/batch_search.h"
#include "model/units.h"

namespace zerosim::study {

BatchSearchTable SearchScenarioBatches(io::Scenario* s, int64_t global_batch) {
  BatchSearchTable out;
  out.text = fmt::format(
      "batch search: the largest micro-batch (sequences per GPU) that fits {:.1f} GiB of HBM{}\n"
      "  {:<24} {:>11} {:>12} {:>12} {:>8} {:>7} {:>8}  {}\n",
      s->cluster.gpu.hbm_bytes / kGiB,
      global_batch > 0 ? fmt::format(", and the accumulation for {} sequences per step", global_batch) : "",
      "variant", "largest fit", "memory GiB", "at +1 GiB", "micro", "accum.", "global", "note");
  for (io::Variant& v : s->variants) {
    if (!io::ValidateVariant(*s, v).empty()) {
      out.text += fmt::format("  {:<24} {:>11}\n", v.name, "-");
      continue;
    }
    const model::BatchSearchResult r = model::SearchBatch(v.model, v.zero, s->cluster, global_batch, v.parallel);
    if (r.fits) {
      v.zero.train_micro_batch_size_per_gpu = r.micro_batch;
      v.zero.gradient_accumulation_steps = r.gradient_accumulation_steps;
    }
    if (global_batch > 0 && (!r.fits || r.global_batch != global_batch) && out.unreachable.empty()) {
      out.unreachable = fmt::format("variant \"{}\": {}", v.name, r.reason.empty() ? "it does not fit" : r.reason);
    }
    out.text += fmt::format("  {:<24} {:>11} {:>12.1f} {:>12} {:>8} {:>7} {:>8}  {}\n", v.name,
                            r.largest_micro_batch, r.memory.total_bytes / kGiB,
                            r.next_total_bytes > 0 ? fmt::format("{:.1f}", r.next_total_bytes / kGiB) : "-",
                            v.zero.train_micro_batch_size_per_gpu, v.zero.gradient_accumulation_steps,
                            r.global_batch, r.reason);
  }
  out.text += "\n";
  return out;
}

}  // namespace zerosim::study
