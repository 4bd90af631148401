#include "model/schedule/schedule.h"

#include <fmt/format.h>

namespace zerosim::model {

const char* QueueName(Queue q) {
  switch (q) {
    case Queue::kHost:
      return "host";
    case Queue::kCompute:
      return "compute";
    case Queue::kAllGatherStream:
      return "allgather_stream";
    case Queue::kReduceStream:
      return "reduce_stream";
    case Queue::kNcclDp:
      return "nccl_dp";
    case Queue::kNcclWorld:
      return "nccl_world";
    case Queue::kNcclHpz:
      return "nccl_hpz";
    case Queue::kNcclLocal:
      return "nccl_local";
    case Queue::kNcclCrossNode:
      return "nccl_cross_node";
    case Queue::kNcclTp:
      return "nccl_tp";
    case Queue::kCount:
      break;
  }
  return "?";
}

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kForward:
      return "fwd";
    case Phase::kRecompute:
      return "recompute";
    case Phase::kBackward:
      return "bwd";
    case Phase::kOptimizer:
      return "step";
  }
  return "?";
}

const char* PurposeName(Purpose p) {
  switch (p) {
    case Purpose::kNone:
      return "none";
    case Purpose::kForwardAllGather:
      return "forward_allgather";
    case Purpose::kBackwardAllGather:
      return "backward_allgather";
    case Purpose::kGradientReduce:
      return "gradient_reduce";
    case Purpose::kTensorParallel:
      return "tensor_parallel";
  }
  return "?";
}

const char* CollectiveKindName(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kAllReduce:
      return "all_reduce";
  }
  return "?";
}

const char* GroupKindName(GroupKind g) {
  switch (g) {
    case GroupKind::kGlobal:
      return "global";
    case GroupKind::kHpz:
      return "hpz";
    case GroupKind::kLocal:
      return "local";
    case GroupKind::kCrossNode:
      return "cross_node";
    case GroupKind::kShard:
      return "shard";
    case GroupKind::kReplica:
      return "replica";
    case GroupKind::kShardCrossNode:
      return "shard_cross_node";
    case GroupKind::kTensor:
      return "tensor";
    case GroupKind::kPipeline:
      return "pipeline";
    case GroupKind::kEmbedding:
      return "embedding";
    case GroupKind::kCount:
      break;
  }
  return "?";
}

std::vector<CompactOp> CompactOps(const std::vector<Op>& ops, size_t num_collective_classes) {
  const auto compute_base = static_cast<int32_t>(kCompactRateCollectives + num_collective_classes);
  std::vector<CompactOp> out;
  out.reserve(ops.size());
  for (const Op& op : ops) {
    CompactOp c;
    c.kind = op.kind;
    c.queue = op.queue;
    c.occupies_gpu = op.occupies_gpu;
    c.optimizer = op.phase == Phase::kOptimizer;
    c.num_deps = op.num_deps;
    c.deps = op.deps;
    switch (op.kind) {
      case OpKind::kHost:
        c.rate = kCompactRateHost;
        c.amount = op.host_s;
        break;
      case OpKind::kCompute:
        if (op.compute_class >= 0) {
          c.rate = compute_base + op.compute_class;
        } else {
          c.rate = kCompactRateCompute;
          c.amount = op.flops;
        }
        break;
      case OpKind::kKernel:
        c.rate = kCompactRateKernels + static_cast<int32_t>(op.kernel.kernel);
        c.amount = op.kernel.bytes;
        break;
      case OpKind::kMemory:
        c.rate = kCompactRateMemory;
        c.amount = op.memory_bytes;
        break;
      case OpKind::kCollective:
        c.rate = kCompactRateCollectives + op.coll.collective_class;
        break;
      case OpKind::kWait:
        c.rate = kCompactRateWait;
        break;
    }
    out.push_back(c);
  }
  return out;
}

void ClassifyCollective(Schedule* s, CollectiveSpec* coll) {
  if (coll->group == GroupKind::kHpz)
    s->hpz_group_size = coll->group_size;  // the replay's placement reads it
  for (const CollectiveSpec& k : s->collective_classes) {
    if (k.SameCollective(*coll)) {
      coll->collective_class = k.collective_class;
      return;
    }
  }
  coll->collective_class = static_cast<int>(s->collective_classes.size());
  s->collective_classes.push_back(*coll);
}

std::string DescribeOp(const Schedule& s, int index) {
  const Op& op = s.ops[static_cast<size_t>(index)];
  const std::string module =
      op.module >= 0 ? s.graph.modules[static_cast<size_t>(op.module)].name : std::string("-");
  std::string what;
  switch (op.kind) {
    case OpKind::kHost:
      what = "host";
      break;
    case OpKind::kCompute:
      what = "compute";
      break;
    case OpKind::kKernel:
      what = KernelName(op.kernel.kernel);
      break;
    case OpKind::kMemory:
      what = "memory";
      break;
    case OpKind::kCollective:
      what = fmt::format("{}({})", CollectiveKindName(op.coll.kind), GroupKindName(op.coll.group));
      break;
    case OpKind::kWait:
      what = "wait";
      break;
  }
  return fmt::format("{} {} {}", PhaseName(op.phase), module, what);
}

}  // namespace zerosim::model
