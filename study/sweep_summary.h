// The summary `zerosim sweep` prints at the end (on stderr, since stdout may carry the rows): per cluster
// (the point's axes other than the ZeRO ones), the best feasible variant by tokens/s with its TFLOPs per
// GPU and, with prices, its cost per million tokens; then how many rows were infeasible, by reason.
#pragma once

#include <string>

#include "model/status.h"

namespace zerosim::study {

// The summary of sweep rows (JSON lines, docs/sweeps.md); `max_clusters` caps the table's rows (the
// fastest first). An error if a line is not a sweep row.
StatusOr<std::string> SummarizeSweepRows(const std::string& jsonl, size_t max_clusters = 20);

}  // namespace zerosim::study
