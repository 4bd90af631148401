// Feasibility: the one place that decides whether a configuration (model, ZeRO settings, cluster) can
// be evaluated, and why not. Loaders turn the problems into "file:line: key: message" errors (a topology
// whose NICs do not divide its GPUs), studies turn them into infeasible rows (a sweep point whose nodes do
// not fill its fat-tree leaves), and every evaluation path checks them before building a schedule, so no
// engine ever sees a configuration that would divide by zero, overflow an int or exhaust memory. The rules
// are here; their order, and the one call every path makes, is model/spec/validate.h's Validate.
//
// The limits below are ZeroSim's, not the hardware's: they keep every count inside 32-bit ints (products
// included: nodes * gpus_per_node, layers * modules) and a schedule's memory within a workstation's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

// Single-value limits, enforced by the loaders and the sweep axes as ranges (so that every product below
// stays well inside int32).
inline constexpr int64_t kMaxNodes = 65536;
inline constexpr int64_t kMaxGpusPerNode = 1024;
inline constexpr int64_t kMaxGpus = 1048576;  // nodes * gpus_per_node; 2^20, about 10x today's largest jobs
inline constexpr int64_t kMaxLayers = 100000;
inline constexpr int64_t kMaxWidth = 1 << 20;  // hidden, ffn_hidden (elements per row)
inline constexpr int64_t kMaxVocab = 1 << 26;
inline constexpr int64_t kMaxSequence = 1 << 24;    // seq_len, max_position_embeddings
inline constexpr int64_t kMaxMicroBatch = 1 << 20;  // sequences per GPU per micro-step
inline constexpr int64_t kMaxGradientAccumulation = 1 << 16;

// A schedule holds every op of one iteration (model/schedule/schedule.h: an Op is about 200 bytes, its
// compact copy 32): this many ops is about 2.5 GB, the most ZeroSim builds.
inline constexpr double kMaxScheduleOps = 1e7;

// Why a configuration cannot be evaluated, attributed to the input key that decides it. `key` is dotted
// as the input files spell it: "nodes", "nic.count", "fabric.nodes_per_leaf", "fabric.leaves_per_pod",
// "zero_hpz_partition_size", "seq_len", "gradient_accumulation_steps", "layers", "heads", ...
// `kind` says who acts on it: kInput, the configuration's own inputs (loaders: an error); kCalibration,
// the calibration file lacks what the configuration runs (loaders: an error naming that file);
// kNotModelled, valid input the engines do not model yet (loaders accept it; the evaluation reports the
// variant infeasible with the reason).
enum class ProblemKind { kInput, kCalibration, kNotModelled };
struct Problem {
  std::string key;
  std::string message;
  ProblemKind kind = ProblemKind::kInput;
};

// The cluster alone: sizes within the limits, a GPU with SMs, NICs that divide the GPUs of a node into equal
// rails (at most one NIC per GPU), an NVLink domain's trays that split its GPUs and its NICs evenly
// ("intra_node.trays", "nic.count"), nodes that fill whole fat-tree leaves and pods.
std::vector<Problem> CheckCluster(const ClusterSpec& c);

// The model alone: sizes within the limits, heads that divide the hidden size.
std::vector<Problem> CheckModel(const ModelSpec& m);

// The ZeRO settings against the cluster: an hpZ partition that divides the GPUs per node, non-negative
// event limits.
std::vector<Problem> CheckZero(const ZeroConfig& z, const ClusterSpec& c);

// The number formats (model/spec/precision.h) against the cluster: FP8 GEMMs need a GPU with an FP8 peak; the
// FP8 weight all-gather needs FP8 GEMMs and excludes qwZ; bf16 optimizer states need bf16 master weights.
// Part of CheckZero.
std::vector<Problem> CheckPrecision(const ZeroConfig& z, const ClusterSpec& c);

// The ZeRO (CheckZero) and training settings against the cluster and the model: an hpZ partition that divides
// the GPUs per node, a sequence within the position embeddings, counts within the limits, and a schedule of
// at most kMaxScheduleOps ops (the message gives the estimate).
std::vector<Problem> CheckTraining(const ModelSpec& m, const ZeroConfig& z, const ClusterSpec& c);

// The parallel layout (model/spec/parallel_layout.h) against the model, the ZeRO settings and the cluster
// (docs/design/tensor_pipeline.md sec. 5 step 1), each rule after Megatron-LM's or DeepSpeed's asserts: t p
// divides the GPUs; t divides the heads, the key/value heads, ffn_hidden and, with sequence_parallel,
// seq_len; t divides gpus_per_node (or, with tensor_across_nodes, is a multiple of it); p v divides the
// layers (CheckPipelineSplit: with the embedding and the loss counted where the layout says); virtual_stages
// > 1 needs pipeline > 1, the interleaved schedule and gradient_accumulation_steps a multiple of p; no
// ZeRO-2/3 with pipeline > 1 under DeepSpeed; no hpZ or qgZ with tensor > 1; a shard group divides d. Keys:
// "tensor", "pipeline", "virtual_stages", "schedule", "sequence_parallel", or the ZeRO/training key.
// Preconditions: CheckCluster, CheckModel and CheckTraining found nothing.
std::vector<Problem> CheckLayout(const ParallelLayout& l, const ModelSpec& m, const ZeroConfig& z,
                                 const ClusterSpec& c);

// What the engines model of a valid layout (issue 22): tensor parallelism (steps 3-4) under every strategy (MiCS's
// and HSDP's shard groups inside one TP rank's data-parallel group, issue 36); pipeline parallelism under
// DeepSpeed's zero1 and FSDP2 (both engines; the SimGrid replay refuses perturbations with p > 1,
// sim/sim_evaluate.h); not FSDP1's strategies with p > 1, not the RLHF phases (`rlhf`) with t > 1 or p > 1. Anything else is a kNotModelled problem (an infeasible result with the
// reason), never evaluated as data parallel: a scenario with such a layout loads, and its variants' reports
// say why they were not evaluated.
std::vector<Problem> CheckModelled(const ParallelLayout& l, const ZeroConfig& z, bool rlhf);

// What the engines model of a mixture-of-experts model (model_spec.h `experts`): tensor = 1; expert
// parallelism under zero1 and zero2 (whole parameters, sharded states: Megatron-Core's distributed
// optimizer), without qgZ; not RLHF, torchtitan's op-level selective recompute, or virtual stages with dense
// blocks first. kNotModelled problems, as CheckModelled's. Nothing for a dense model.
std::vector<Problem> CheckMoeModelled(const ModelSpec& m, const ParallelLayout& l, const ZeroConfig& z,
                                      bool rlhf);

// Context parallelism's layout rules, part of CheckLayout (t and p already checked positive): c divides
// the data-parallel size P / (t p) of `gpus`, 2c divides the sequence (Megatron's causal load-balancing
// split), with sequence parallelism t divides s / c, and with context_comm "a2a" c divides each tensor rank's
// query and key/value heads. Problems at "context" and "context_comm".
std::vector<Problem> CheckContextLayout(const ParallelLayout& l, const ModelSpec& m, int64_t gpus);

// The pipeline split's rules, part of CheckLayout (p and v already checked positive; model/spec/
// pipeline_split.h): p v divides L + e + o (e, o: account_for_embedding_in_pipeline_split,
// account_for_loss_in_pipeline_split), each flag only with pipeline > 1, every chunk at least one layer; or,
// with num_layers_in_first/last_pipeline_stage, the other stages share the rest evenly and every stage's
// layers split over v (not with the flags). Problems at "pipeline", "virtual_stages" and those four keys.
std::vector<Problem> CheckPipelineSplit(const ParallelLayout& l, const ModelSpec& m);

// What the engines model of context parallelism (parallel_layout.h `context` > 1): Megatron-Core's ring
// exchange inside FlashAttention-style fused attention (attention = "flash" or "flash2") of a dense model without a
// sliding window, beside strategies without shard groups of their own (not MiCS, HSDP or hpZ) and without
// qgZ; not the RLHF phases. kNotModelled problems, as CheckModelled's. Nothing when context = 1.
std::vector<Problem> CheckContextModelled(const ModelSpec& m, const ParallelLayout& l, const ZeroConfig& z,
                                          bool rlhf);

// The kernels the configuration runs against the calibration's compute set: FP8 GEMMs need its
// `gemm_efficiency.fp8_gemm`, FlashAttention v1 its `attention_v1_*` (a zero efficiency would reach a
// division in model/cost/op_cost.cc). Problems of kind kCalibration.
std::vector<Problem> CheckCompute(const ModelSpec& m, const ZeroConfig& z, const ComputeEfficiency& compute);

// Upper estimate of the ops BuildSchedule emits for one iteration (the size check above).
double EstimateScheduleOps(const ModelSpec& m, const ZeroConfig& z);

// "key: message; key: message" (for infeasible rows).
std::string DescribeProblems(const std::vector<Problem>& problems);

}  // namespace zerosim::model
