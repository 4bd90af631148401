// PipelineSchedule: the order in which each pipeline stage runs the forward and backward passes of its
// micro-batches (Megatron-LM megatron/core/pipeline_parallel/schedules.py; Narayanan et al., SC'21,
// sec. 2.2), and the timeline those orders give when every pass takes a given time: the pipeline bubble comes
// out of executing the orders, never from a formula (issue 22 item 2; docs/design/tensor_pipeline.md
// sec. 2.4).
//
// Orders, per stage i of p, m micro-batches, v model chunks per stage:
//   GPipe     every forward, then every backward (Huang et al. 2019).
//   1F1B      forward_backward_pipelining_without_interleaving: min(p - i - 1, m) warm-up forwards, then
//             one forward and one backward alternately, then the remaining backwards (PipeDream-Flush).
//   1F1B, v>1 forward_backward_pipelining_with_interleaving (the rule of Megatron-LM's 2021-23 releases,
//   which
//             the SC'21 runs used; m a multiple of p): units k = 0 .. m v - 1; unit k's chunk is (k mod p v)
//             / p for a forward, v - 1 minus that for a backward; its micro-batch (k / (p v)) p + k mod p;
//             warm-up (p - i - 1) 2 + (v - 1) p units (every unit when m == p), at most m v.
// Dependencies: the forward of chunk c of micro-batch j on stage i needs that micro-batch's forward on the
// virtual stage before (c p + i - 1: stage i - 1's chunk c, or stage p - 1's chunk c - 1 when i = 0); its
// backward needs the backward on the virtual stage after, and on the last virtual stage its own forward.
// Each edge between different stages carries one point-to-point transfer of p2p_s; with blocking sends
// (Megatron's default: no --overlap-p2p-communication) the sender's next pass also waits for it.
#pragma once

#include <cstdint>
#include <vector>

#include "model/spec/parallel_layout.h"

namespace zerosim::model {

struct PipelinePass {
  bool backward = false;
  int micro_batch = 0;
  int chunk = 0;
  bool operator==(const PipelinePass&) const = default;
};

// The passes stage `stage` runs, in order (2 m v of them). Preconditions (model/spec/feasibility.h
// CheckLayout): p >= 1, m >= 1, v >= 1; with v > 1 m is a multiple of p.
std::vector<PipelinePass> PipelineOrder(PipelineSchedule schedule, int stages, int virtual_stages,
                                        int micro_batches, int stage);

// The most chunk-forwards stage `stage` has done whose backward has not begun, over its order
// (PipelineOrder): the chunks of saved activations it holds at its peak. min(m, p - stage) for 1F1B, m v for
// GPipe (Narayanan et al. 2021 sec. 2.2).
int MaxChunksInFlight(PipelineSchedule schedule, int stages, int virtual_stages, int micro_batches,
                      int stage);

// Seconds of one pass of one micro-batch on one model chunk of each stage.
struct StagePassTimes {
  double forward_s = 0;
  double backward_s = 0;  // recompute included
};

struct PipelineTimeline {
  double makespan_s = 0;           // the last pass's end (the pipeline flush), from 0
  std::vector<double> finish_s;    // per stage: its last pass's end
  std::vector<double> busy_s;      // per stage: the sum of its passes' times
  std::vector<int> max_in_flight;  // per stage: most chunk-forwards done whose backward has not begun
  // Per stage: (makespan - busy) / busy, the bubble of Narayanan et al. sec. 2.2 ((p - 1) / (m v) for
  // uniform stages and free transfers); bubble_fraction is the largest.
  std::vector<double> stage_bubble_fraction;
  double bubble_fraction = 0;
};

// Runs every stage's order (PipelineOrder) with the pass times of `times` and `p2p_s` per transfer between
// stages: each pass starts when its stage has finished the pass before (and, with `blocking_sends`, that pass's
// send) and its dependency has finished plus p2p_s. `times` holds p entries (`times[stage]` for every chunk of
// the stage) or p v (`times[chunk p + stage]`, each virtual stage its own).
PipelineTimeline RunPipeline(PipelineSchedule schedule, int stages, int virtual_stages, int micro_batches,
                             const std::vector<StagePassTimes>& times, double p2p_s,
                             bool blocking_sends = true);

}  // namespace zerosim::model
