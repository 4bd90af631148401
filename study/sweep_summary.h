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

// The same summary of sweep rows as CSV (`--format csv`: a header record, then one record per row; the
// columns this reads are `axes.*`, variant, feasible, infeasible_reason, tokens_per_s, tflops_per_gpu and
// cost.usd_per_million_tokens when priced). An error for a missing column or a record that is not a row.
StatusOr<std::string> SummarizeSweepCsv(const std::string& csv, size_t max_clusters = 20);

}  // namespace zerosim::study
