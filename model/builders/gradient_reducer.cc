#include "model/builders/gradient_reducer.h"

#include <algorithm>
#include <cmath>

#include "model/cost/kernel_cost.h"

namespace zerosim::model {
namespace {

KernelSpec MakeKernel(Kernel kernel, double elements, int bits, double group_size, int fan_in) {
  KernelSpec k{kernel, elements, bits, group_size, fan_in, 0};
  k.bytes = KernelBytes(kernel, elements, bits, group_size, fan_in);
  return k;
}

}  // namespace

GradientReducer::GradientReducer(const ModuleGraph& g, const ZeroConfig& z, int nodes, int gpus_per_node,
                                 OpEmitter* emit)
    : g_(g), z_(z), nodes_(nodes), gpus_per_node_(gpus_per_node), emit_(emit) {
  partitions_ = emit->group_size(GroupKind::kGlobal);              // P, or the DP group's d ranks with TP
  if (TraitsOf(z.strategy).gradients == ShardOver::kShardGroup) {  // MiCS
    group_ = GroupKind::kShard;
    partitions_ = emit->group_size(GroupKind::kShard);
  }
  block_compute_ = !z.overlap_comm;
}

void GradientReducer::OnGradientsReady(const std::vector<int>& params, int compute_op) {
  bool waited = false;
  for (int p : params) {
    const double e = g_.params[static_cast<size_t>(p)].numel();
    if (!close_at_size_ && bucket_elements_ + e > z_.reduce_bucket_size && bucket_elements_ > 0) {
      FlushCopies();
      ReduceBucket();
    }
    if (!waited) {
      // __add_grad_to_ipg_bucket: the reduce stream waits for the default (compute) stream.
      emit_->Wait(Queue::kReduceStream, {compute_op});
      waited = true;
    }
    if (z_.contiguous_gradients && bucket_elements_ + e < z_.reduce_bucket_size) {
      pending_copy_bytes_ += 2.0 * 2.0 * e;  // read and write the fp16 gradient
    }
    bucket_.push_back(p);
    bucket_elements_ += e;
    if (close_at_size_ && bucket_elements_ >= z_.reduce_bucket_size) {
      FlushCopies();
      ReduceBucket();
    }
  }
  FlushCopies();
}

void GradientReducer::FlushCopies() {
  if (pending_copy_bytes_ <= 0) return;
  emit_->Memory(Queue::kReduceStream, pending_copy_bytes_, {});
  pending_copy_bytes_ = 0;
}

void GradientReducer::ReduceBucket() {
  if (bucket_.empty()) return;
  if (static_cast<int>(reduce_events_.size()) > z_.max_param_reduce_events) {
    emit_->Host(0.0, reduce_events_.front());
    reduce_events_.erase(reduce_events_.begin());
  }
  const double world = partitions_;
  // reduce_scatter_coalesced's Python loop: one slice per rank and tensor, on the host, before the call (with
  // qgZ, all_to_all_quant_reduce calls it for each 1-D tensor alone).
  if (!(z_.zero_quantized_gradients && nodes_ > 1)) {
    emit_->Host(world * static_cast<double>(bucket_.size()) * z_.runtime.host_tensor_view_s);
  }
  // communication_data_type (precision.h): the bucket is cast to it and reduced in it (stage3.py
  // __avg_scatter_grads); a wider format costs one cast pass over the bucket (read 2, write `wire`).
  const double wire = GradientReduceBytes(z_.precision);
  auto padded_bytes = [&](int p) {
    return std::ceil(g_.params[static_cast<size_t>(p)].numel() / world) * world * wire;
  };
  if (z_.zero_quantized_gradients && nodes_ > 1) {
    std::vector<int> sorted = bucket_;
    std::sort(sorted.begin(), sorted.end());
    for (int p : sorted) {
      if (g_.params[static_cast<size_t>(p)].is_matrix()) {
        ReduceMatrixQuantized(p);
      } else {
        emit_->Host(world * z_.runtime.host_tensor_view_s);
        const int rs = emit_->Collective(Queue::kNcclWorld, CollectiveKind::kReduceScatter,
                                         GroupKind::kGlobal, padded_bytes(p), wire, Purpose::kGradientReduce,
                                         {emit_->tail(Queue::kReduceStream)});
        emit_->Wait(Queue::kReduceStream, {rs});
      }
    }
  } else {
    double bytes = 0, expert_bytes = 0;
    for (int p : bucket_) {
      const bool expert = expert_partitions_ > 0 && g_.params[static_cast<size_t>(p)].expert;
      if (!expert) {
        bytes += padded_bytes(p);
      } else {
        const double e = expert_partitions_;
        expert_bytes += std::ceil(g_.params[static_cast<size_t>(p)].numel() / e) * e * wire;
      }
    }
    if (wire != 2.0) emit_->Memory(Queue::kReduceStream, (2.0 + wire) * bucket_elements_, {});
    if (bytes > 0) {
      const int rs = emit_->Collective(Queue::kNcclDp, CollectiveKind::kReduceScatter, group_, bytes, wire,
                                       Purpose::kGradientReduce, {emit_->tail(Queue::kReduceStream)});
      emit_->Wait(Queue::kReduceStream, {rs});
    }
    if (expert_bytes > 0 && expert_partitions_ > 1) {  // one rank per expert-data-parallel group: none
      const int rs = emit_->Collective(Queue::kNcclDp, CollectiveKind::kReduceScatter, GroupKind::kExpertData,
                                       expert_bytes, wire, Purpose::kGradientReduce,
                                       {emit_->tail(Queue::kReduceStream)});
      emit_->Wait(Queue::kReduceStream, {rs});
    }
    if (group_ == GroupKind::kShard && boundary_ && emit_->group_size(GroupKind::kReplica) > 1) {
      // allreduce_mics_shard_grads: the bucket's partitions (bytes / s per rank) over the replicas, on the
      // replication group's own communicator.
      const int ar = emit_->Collective(Queue::kNcclCrossNode, CollectiveKind::kAllReduce, GroupKind::kReplica,
                                       bytes / world, 2.0, Purpose::kGradientReduce,
                                       {emit_->tail(Queue::kReduceStream)});
      emit_->Wait(Queue::kReduceStream, {ar});
    }
  }
  if (block_compute_) emit_->Wait(Queue::kCompute, {emit_->tail(Queue::kReduceStream)});
  reduce_events_.push_back(emit_->tail(Queue::kReduceStream));
  bucket_.clear();
  bucket_elements_ = 0;
}

void GradientReducer::ReduceMatrixQuantized(int p) {
  const Param& param = g_.params[static_cast<size_t>(p)];
  const double e = param.numel();
  const double n = gpus_per_node_, k = nodes_;
  const int bits = z_.gradient_quantization_bits;
  const double code_bytes = bits / 8.0;
  // all_to_all_quant_reduce: intra_quant_group = max(rows, cols, world) groups over the whole tensor;
  // the reduced chunk keeps the same group size with groups / N groups.
  const double groups = std::max({static_cast<double>(param.rows), static_cast<double>(param.cols), n * k});
  const double group_size = e / groups;
  const Queue rq = Queue::kReduceStream;
  const Purpose grad = Purpose::kGradientReduce;

  emit_->Kernel(rq, MakeKernel(Kernel::kSwizzleQuantizeInt4, e, bits, group_size, 1), {});
  const int a = emit_->Collective(Queue::kNcclLocal, CollectiveKind::kAllToAll, GroupKind::kLocal,
                                  e * code_bytes, code_bytes, grad, {emit_->tail(rq)});
  const int b = emit_->Collective(Queue::kNcclLocal, CollectiveKind::kAllToAll, GroupKind::kLocal,
                                  groups * 4.0, 4.0, grad, {emit_->tail(rq)});
  emit_->Kernel(rq, MakeKernel(Kernel::kDequantReduceQuantInt4, e / n, bits, group_size, gpus_per_node_),
                {a, b});
  const int c = emit_->Collective(Queue::kNcclCrossNode, CollectiveKind::kAllToAll, GroupKind::kCrossNode,
                                  e / n * code_bytes, code_bytes, grad, {emit_->tail(rq)});
  const int d = emit_->Collective(Queue::kNcclCrossNode, CollectiveKind::kAllToAll, GroupKind::kCrossNode,
                                  groups / n * 4.0, 4.0, grad, {emit_->tail(rq)});
  emit_->Kernel(rq, MakeKernel(Kernel::kDequantizeInt4, e / n, bits, group_size, 1), {c, d});
  // sum(final_output.chunk(K)) / K: K - 1 adds of chunks of e/(N K) fp16 values (read 2, write 1),
  // then one division (read 1, write 1).
  const double chunk = e / (n * k);
  emit_->Memory(rq, chunk * 2.0 * (3.0 * (k - 1) + 2.0), {});
}

void GradientReducer::Epilogue() {
  FlushCopies();
  ReduceBucket();
  const int tail = emit_->tail(Queue::kReduceStream);
  if (tail >= 0) emit_->Host(0.0, tail);  // reduce_and_partition_stream.synchronize()
}

}  // namespace zerosim::model
