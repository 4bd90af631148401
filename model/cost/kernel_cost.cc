#include "model/cost/kernel_cost.h"

namespace zerosim::model {

double KernelBytes(Kernel kernel, double elements, int bits, double group_size, int fan_in) {
  const double code_bytes = bits / 8.0;
  const double scale_bytes = 4.0 / group_size;
  const double value_bytes = 2.0;
  switch (kernel) {
    case Kernel::kQuantizeInt8:
    case Kernel::kDequantizeInt8:
    case Kernel::kQuantizeInt4:
    case Kernel::kDequantizeInt4:
    case Kernel::kSwizzleQuantizeInt4:
      return elements * (value_bytes + code_bytes + scale_bytes);
    case Kernel::kDequantReduceQuantInt4:
      return elements * (fan_in + 1) * (code_bytes + scale_bytes);
    case Kernel::kDequantReduceInt4:
      return elements * (fan_in * (code_bytes + scale_bytes) + value_bytes);
    case Kernel::kCount:
      break;
  }
  return 0;
}

double KernelTime(const Calibration& cal, Kernel kernel, double bytes) {
  const KernelFit& fit = cal.fit(kernel);
  return fit.alpha_s + bytes / fit.beta_Bps;
}

double MemoryTime(const Calibration& cal, double bytes) { return bytes / cal.copy_Bps; }

}  // namespace zerosim::model
