#include "model/op_cost.h"

#include "model/kernel_cost.h"

namespace zerosim::model {

LocalCostModel MakeLocalCostModel(const Schedule& s, const ClusterSpec& c, const Calibration& cal) {
  LocalCostModel m;
  m.effective_flops = c.gpu.peak_flops * GemmEfficiencyAt(cal.gemm, s.tokens_per_micro_step);
  m.calibration = &cal;
  return m;
}

double LocalOpDuration(const Op& op, const LocalCostModel& m) {
  switch (op.kind) {
    case OpKind::kHost:
      return op.host_s;
    case OpKind::kCompute:
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

}  // namespace zerosim::model
