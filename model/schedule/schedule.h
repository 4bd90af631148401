// Schedule: one training iteration of one GPU rank, as the ordered operations DeepSpeed issues. All ranks
// of a data-parallel ZeRO job run the same schedule, so one rank's schedule describes the job; collectives
// say which group of ranks they span (its kind, size and per-rank buffer). This is the one artifact both
// evaluators consume (the analytic model in analytic.h and the SimGrid replay in sim/). It is free of the
// cluster's links: it depends on the cluster only through its shape (nodes x GPUs per node, which fix the
// groups' sizes), and each engine derives where a collective's bytes go on the cluster it runs on
// (traffic.h from placement.h).
//
// Execution semantics (what an evaluator must honour):
//  - `ops` are in host issue order. Every op runs on one queue; a queue runs its ops one at a time in
//    issue order (a CUDA stream, an NCCL communicator's stream, or the host thread).
//  - An op starts when its queue is free and every op in `deps` has finished. Deps always point to
//    earlier ops, so evaluating in issue order is always possible.
//  - Kernel and memory ops with `occupies_gpu` on a side stream share the GPU with the compute stream.
//  - With `hardware_queues` == 1, every GPU op (all but host ops) also waits until the GPU op issued before
//    it has started: one hardware queue dispatches them in issue order.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/schedule/module_graph.h"
#include "model/spec/calibration.h"
#include "model/spec/parallel_layout.h"

namespace zerosim::model {

enum class Phase : uint8_t { kForward, kRecompute, kBackward, kOptimizer };

// What a collective moves, for the volume report.
// kTensorParallel: Megatron's tensor-parallel collectives of the activations and their gradients
// (docs/design/tensor_pipeline.md sec. 1.2, 1.3).
enum class Purpose : uint8_t {
  kNone,
  kForwardAllGather,
  kBackwardAllGather,
  kGradientReduce,
  kTensorParallel,
  kExpertParallel,  // an MoE block's token dispatch and combine (model/builders/schedule_parts.cc)
  kContextParallel  // context parallelism's key/value ring exchange (model/builders/schedule_parts.cc)
};
inline constexpr int kNumPurposes = 7;

enum class OpKind : uint8_t {
  kHost,        // host (Python) work or a host-side synchronisation; `host_s` long
  kCompute,     // GEMMs and attention of one module pass; `flops`
  kKernel,      // a quantization kernel; `kernel`
  kMemory,      // a memory-bound pass (gradient copy, optimizer step, PyTorch adds); `memory_bytes`
  kCollective,  // an NCCL collective; `coll`
  kWait,        // a stream waiting for other work (cudaStreamWaitEvent); zero duration
};

enum class Queue : uint8_t {
  kHost,             // the Python thread that runs DeepSpeed's hooks
  kCompute,          // the default CUDA stream: forward, backward, optimizer
  kAllGatherStream,  // DeepSpeed's __allgather_stream: quantize / dequantize kernels, gather waits
  kReduceStream,     // DeepSpeed's reduce_and_partition_stream: gradient copies and reduction
  kNcclDp,           // NCCL stream of the data-parallel group: global all-gathers, reduce-scatters
  kNcclWorld,        // NCCL stream of the default (world) group: qgZ's 1-D reduce-scatters
  kNcclHpz,          // NCCL stream of the hpZ group: secondary-partition all-gathers
  kNcclLocal,        // NCCL stream of the node-local group: qgZ hop 1 all-to-all
  kNcclCrossNode,    // NCCL stream of the same-local-rank group: qgZ hop 2 all-to-all
  kNcclTp,           // NCCL stream of the tensor-parallel group (Megatron's TP collectives; the compute
                     // stream waits for each forward one, as Megatron's synchronous calls do)
  kNcclEp,           // NCCL stream of the expert-parallel group (an MoE block's dispatch and combine
                     // all-to-alls; the compute stream waits for each, as Megatron's dispatcher does)
  kNcclCp,           // NCCL stream of the context-parallel group (the attention blocks' key/value ring,
                     // TransformerEngine's P2P stream beside the attention kernels)
  kCount,
};
inline constexpr int kNumQueues = static_cast<int>(Queue::kCount);

// kAllReduce: NCCL's ring all-reduce (a reduce-scatter then an all-gather over the same ring, 2(g-1) steps;
// NCCL src/device/all_reduce.h runRing). Over the whole cluster (kGlobal) it is timed as NCCL's tuner picks
// it (tree, NVLSTree, NVLS or ring: EstimateScheduledCollective, nccl_allreduce.h), the links carrying that
// algorithm's bytes (WireTraffic; CollectiveTraffic stays the placement's ring); over smaller groups ZeroSim
// times the ring.
enum class CollectiveKind : uint8_t { kAllGather, kReduceScatter, kAllToAll, kAllReduce };

enum class GroupKind : uint8_t {
  kGlobal,     // all P ranks; NCCL ring in node-major order
  kHpz,        // zero_hpz_partition_size consecutive ranks of one node
  kLocal,      // the N ranks of one node
  kCrossNode,  // the K ranks with the same local rank, one per node
  // Groups of strategies that shard over fewer ranks than the world (MiCS, HSDP), with s ranks per shard
  // group (Schedule::shard_group_size; s divides N or is a multiple of N dividing P):
  kShard,           // s consecutive ranks (a node-major ring; several nodes when s > N)
  kReplica,         // the P/s ranks with the same position in their shard group (one per shard group)
  kShardCrossNode,  // inside one shard group spanning s/N nodes, the ranks with the same local rank
  // Groups of expert and context parallelism (placement.h), each with its own size beside the shard group's
  // (RankGrid::expert, RankGrid::context), so they compose with the strategies' kinds above:
  kExpert,      // e consecutive ranks: an MoE block's dispatch and combine (Megatron's expert grid)
  kExpertData,  // the P/e ranks with the same position in their expert group: the routed experts' states
  kContext,     // c consecutive ranks: the attention blocks' key/value exchange (Megatron's tp-cp-dp-pp)
  // Groups of a tensor/pipeline layout (model/placement/placement.h; ranks ordered tp-dp-pp, t = p = 1 today,
  // when these are groups of one rank and the kinds above are unchanged; with t, p > 1 the kinds above live
  // inside one stage's data-parallel group):
  kTensor,     // the t consecutive ranks of one (dp, pp)
  kPipeline,   // the p ranks of one (tp, dp), in stage order
  kEmbedding,  // the first- and last-stage ranks of one (tp, dp); middle stages are in none
  kCount,
};
inline constexpr int kNumGroupKinds = static_cast<int>(GroupKind::kCount);

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::kAllGather;
  GroupKind group = GroupKind::kGlobal;
  int group_size = 0;  // ranks of one instance of `group` on the schedule's grid (placement.h GridOf)
  // Per rank: all-gather output, reduce-scatter input, all-to-all send buffer (incl. its own slice).
  double buffer_bytes = 0;
  double element_bytes = 2;  // on the wire: 2 fp16/bf16, 1 int8, 0.5 int4, 4 fp32 scales
  // Index into Schedule::collective_classes: collectives equal in every field above share it (they take the
  // same time and put the same bytes on every tier of any cluster: the engines derive both once per class).
  int collective_class = -1;
  // Equal in what the engines time and count: every field but the class index.
  bool SameCollective(const CollectiveSpec& o) const {
    return kind == o.kind && group == o.group && group_size == o.group_size &&
           buffer_bytes == o.buffer_bytes && element_bytes == o.element_bytes;
  }
};

struct KernelSpec {
  Kernel kernel = Kernel::kQuantizeInt8;
  double elements = 0;  // see KernelBytes
  int bits = 8;
  double group_size = 0;  // elements per fp32 scale
  int fan_in = 1;
  double bytes = 0;  // KernelBytes(...)
};

struct Op {
  OpKind kind = OpKind::kHost;
  Queue queue = Queue::kHost;
  Phase phase = Phase::kForward;
  Purpose purpose = Purpose::kNone;
  bool occupies_gpu = false;
  int16_t micro_step = 0;
  int32_t module = -1;  // ModuleGraph module this op serves, -1 if none
  uint8_t num_deps = 0;
  std::array<int32_t, 3> deps{};
  double host_s = 0;           // kHost
  double flops = 0;            // kCompute: Megatron's count (reporting)
  int32_t compute_class = -1;  // kCompute: index into Schedule::compute_classes (its duration); -1: `flops`
                               // of GEMM work at the GPU's GEMM rate (ops built by hand in tests)
  double memory_bytes = 0;  // kMemory
  KernelSpec kernel;        // kKernel
  CollectiveSpec coll;      // kCollective
};

// A compact copy of the ops with just what timing needs (32 bytes an op instead of ~180), built once per
// schedule by CompactOps; the analytic evaluator walks it.
struct CompactOp {
  OpKind kind = OpKind::kWait;
  Queue queue = Queue::kHost;
  bool occupies_gpu = false;
  bool optimizer = false;  // the optimizer step (reported apart from compute)
  uint8_t num_deps = 0;
  std::array<int32_t, 3> deps{};
  // Duration = rate_offset[rate] + rate_slope[rate] * amount, with the rate table built per evaluation:
  // kCompactRateWait, kCompactRateHost, kCompactRateCompute, kCompactRateMemory, then one rate per kernel
  // (kCompactRateKernels + Kernel), then one per collective class (after the kernels), then one per
  // compute class (after the collective classes).
  int32_t rate = 0;
  double amount = 0;  // host: seconds; compute: FLOPs; kernel and memory: bytes
};
inline constexpr int32_t kCompactRateWait = 0;
inline constexpr int32_t kCompactRateHost = 1;
inline constexpr int32_t kCompactRateCompute = 2;
inline constexpr int32_t kCompactRateMemory = 3;
inline constexpr int32_t kCompactRateKernels = 4;
inline constexpr int32_t kCompactRateCollectives = kCompactRateKernels + kNumKernels;
std::vector<CompactOp> CompactOps(const std::vector<Op>& ops, size_t num_collective_classes);

// What one compute op executes: a module's forward (also a recompute) or backward pass.
struct ComputeClass {
  ModuleWork work;
  bool backward = false;
  BackwardPart part = BackwardPart::kWhole;  // backward only: the whole pass, or one part (module_graph.h)
  // The share of the pass (or part) one op runs: a chunk of a linear layer's GEMM that TP communication overlap
  // runs beside its collective (schedule_parts.cc EmitModuleCompute), timed as that share of the whole; 1 else.
  double share = 1;
  bool operator==(const ComputeClass&) const = default;
};

struct Schedule {
  std::vector<Op> ops;             // issue order
  std::vector<CompactOp> compact;  // CompactOps(ops), for the evaluators (FinishSchedule builds it)
  // The distinct collectives (CollectiveSpec::SameCollective), each with its own index as collective_class:
  // the engines time each once and derive its bytes per tier from the cluster (traffic.h CollectiveTraffic).
  std::vector<CollectiveSpec> collective_classes;
  std::vector<ComputeClass> compute_classes;  // the distinct module passes of the compute ops (time once)
  ModuleGraph graph;
  // The ranks the schedule was built for (BuildSchedule's RankShape): the engines run it only on a cluster
  // of this shape, and derive every collective's placement on it (placement.h).
  int nodes = 0;
  int gpus_per_node = 0;
  int world_size = 0;  // P = nodes x gpus_per_node
  // The layout the schedule's rank runs (RankShape): tensor-parallel size t (its module graph is one TP
  // rank's: module_graph.h) and sequence parallelism.
  int tensor = 1;
  bool sequence_parallel = false;
  bool tp_comm_overlap = false;  // ParallelLayout::tp_comm_overlap
  int expert = 1;                // ParallelLayout::expert (e)
  int expert_tensor = 0;         // ParallelLayout::expert_tensor (0: t)
  double expert_load_imbalance = 1.0;  // ParallelLayout::expert_load_imbalance
  MoeDispatcher moe_token_dispatcher = MoeDispatcher::kAllToAll;  // ParallelLayout::moe_token_dispatcher
  double expert_elements =
      0;  // the local routed experts' parameters (in partitioned_elements), sharded over d/e
  int context = 1;  // ParallelLayout::context (c)
  ContextComm context_comm = ContextComm::kP2p;  // ParallelLayout::context_comm
  ParallelLayout layout() const {
    ParallelLayout l;
    l.tensor = tensor;
    l.sequence_parallel = sequence_parallel;
    l.tp_comm_overlap = tp_comm_overlap;
    l.expert = expert;
    l.expert_tensor = expert_tensor;
    l.expert_load_imbalance = expert_load_imbalance;
    l.moe_token_dispatcher = moe_token_dispatcher;
    l.context = context;
    l.context_comm = context_comm;
    return l;
  }
  // Elements of the parameters one rank holds 1/`shards` of when a state is divided over `shards` ranks of
  // the data-parallel group (1: none): the routed experts' over shards / e of them (their
  // expert-data-parallel group: Megatron-Core's distributed optimizer shards each buffer over the group it
  // reduces in, distributed_data_parallel.py; docs/design/moe_cp_sources.md (d)), the rest over `shards`.
  // Folded (ParallelLayout::expert_folded): the expert-data-parallel group holds t shards / e ranks.
  double ShardedElements(int shards) const {
    if (shards <= 1 || expert <= 1) return partitioned_elements / shards;
    return (partitioned_elements - expert_elements) / shards +
           expert_elements / layout().expert_shards(shards);
  }
  // d = P / t, the ranks the strategy shards over.
  int data_parallel_size() const { return layout().data_parallel(world_size); }
  int shard_group_size = 0;  // s of GroupKind::kShard / kReplica (MiCS, HSDP); 0 without such groups
  int hpz_group_size = 1;    // ranks of GroupKind::kHpz, as the builder declares it (OpEmitter); 1 without hpZ
  int hardware_queues = 8;   // ZeroConfig::cuda_device_max_connections (1: GPU ops dispatch in issue order)
  int micro_steps = 0;       // gradient accumulation steps
  double tokens_per_micro_step = 0;   // per GPU
  double peak_gathered_elements = 0;  // most parameter elements gathered at once (DeepSpeed's n_available)
  // The bytes of that peak where the gathered parameters are not all in the model's dtype (FSDP2 with the
  // FP8 all-gather: fsdp_builder.cc); 0: peak_gathered_elements x the dtype's bytes.
  double peak_gathered_bytes = 0;
  double persistent_elements = 0;      // parameters that never leave the GPU (below persistence threshold)
  double partitioned_elements = 0;     // all parameters (each rank holds 1/P of them)
  double largest_matrix_elements = 0;  // the biggest 2-D parameter
  // How the strategy partitions the model states (memory.h): ranks the fp16/bf16 parameters, the gradients
  // and the optimizer states are each divided over (1: replicated on every GPU).
  int param_shards = 1;
  int gradient_shards = 1;
  int optimizer_shards = 1;
  double reduce_buffer_elements = 0;  // gradient elements held for reduction beside the partition (a bucket,
                                      // or FSDP's unsharded gradient of the largest unit)
  // Unsharded gradients kept across the micro-batches, in bytes (FSDP2 in a pipeline stage: no gradient
  // sync until the last backward, fsdp_builder.cc); 0 otherwise.
  double accumulated_gradient_bytes = 0;
};

// Sets `coll->collective_class` to the class of `s` equal to it (CollectiveSpec::SameCollective), adding the
// class when `s` has none yet. OpEmitter calls it for every collective it emits; schedules built by hand (tests)
// call it too. It reads nothing into the schedule's group sizes: the builder declares those.
void ClassifyCollective(Schedule* s, CollectiveSpec* coll);

// A short human-readable name of op `index`, e.g. "fwd L3 mlp.dense_h_to_4h all_gather(global)".
std::string DescribeOp(const Schedule& s, int index);

const char* QueueName(Queue q);
const char* PhaseName(Phase p);
const char* PurposeName(Purpose p);
const char* CollectiveKindName(CollectiveKind k);
const char* GroupKindName(GroupKind g);

}  // namespace zerosim::model
