#include "model/builders/op_emitter.h"

#include <algorithm>
#include <cassert>

#include "model/placement/placement.h"

namespace zerosim::model {

OpEmitter::OpEmitter(Schedule* s, int hpz_size) : s_(s) {
  std::fill(std::begin(tail_), std::end(tail_), -1);
  s_->hpz_group_size = hpz_size;  // the builder's declaration: the group the replay places kHpz's rings in
}

int OpEmitter::group_size(GroupKind g) const {
  // One TP rank's groups: the data-parallel kinds inside its DP group (placement.h, tp-dp-pp order; at t = 1
  // the whole cluster), on the grid the engines place the schedule's collectives on.
  return GroupSize(g, GridOf(*s_));
}

int OpEmitter::Append(Op op, std::initializer_list<int> deps) {
  op.phase = phase_;
  op.micro_step = static_cast<int16_t>(micro_step_);
  op.module = module_;
  const int host = tail(Queue::kHost);
  auto add_dep = [&op](int d) {
    if (d < 0) return;
    for (int i = 0; i < op.num_deps; ++i) {
      if (op.deps[static_cast<size_t>(i)] == d) return;
    }
    assert(op.num_deps < op.deps.size());
    op.deps[op.num_deps++] = d;
  };
  if (op.queue != Queue::kHost) add_dep(host);
  for (int d : deps) {
    if (d != tail(op.queue)) add_dep(d);  // the queue's own order already covers its tail
  }
  const int index = static_cast<int>(s_->ops.size());
  s_->ops.push_back(op);
  tail_[static_cast<int>(op.queue)] = index;
  return index;
}

int OpEmitter::Host(double seconds, int dep) {
  // Host work of no duration that waits for nothing changes no time: later ops depend on the host's
  // previous op instead, which finishes at the same moment.
  if (seconds == 0 && dep < 0) return tail(Queue::kHost);
  Op op;
  op.kind = OpKind::kHost;
  op.queue = Queue::kHost;
  op.host_s = seconds;
  return Append(op, {dep});
}

int OpEmitter::Compute(double flops, int compute_class, std::initializer_list<int> deps) {
  Op op;
  op.kind = OpKind::kCompute;
  op.queue = Queue::kCompute;
  op.flops = flops;
  op.compute_class = compute_class;
  return Append(op, deps);
}

int OpEmitter::Kernel(Queue q, const KernelSpec& k, std::initializer_list<int> deps) {
  Op op;
  op.kind = OpKind::kKernel;
  op.queue = q;
  op.kernel = k;
  op.occupies_gpu = true;
  return Append(op, deps);
}

int OpEmitter::Memory(Queue q, double bytes, std::initializer_list<int> deps) {
  Op op;
  op.kind = OpKind::kMemory;
  op.queue = q;
  op.memory_bytes = bytes;
  op.occupies_gpu = true;
  return Append(op, deps);
}

int OpEmitter::Wait(Queue q, std::initializer_list<int> deps) {
  Op op;
  op.kind = OpKind::kWait;
  op.queue = q;
  return Append(op, deps);
}

int OpEmitter::Collective(Queue q, CollectiveKind kind, GroupKind group, double buffer_bytes,
                          double element_bytes, Purpose purpose, std::initializer_list<int> deps) {
  Op op;
  op.kind = OpKind::kCollective;
  op.queue = q;
  op.purpose = purpose;
  op.coll.kind = kind;
  op.coll.group = group;
  op.coll.group_size = group_size(group);
  op.coll.buffer_bytes = buffer_bytes;
  op.coll.element_bytes = element_bytes;
  ClassifyCollective(s_, &op.coll);
  return Append(op, deps);
}

}  // namespace zerosim::model
