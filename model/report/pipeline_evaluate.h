// Pipeline parallelism (issue 22 items 2 and 4; docs/design/tensor_pipeline.md sec. 2): a layout of p > 1
// stages is evaluated as its stages' own schedules composed by the pipeline schedule, by either engine
// (engine.h Engine: each stage's schedule timed on its nodes, the sends between stages).
//
//  1. Each stage is a slice of the model (StageModel: its layers of the split, L / p or, with the embedding
//     and the loss counted as layers, one fewer on the first and the last stage: model/spec/pipeline_split.h;
//     the embedding on the first stage, the final norm and logit layer on the last) trained by one stage's t
//     d ranks on the nodes it holds (StageCluster: stages hold whole nodes, model/spec/feasibility.h), with
//     the layout's tensor parallelism and the data-parallel strategy over its d ranks. Its schedule is the
//     ordinary one (BuildSchedule) with the iteration's m = gradient_accumulation_steps micro-batches run
//     back to back, timed by the engine on the stage's nodes (the replay: TP and DP traffic contending on the
//     stage's ports): the serial time T_i, its data-parallel traffic and its memory. The middle stages are
//     alike: one stands for them all.
//  2. From that schedule's timeline, the stage's pass times: f_i and b_i, the mean span of one micro-batch's
//     forward and of its backward (recompute included) on the compute stream, from its first compute op's
//     start to its last's end (tensor-parallel collectives the compute waits for included).
//  3. RunPipeline (model/builders/pipeline_schedule.h) executes the schedule's orders with each chunk's
//     passes f_i and b_i times its share of the stage's compute-stream op time (ChunkShares: its blocks', the
//     embedding's on the first chunk, the final norm's, logit layer's and loss's on the last; 1/v for equal
//     chunks without either end) and one point-to-point time per activation (or gradient) send (the
//     engine's: P2pSeconds, or the replay of one steady-state exchange on the whole cluster): the bubble, the
//     flush and the chunks in flight come out of the orders.
//  4. Stage i's iteration is its pipeline finish + what its serial schedule spends beyond its passes
//     (T_i - m (f_i + b_i): the data-parallel reduction left after the last backward, the optimizer, the
//     host's per-step work); the iteration is the slowest stage's. Its idle time in the pipeline is the
//     report's pipeline_bubble_s.
// Memory is the binding stage's: its slice's states over its data-parallel group, and the saved activations
// of the chunks it holds in flight (model/report/memory.h PipelineResidency). Volumes are the stages' summed,
// plus the point-to-point bytes (bytes.*.pipeline).
//
// The tied logit layer's gradient all-reduce between the first and last stage ends their iterations
// (EmbeddingSyncTraffic, timed by NCCL's cost model in both engines; its bytes among bytes.*.pipeline).
//
// Not modelled (docs/inputs.md): Megatron's cross-stage gradient-norm all-reduce before the
// optimizer, contention between stages on the fabric's spine and between point-to-point sends and the
// stage's own collectives, and in the replay the stages' traffic and the sends sharing links with one another
// (each is replayed on its own platform) and perturbations (sim::NotReplayed refuses them).
#pragma once

#include <string>
#include <vector>

#include "model/analytic/analytic.h"
#include "model/cost/placed_collectives.h"
#include "model/report/engine.h"
#include "model/report/report.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/configuration.h"
#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/zero_config.h"
#include "model/status.h"

namespace zerosim::model {

class ScheduleCache;

// Stage `stage` (0 <= stage < p) of `m` split into l.pipeline stages: StageLayers (pipeline_split.h) layers,
// has_embedding on stage 0, has_head on stage p - 1 (Megatron's GPTModel pre_process / post_process).
// Precondition: CheckPipelineSplit accepts the layout.
ModelSpec StageModel(const ModelSpec& m, const ParallelLayout& l, int stage);

// The nodes one stage holds: `c` with nodes / p nodes (stages hold whole nodes, consecutive in the tp-dp-pp
// rank order: placement.h). Precondition: StagesAlignWithNodes.
ClusterSpec StageCluster(const ClusterSpec& c, const ParallelLayout& l);

// Bytes of one point-to-point send between stages per rank: a micro-batch's activation (or its gradient)
// b s h in the model's 16-bit dtype, / t per tensor-parallel rank: sequence parallelism sends the rank's
// s / t shard (Megatron-core p2p_communication.py), and without it Megatron's scatter-gather optimization
// sends 1 / t and all-gathers inside the node (Narayanan et al. 2021 sec. 4.1; the all-gather is not timed).
double P2pBytes(const ModelSpec& m, const ZeroConfig& z, const ParallelLayout& l);

// The traffic of one send of `bytes` per rank from a stage to the next when every rank of the stage's nodes
// sends at once (the 1F1B steady state), as one network step: the node's NICs carry the node's GPUs' sends,
// and the fat-tree leaves' uplinks those of the nodes whose peer is under another leaf.
Traffic P2pTraffic(double bytes, const ClusterSpec& c, const ParallelLayout& l);

// The tied logit layer's gradient all-reduce between the first and the last stage (Megatron-LM
// finalize_model_grads.py _allreduce_word_embedding_grads over the embedding group, once per iteration after
// the data-parallel reduction): V / t x h elements in the gradient's reduce format per rank, a two-rank ring
// across nodes, every rank of the two stages at once. Empty (no bytes) without tied embeddings or a pipeline.
Traffic EmbeddingSyncTraffic(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                             const ParallelLayout& l);

// Its time alone on the fabric: NCCL's cost model (collective_time.h, the fastest protocol).
double P2pSeconds(double bytes, const ClusterSpec& c, const ParallelLayout& l);

// The memory per GPU of the pipelined layout `l` with `micro_batches` per iteration: the fullest stage's,
// each distinct stage (the first, a middle one, the last) its slice's states on its nodes and the saved
// activations of the chunks it holds in flight (MaxChunksInFlight of the layout's schedule). `cache`
// (optional) holds the stages' schedules.
MemoryBreakdown PipelineMemory(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c,
                               const ParallelLayout& l, int micro_batches, ScheduleCache* cache = nullptr);

// The report of the pipelined layout `v.layout` (p > 1) timed by `engine` (Time with the timeline, on the
// stage's nodes; SendSeconds): steps 1-4 above. `cache` (optional) holds the stages' schedules. Errors: the
// engine's, naming the stage or the sends. Preconditions: model/spec/validate.h's Validate found no problem.
StatusOr<VariantReport> ComposePipeline(const std::string& name, const Configuration& v, Engine& engine,
                                        ScheduleCache* cache = nullptr);

// The analytic engine's report of a pipelined layout (v.layout.pipeline > 1). `cache` (optional) holds the
// stages' schedules. Preconditions: model/spec/validate.h's Validate found no problem.
VariantReport EvaluatePipelineVariant(const std::string& name, const Configuration& v,
                                      ScheduleCache* cache = nullptr);

}  // namespace zerosim::model
