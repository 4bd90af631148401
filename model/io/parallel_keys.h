// The parallel layout's input keys (model/spec/parallel_layout.h), as one list: a scenario's `[parallel]`
// table and each `[[variant]]` (whose keys override the scenario's) are read from it, and the sweep axes and
// `--set` names of the same keys are made from it (model/io/sweep.cc), with the same value types and ranges;
// docs/inputs.md has a row for each (tests/io/parallel_keys_test.cc checks all three). A new layout key is
// one entry in ParallelKeys (issue 36 item 5: the input twin of the report's field list).
//
// Every key is optional: absent keys keep `base`'s value (the default layout, t = p = 1, for `[parallel]`).
// Syntax and ranges only: whether the layout fits the model and the cluster is model::CheckLayout, part of
// the caller's one configuration check.
#pragma once

#include <vector>

#include "model/io/input_key.h"
#include "model/io/table_reader.h"
#include "model/spec/parallel_layout.h"

namespace zerosim::io {

// One numeric or boolean layout key (input_key.h).
using ParallelKey = InputKey<model::ParallelLayout>;

// The layout's numeric and boolean keys, in reading order. Not in it (names, read by ReadParallelKeys
// itself): `schedule` ("1f1b", "interleaved_1f1b", "gpipe"), `context_comm` ("p2p", "a2a", "all_gather") and
// `moe_token_dispatcher_type` ("alltoall", "allgather", "flex").
const std::vector<ParallelKey>& ParallelKeys();

// Reads ParallelKeys present in `t` over `base`, then `context_comm`, `moe_token_dispatcher_type` and
// `schedule`. `virtual_stages` sets the schedule it implies (ParallelLayout::SetVirtualStages: interleaved
// 1F1B for v > 1, back to 1F1B for v = 1 unless `base` was GPipe) unless the table names the schedule.
model::ParallelLayout ReadParallelKeys(TableReader* t, const model::ParallelLayout& base);

}  // namespace zerosim::io
