// gpu.h in a build without CUDA: every call says so.
#include "kernels/gpu.h"

namespace zerosim::kernels::gpu {
namespace {

Status NoCuda() {
  return Status::Error(
      "built without CUDA: nvcc was not found when the build was configured "
      "(pass -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)");
}

}  // namespace

bool BuiltWithCuda() { return false; }
Status DeviceStatus() { return NoCuda(); }
std::string DeviceName() { return ""; }

StatusOr<Quantized> Quantize(const std::vector<uint16_t>&, const QuantSpec&, const Swizzle&) {
  return NoCuda();
}
StatusOr<std::vector<uint16_t>> Dequantize(const Quantized&, const QuantSpec&) { return NoCuda(); }
StatusOr<Quantized> DequantReduceQuant(const std::vector<Quantized>&, const QuantSpec&) { return NoCuda(); }
StatusOr<std::vector<uint16_t>> DequantReduce(const std::vector<Quantized>&, const QuantSpec&) {
  return NoCuda();
}
StatusOr<std::vector<float>> ToFloats(const std::vector<uint16_t>&, ValueType) { return NoCuda(); }
StatusOr<std::vector<uint16_t>> FromFloats(const std::vector<float>&, ValueType) { return NoCuda(); }

}  // namespace zerosim::kernels::gpu
