// The kernel microbenchmark behind `zerosim calibrate`: times each quantization kernel (model::Kernel)
// over a geometric range of sizes on the current CUDA device, with the device-to-device copy as the
// ceiling. C++17 (nvcc compiles the implementation, bench/kernel_bench.cu).
//
// Method: CUDA events around every launch; `warmup` untimed calls, then the median of `repetitions` timed
// ones. Inputs and outputs rotate over at least 4 x L2 of device memory and L2 is flushed after the inputs
// are written, so every call reads from DRAM. Bytes per call are model::KernelBytes, the contract the
// simulator's t = alpha + bytes / beta uses.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/format.h"
#include "model/spec/calibration.h"
#include "model/status.h"

namespace zerosim::kernels::bench {

struct BenchOptions {
  int64_t min_bytes = int64_t{4} << 10;  // smallest tensor, in bytes of 16-bit values (elements x 2)
  int64_t max_bytes = int64_t{1} << 30;  // largest; sizes double from min_bytes up to it
  int warmup = 5;                        // untimed calls per size
  int repetitions = 51;                  // timed calls per size; their median is the point
  int64_t group_size = 2048;             // elements per scale, every kernel
  int fan_in = 8;                        // inputs of the two reduce kernels (GPUs per node / nodes)
  ValueType type = ValueType::kFp16;     // 16-bit value type
  Swizzle swizzle = {4, 8};              // swizzle_quantize_int4's nodes x GPUs (fewer for small tensors)
};

struct BenchResult {
  std::string device;        // e.g. "NVIDIA H200"
  std::string driver;        // kernel module version (e.g. "550.54.15") or the driver's CUDA version
  std::string cuda_runtime;  // e.g. "13.0"
  int64_t l2_bytes = 0;
  int64_t rotate_bytes = 0;  // device memory the inputs and outputs rotate over
  int64_t max_bytes = 0;     // the largest size actually run (smaller than asked if memory is short)
  double copy_Bps = 0;       // device-to-device copy at max_bytes, read + write counted
  std::vector<model::KernelPoint> copy_points;
  std::array<std::vector<model::KernelPoint>, model::kNumKernels> points;
};

// Runs the benchmark on device 0, printing a table per kernel to `log` (effective bandwidth and its
// fraction of the copy bandwidth). Errors: no CUDA in this build, no device, CUDA failures.
StatusOr<BenchResult> RunKernelBenchmark(const BenchOptions& options, std::FILE* log);

}  // namespace zerosim::kernels::bench
