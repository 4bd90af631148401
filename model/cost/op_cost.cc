#include "model/cost/op_cost.h"

#include "model/cost/kernel_cost.h"

namespace zerosim::model {

LocalCostModel MakeLocalCostModel(const Schedule& s, const ClusterSpec& c, const Calibration& cal) {
  LocalCostModel m;
  m.rates = MakeComputeRates(c.gpu, cal);
  m.effective_flops = c.gpu.peak_flops * cal.compute.gemm;
  m.calibration = &cal;
  m.class_time.reserve(s.compute_classes.size());
  for (const ComputeClass& cc : s.compute_classes) {
    ComputeTime t = cc.backward ? BackwardTime(cc.work, m.rates, cc.part) : ForwardTime(cc.work, m.rates);
    if (cc.share != 1) {
      // A chunk of the pass: its share of every part (the chunks of one GEMM run the same tiles on fewer rows).
      t.gemm_s *= cc.share;
      t.attention_s *= cc.share;
      t.memory_s *= cc.share;
      t.launch_s *= cc.share;
    }
    m.class_time.push_back(t);
  }
  return m;
}

double LocalOpDuration(const Op& op, const LocalCostModel& m) {
  switch (op.kind) {
    case OpKind::kHost:
      return op.host_s;
    case OpKind::kCompute:
      if (op.compute_class >= 0) return m.class_time[static_cast<size_t>(op.compute_class)].total();
      return op.flops / m.effective_flops;
    case OpKind::kKernel:
      return KernelTime(*m.calibration, op.kernel.kernel, op.kernel.bytes);
    case OpKind::kMemory:
      return MemoryTime(*m.calibration, op.memory_bytes);
    case OpKind::kCollective:
    case OpKind::kWait:
      return 0;
  }
  return 0;
}

ComputeTime SumComputeParts(const Schedule& s, const LocalCostModel& m) {
  ComputeTime sum;
  for (const Op& op : s.ops) {
    // Memory-bound passes on the compute stream outside the optimizer (FSDP2's copy-out of the gathered
    // parameters) are compute time too: memory-bound kernels (model/analytic/analytic.cc counts them alike).
    if (op.queue == Queue::kCompute && op.phase != Phase::kOptimizer &&
        (op.kind == OpKind::kMemory || op.kind == OpKind::kKernel)) {
      sum.memory_s += LocalOpDuration(op, m);
      continue;
    }
    if (op.kind != OpKind::kCompute) continue;
    if (op.compute_class < 0) {
      sum.gemm_s += op.flops / m.effective_flops;
      continue;
    }
    const ComputeTime& t = m.class_time[static_cast<size_t>(op.compute_class)];
    sum.gemm_s += t.gemm_s;
    sum.attention_s += t.attention_s;
    sum.memory_s += t.memory_s;
    sum.launch_s += t.launch_s;
  }
  return sum;
}

}  // namespace zerosim::model
