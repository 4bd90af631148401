#include "model/schedule/schedule.h"

#include <array>

#include <fmt/format.h>

#include "model/enum_names.h"

namespace zerosim::model {

namespace {

constexpr std::array<const char*, kNumQueues> kQueueNames = {
    "host",     "compute",    "allgather_stream", "reduce_stream", "nccl_dp", "nccl_world",
    "nccl_hpz", "nccl_local", "nccl_cross_node",  "nccl_tp",       "nccl_ep", "nccl_cp"};
constexpr std::array<const char*, 4> kPhaseNames = {"fwd", "recompute", "bwd", "step"};
constexpr std::array<const char*, kNumPurposes> kPurposeNames = {"none",
                                                                 "forward_allgather",
                                                                 "backward_allgather",
                                                                 "gradient_reduce",
                                                                 "tensor_parallel",
                                                                 "expert_parallel",
                                                                 "context_parallel"};
constexpr std::array<const char*, 4> kCollectiveKindNames = {"all_gather", "reduce_scatter", "all_to_all",
                                                             "all_reduce"};
constexpr std::array<const char*, 13> kGroupKindNames = {
    "global", "hpz",         "local",   "cross_node", "shard",    "replica",  "shard_cross_node",
    "expert", "expert_data", "context", "tensor",     "pipeline", "embedding"};
static_assert(static_cast<size_t>(Phase::kOptimizer) + 1 == kPhaseNames.size());
static_assert(static_cast<size_t>(CollectiveKind::kAllReduce) + 1 == kCollectiveKindNames.size());
static_assert(static_cast<size_t>(GroupKind::kEmbedding) + 1 == kGroupKindNames.size());

}  // namespace

const char* QueueName(Queue q) { return NameOf(kQueueNames, q); }

const char* PhaseName(Phase p) { return NameOf(kPhaseNames, p); }

const char* PurposeName(Purpose p) { return NameOf(kPurposeNames, p); }

const char* CollectiveKindName(CollectiveKind k) { return NameOf(kCollectiveKindNames, k); }

const char* GroupKindName(GroupKind g) { return NameOf(kGroupKindNames, g); }

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
