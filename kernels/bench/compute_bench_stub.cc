// bench/compute_bench.h in a build without CUDA (or, on the device build, without cuBLASLt).
#include "kernels/bench/compute_bench.h"
#include "kernels/gpu.h"

namespace zerosim::kernels::bench {
namespace {

Status Unavailable() {
  if (!gpu::BuiltWithCuda()) return gpu::DeviceStatus();
  return Status::Error("built without the compute benchmark: CMake found no cuBLASLt (CUDA::cublasLt)");
}

}  // namespace

bool BuiltWithComputeBenchmark() { return false; }
bool DeviceHasBf16() { return false; }

StatusOr<ComputeResult> RunComputeBenchmark(const ComputeOptions&, std::FILE*) { return Unavailable(); }

StatusOr<std::vector<uint16_t>> DeviceLinear(const GemmShape&, ValueType, const std::vector<uint16_t>&,
                                             const std::vector<uint16_t>&) {
  return Unavailable();
}

StatusOr<std::vector<uint16_t>> DeviceCausalAttention(const AttentionShape&, ValueType,
                                                      const std::vector<uint16_t>&,
                                                      const std::vector<uint16_t>&,
                                                      const std::vector<uint16_t>&) {
  return Unavailable();
}

}  // namespace zerosim::kernels::bench
