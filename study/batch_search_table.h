// `run --search-batch`: every variant of a scenario set to the batch the search finds (model/report/
// batch_search.h SearchBatch: the largest micro-batch that fits, and with a target global batch the accumulation
// that makes it), and the table of what was found, each row's global batch as the search counts it (micro-batch
// x accumulation x the d = P / (t p) data-parallel ranks).
#pragma once

#include <cstdint>
#include <string>

#include "model/io/loaders.h"

namespace zerosim::study {

struct BatchSearchTable {
  std::string text;         // the table, one row per variant ("-" for a variant that cannot be evaluated)
  std::string unreachable;  // with a target: the first variant that cannot train exactly that batch, and why
};

// Replaces each evaluable variant's micro-batch and accumulation in `s` by the search's where one sequence per
// GPU fits (a variant that cannot be evaluated, or where nothing fits, keeps its settings). `global_batch`:
// the target in sequences per optimizer step, 0 for none.
BatchSearchTable SearchScenarioBatches(io::Scenario* s, int64_t global_batch);

}  // namespace zerosim::study
