// Batch search: for one configuration (model, ZeRO and training settings, cluster), the largest micro-batch
// (sequences per GPU per micro-step, DeepSpeed's train_micro_batch_size_per_gpu) whose memory estimate
// (model/report/memory.h EstimateMemory on the configuration's schedule) fits the GPU's HBM, and the gradient
// accumulation that reaches a target global batch with it. Memory freed or spent by a setting (hpZ's
// secondary copy, qgZ's buffers, fp32 gradients, bf16 optimizer states) shows up as a larger or smaller
// micro-batch: the ZeRO++ paper's argument (sec. 4: hpZ's memory "can be offset by" a smaller batch) made a
// number.
//
// Memory grows with the micro-batch (activations and logits, model/report/memory.h), so the search doubles
// the micro-batch until it no longer fits, then bisects: about 2 log2(b) schedule builds.
#pragma once

#include <cstdint>
#include <string>

#include "model/report/memory.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/model_spec.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

struct BatchSearchResult {
  bool fits = false;            // a micro-batch of one sequence fits
  int largest_micro_batch = 0;  // the largest that fits (0 when none does; kMaxMicroBatch at most)
  MemoryBreakdown memory;       // at largest_micro_batch (at 1 when none fits)
  double next_total_bytes = 0;  // the estimate at largest_micro_batch + 1 (above HBM; 0 at kMaxMicroBatch)
  // The settings to run: without a target, largest_micro_batch and the configuration's own accumulation; with
  // one, the largest micro-batch b <= largest_micro_batch such that b * P divides the target, and the target
  // over b * P accumulation steps.
  int micro_batch = 0;
  int gradient_accumulation_steps = 1;
  // micro_batch * gradient_accumulation_steps * d sequences per optimizer step (d = P / (t p)); when nothing fits,
  // the configuration's own
  int64_t global_batch = 0;
  std::string reason;  // non-empty: why nothing fits, or why the target cannot be met (settings unchanged)
};

// Searches `z` (its micro-batch and accumulation are replaced) on `c`. `target_global_batch` is in sequences
// per optimizer step; 0: no target. Preconditions: model::Validate (validate.h) finds no problem.
// With the layout `l`, each rank's memory is one tensor-parallel rank's, and the global batch counts the
// d = P / (t p) data-parallel ranks' micro-batches (with interleaving, a multiple of p micro-batches).
BatchSearchResult SearchBatch(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                              int64_t target_global_batch, const ParallelLayout& l = {});

// The estimate of EstimateMemory at a micro-batch of `micro_batch` sequences (one accumulation step); for a
// pipelined layout the fullest stage's (model/report/pipeline_evaluate.h PipelineMemory) with as many chunks
// in flight as the schedule can hold (GPipe: the configuration's micro-batches).
MemoryBreakdown MemoryAtMicroBatch(const ModelSpec& m, ZeroConfig z, const ClusterSpec& c, int micro_batch,
                                   const ParallelLayout& l = {});

}  // namespace zerosim::model
