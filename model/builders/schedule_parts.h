// Pieces every schedule builder shares (schedule_builder.cc, zero12_builder.cc, fsdp_builder.cc): the
// schedule's frame (world, graph, micro-steps), the compute classes of the module passes, the module trace
// with each parameter's last backward use, one module pass's compute op, the optimizer step and the final
// indexing. Internal to the model library.
#pragma once

#include <array>

#include <vector>

#include "model/placement/placement.h"
#include "model/builders/fetch_coordinator.h"
#include "model/builders/op_emitter.h"
#include "model/schedule/schedule.h"
#include "model/spec/model_spec.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

// A module's part in Megatron's tensor parallelism (docs/design/tensor_pipeline.md sec. 1.1-1.3): a
// column-parallel layer (QKV, fc1), a row-parallel one (attention.dense, fc2), the vocabulary-parallel
// embedding or the logit layer with its vocabulary-parallel cross-entropy.
enum class TpRole : uint8_t { kNone, kColumn, kRow, kEmbedding, kHead };

// A module's part in expert parallelism (model/schedule/module_graph.cc AddMoeMlp): the routed experts' fc1,
// before which the tokens are dispatched, and their fc2, after which they are combined.
enum class EpRole : uint8_t { kNone, kDispatch, kCombine };

struct ScheduleFrame {
  std::vector<TraceStep> trace;     // one forward + backward pass (BuildTrace)
  std::vector<int> last_backward;   // per parameter: the trace step of its last backward use (-1: none)
  std::vector<int> forward_class;   // per module: its forward pass's compute class
  std::vector<int> backward_class;  // per module: its backward pass's compute class
  // With tensor parallelism (Schedule::tensor > 1; empty otherwise): each module's TpRole, the bytes of one
  // micro-batch's hidden state X (s b h 16-bit values, every TP collective's buffer) and of the
  // cross-entropy's fp32 value per token (its three all-reduces).
  std::vector<TpRole> tp_role;
  // Per module, for the column-parallel layers and the logit layer: the compute classes of their backward's
  // input-gradient and weight-gradient parts (BackwardPart), between which the input gradient's collective
  // runs; -1 for the others.
  std::vector<int> tp_input_gradient_class;
  std::vector<int> tp_weight_gradient_class;
  // With tp_comm_overlap, per module: the compute classes of the two chunks EmitModuleCompute splits an
  // overlapped pass into (forward and backward; -1 where the pass is not overlapped): a column-parallel
  // layer's forward and a row-parallel layer's backward (ring exchange) (t - 1)/t then 1/t, a row-parallel
  // layer's forward (pipelined reduce-scatter) its first chunk then the rest.
  std::vector<std::array<int, 2>> tp_forward_chunk_class;
  std::vector<std::array<int, 2>> tp_backward_chunk_class;
  double tp_activation_bytes = 0;
  double tp_loss_bytes = 0;
  // With expert parallelism (Schedule::expert > 1; empty otherwise): each module's EpRole, and the send
  // buffer of one dispatch or combine all-to-all (the busiest rank's routed rows, 16-bit: ModuleGraph's
  // sizing).
  std::vector<EpRole> ep_role;
  double ep_buffer_bytes = 0;
  // With the allgather dispatcher (ParallelLayout::moe_token_dispatcher; parallel_layout.h MoeDispatcher),
  // per rank: the all-gathered output of the dispatch (e T x (2h + 5E) bytes: hidden states, routing map,
  // fp32 probabilities) and of the combine's gradient (e T x 2h), the reduce-scattered input of the combine
  // (e T x 2h) and of the dispatch's gradient (e T x (2h + 4E): the hidden states' and the probabilities'
  // gradients).
  double ep_gather_bytes = 0;
  double ep_gradient_scatter_bytes = 0;
  double ep_hidden_bytes = 0;
  // With context parallelism (Schedule::context > 1; empty otherwise), per module: for the attention cores
  // the compute classes of the forward's and the backward's two parts around the ring (the first (c - 1)/c,
  // the last 1/c: forward first, forward last, backward first, backward last), -1 for the others; and the
  // gathered keys and values of one micro-batch over the context-parallel group (c chunks of s/c tokens x
  // 2 kv / t 16-bit values).
  std::vector<std::array<int, 4>> cp_chunk_class;
  double cp_kv_bytes = 0;
  // ContextComm::kAllGather: the key/value gradients' fp32 ring of the backward, as a reduce-scatter buffer
  // (2 cp_kv_bytes).
  double cp_dkv_bytes = 0;
  // Per module, whether it is an attention core (context parallelism's exchanges surround it); with
  // ContextComm::kAllToAll the send buffers of Ulysses' two all-to-alls, Q K V and the output.
  std::vector<bool> cp_attention;
  double cp_qkv_bytes = 0;
  double cp_out_bytes = 0;
};

// Sets the fields every schedule takes from its ranks and its module graph: the rank shape (nodes, GPUs, t,
// sequence parallelism), the hardware queues, the micro-steps and tokens per micro-step, the graph, its
// partitioned elements and largest matrix. BeginSchedule's first step; the RLHF phases' builders call it with
// their own graphs (rlhf_schedule.cc).
void SetScheduleFrame(Schedule* s, const ZeroConfig& z, const RankShape& c, ModuleGraph graph,
                      int micro_steps, double tokens_per_micro_step);

// The index of the compute class of `work` in `s` (Schedule::compute_classes), added if new: one class per
// distinct module pass.
int ComputeClassOf(Schedule* s, const ModuleWork& work, bool backward,
                   BackwardPart part = BackwardPart::kWhole, double share = 1);

// Fills the schedule's frame fields (world size, hardware queues, micro-steps, tokens, graph, partitioned
// elements, the shard group size, the states' shards from the strategy's traits) and returns the trace and
// compute classes.
ScheduleFrame BeginSchedule(const ModelSpec& m, const ZeroConfig& z, const RankShape& c, Schedule* s);

// Emits trace step `ts`'s compute (Megatron's count: backward twice the forward, a recompute once) after
// `deps`; returns the op. With tensor parallelism also the module's TP collectives on Queue::kNcclTp, as
// Megatron-LM issues them (tensor_parallel/layers.py, mappings.py, cross_entropy.py; design sec. 1.2-1.3):
//   forward and recompute: after a row-parallel layer and the embedding an all-reduce of X (with sequence
//     parallelism a reduce-scatter), before a column-parallel layer and the logit layer an all-gather of X
//     (SP only); after the logit layer in the forward, the cross-entropy's three fp32 all-reduces;
//   backward: after a column-parallel layer and the logit layer the input gradient's all-reduce of X
//     (SP: reduce-scatter); with SP before them the re-gather of their saved input shard, and before a
//     row-parallel layer and the embedding the all-gather of the arriving gradient.
// The compute stream waits for every TP collective (Queue::kCompute Wait): the next module needs its
// result, except the backward's input-gradient collective of a column-parallel layer and of the logit
// layer: it overlaps that layer's weight-gradient GEMM, the backward being two compute ops there
// (BackwardPart), as Megatron issues it; the wait comes after the weight-gradient op.
// With expert parallelism, the routed experts' all-to-alls over the expert-parallel group on Queue::kNcclEp,
// as Megatron-Core's MoEAlltoAllTokenDispatcher issues them (token_dispatcher.py token_dispatch /
// token_combine; docs/design/moe_cp_sources.md (c)): the dispatch before fc1 and the combine after fc2 in the
// forward and its recompute, the combine's gradient before fc2 and the dispatch's after fc1 in the backward,
// each T k rho h 16-bit values, the compute stream waiting for each. Its small companions (the routing
// probabilities' all-to-all, the all-gather of the per-expert counts and the device-to-host sync they need)
// are not emitted.
// With context parallelism, each attention core's key/value ring on Queue::kNcclCp over the context-parallel
// group (TransformerEngine's AttnFuncWithCPAndKVP2P, cp_comm_type "p2p"): c - 1 steps, each rank sending the
// chunk it holds on while the kernel runs on the one it has; as ops, the keys' and values' all-gather (the
// ring's bytes and steps) beside the first (c - 1)/c of the kernel, its last 1/c after it. The backward
// sends the key/value gradients round the ring too: a reduce-scatter after the all-gather on the same queue,
// both beside the first (c - 1)/c (the last step's gradient send after the last chunk is not resolved).
// With DeepSpeed-Ulysses' all-to-alls instead (ContextComm::kAllToAll; deepspeed/sequence/layer.py
// DistributedAttention, TE's AttnFuncWithCPAndQKVOA2A): an all-to-all of Q, K and V before the attention core
// and one of its output after it (the backward: the output's gradient before, Q, K and V's after), each over
// the context-parallel group on Queue::kNcclCp, the compute stream waiting for each.
// With PyTorch's all-gather rotation (ContextComm::kAllGather; torch/distributed/tensor/experimental/
// _attention.py _templated_ring_attention with _AllGatherRotater): the keys' and values' all-gather beside
// the first sub-attention, on the rank's own chunks (1/c of the kernel), the other c - 1 after the compute
// stream waits for it; the backward gathers them again the same way, then passes the fp32 key/value gradients
// round the ring (its dkv_rotater, an all_to_all permute per step) beside the last (c - 1)/c: one
// reduce-scatter of 2 cp_kv_bytes in 4-byte elements, which the compute stream waits for after the kernel.
// The per-step kernels are timed as two parts (their c launches and the merges of the partial outputs and
// log-sum-exps, _SDPAMerger, are not emitted).
int EmitModuleCompute(const Schedule& s, const ScheduleFrame& f, const TraceStep& ts, OpEmitter* emit,
                      std::initializer_list<int> deps);

// The parameters whose gradients are final at trace step `step` (their last backward use), into `out`.
void ReadyGradients(const Schedule& s, const ScheduleFrame& f, int step, std::vector<int>* out);

// The optimizer step: fused Adam over the rank's 1 / optimizer_shards of the parameters, on the compute
// stream (AdamStepBytesPerParam per element: 28 bytes in mixed precision, precision.h); returns the op.
int EmitOptimizerStep(const ZeroConfig& z, Schedule* s, OpEmitter* emit);

// Compacts the ops (Schedule::compact; the last step of every builder).
void FinishSchedule(Schedule* s);

}  // namespace zerosim::model
