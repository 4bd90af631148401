// GradientReducer: emulates DeepSpeed stage 3's gradient path (v0.10, deepspeed/runtime/zero/stage3.py
// reduce_independent_p_g_buckets_and_remove_grads and __reduce_and_partition_ipg_grads), emitting the
// reduction ops on the reduce stream.
//
// As each module's backward produces its gradients: if the bucket would exceed `reduce_bucket_size`
// elements, reduce the bucket first; then the reduce stream waits for the compute stream and copies the
// gradient into the bucket buffer. Reducing a bucket first blocks the host on the oldest reduction when
// more than `max_param_reduce_events` are outstanding, then:
//  - ZeRO-3: one reduce-scatter of the whole bucket over all ranks (reduce_scatter_coalesced);
//  - qgZ with more than one node (all_to_all_quant_reduce), per tensor in ds_id order: 1-D tensors by
//    their own reduce-scatter on the world group; matrices by swizzled int4 quantization, intra-node
//    all-to-all of codes and of scales, fused dequantize-reduce-requantize over the N local inputs,
//    inter-node all-to-all of codes and of scales among same-local-rank GPUs, dequantization, and the
//    final sum over the K node chunks (PyTorch adds).
// At the end of the backward pass the last bucket is reduced and the host waits for the reduce stream.
//
// The same path serves the strategies built on DeepSpeed's bucketed reduction:
//  - ZeRO-2 (stage_1_and_2.py average_tensor: the bucket reduced to each rank's partition, which ZeroSim
//    counts as one reduce-scatter of the bucket); without overlap_comm (DeepSpeed's default for stages 1
//    and 2) it runs on the default stream, so compute waits for every bucket;
//  - ZeRO-1 (stage_1_and_2.py reduce_gradients): the same buckets, fed once after the last backward;
//  - MiCS (mics.py MiCS_Optimizer): the reduce-scatter spans the shard group (dp_process_group is
//    param_shard_group) and, at the accumulation boundary, partition_grads all-reduces the bucket's
//    gradient partitions across the replication group (allreduce_mics_shard_grads).
#pragma once

#include <vector>

#include "model/schedule/module_graph.h"
#include "model/builders/op_emitter.h"
#include "model/spec/zero_config.h"

namespace zerosim::model {

class GradientReducer {
 public:
  GradientReducer(const ModuleGraph& g, const ZeroConfig& z, int nodes, int gpus_per_node, OpEmitter* emit);

  // The backward compute op `compute_op` has produced the final gradients of `params` (a parameter used
  // twice, like a tied embedding, is ready after its last backward use: autograd accumulates both
  // contributions before its gradient hook fires).
  void OnGradientsReady(const std::vector<int>& params, int compute_op);
  // independent_gradient_partition_epilogue: reduce what is left, then the host waits for the reductions.
  void Epilogue();
  // Whether the current micro-step ends the accumulation (MiCS all-reduces across replicas only then).
  void SetAccumulationBoundary(bool boundary) { boundary_ = boundary; }
  // Megatron-Core's bucket rule (param_and_grad_buffer.py): a parameter joins the bucket, which is reduced
  // once it holds reduce_bucket_size elements or more, instead of DeepSpeed's (reduce first when the next
  // parameter would overflow it).
  void CloseBucketsAtSize() { close_at_size_ = true; }
  // Expert parallelism (Schedule::expert > 1): the routed experts' gradients (Param::expert) are
  // reduce-scattered over their expert-data-parallel group (GroupKind::kExpertData, `expert_data_parallel`
  // ranks), the rest of each bucket over the data-parallel group, as
  // Megatron-Core's DDP keeps the experts in buffers of their own (distributed_data_parallel.py,
  // docs/design/moe_cp_sources.md (d)). ZeRO-1/2 only (CheckModelled).
  void ReduceExpertsOver(int expert_data_parallel) { expert_partitions_ = expert_data_parallel; }

 private:
  void ReduceBucket();
  void ReduceMatrixQuantized(int param);
  void FlushCopies();

  const ModuleGraph& g_;
  const ZeroConfig& z_;
  int nodes_;
  int gpus_per_node_;
  OpEmitter* emit_;
  std::vector<int> bucket_;
  double bucket_elements_ = 0;
  double pending_copy_bytes_ = 0;
  std::vector<int> reduce_events_;
  int partitions_ = 1;  // ranks the gradients are partitioned over (P, or MiCS's shard size)
  GroupKind group_ = GroupKind::kGlobal;  // the reduce-scatter's group
  bool block_compute_ = false;            // no overlap_comm: the default stream waits for each reduction
  bool boundary_ = true;
  bool close_at_size_ = false;
  int expert_partitions_ = 0;  // 0: no expert parallelism
};

}  // namespace zerosim::model
