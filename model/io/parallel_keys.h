// Reading the parallel layout (model/spec/parallel_layout.h) from a TOML table: a scenario's `[parallel]`
// table and each `[[variant]]`, whose keys override the scenario's. Every key is optional: absent keys keep
// `base`'s value (the default layout, t = p = 1, for `[parallel]`). Syntax and ranges only: whether the
// layout fits the model and the cluster is model::CheckLayout, part of the caller's one configuration check.
#pragma once

#include "model/io/table_reader.h"
#include "model/spec/parallel_layout.h"

namespace zerosim::io {

// Reads tensor, sequence_parallel, tp_comm_overlap, pipeline, virtual_stages, schedule ("1f1b",
// "interleaved_1f1b", "gpipe"), account_for_embedding_in_pipeline_split, account_for_loss_in_pipeline_split,
// num_layers_in_first_pipeline_stage and num_layers_in_last_pipeline_stage (1 to kMaxLayers),
// tensor_across_nodes, expert and expert_tensor (1 to kMaxGpus) and expert_load_imbalance (1 to
// 1000) present in `t` over `base`. A table that sets virtual_stages but no schedule gets the schedule it
// implies (interleaved_1f1b for virtual_stages > 1, else 1f1b unless `base` was gpipe).
model::ParallelLayout ReadParallelKeys(TableReader* t, const model::ParallelLayout& base);

}  // namespace zerosim::io
