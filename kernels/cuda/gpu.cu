// gpu.h on CUDA: host buffers in, device launch, host buffers out, with poisoned outputs and guard zones.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cuda/launch.cuh"
#include "kernels/gpu.h"

namespace zerosim::kernels::gpu {
namespace {

// Bytes past each output buffer that must still hold the poison after the kernel ran.
constexpr size_t kGuardBytes = 256;
constexpr int kPoison = 0xFF;

Status CudaError(const char* what, cudaError_t err) {
  return Status::Error(std::string(what) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                       ")");
}

// One device allocation, freed on scope exit.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) { err_ = cudaMalloc(&ptr_, bytes + kGuardBytes); }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  cudaError_t error() const { return err_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

  template <typename T>
  cudaError_t Upload(const std::vector<T>& host) {
    return cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  // Fills the buffer and its guard zone with 0xFF.
  cudaError_t Poison() { return cudaMemset(ptr_, kPoison, bytes_ + kGuardBytes); }
  // Copies the buffer into `host` (sized to it) and fails if the kernel wrote into the guard zone.
  template <typename T>
  Status Download(std::vector<T>& host, const char* name) const {
    host.resize(bytes_ / sizeof(T));
    std::vector<uint8_t> all(bytes_ + kGuardBytes);
    if (cudaError_t err = cudaMemcpy(all.data(), ptr_, all.size(), cudaMemcpyDeviceToHost);
        err != cudaSuccess) {
      return CudaError("copy to host", err);
    }
    for (size_t i = bytes_; i < all.size(); ++i) {
      if (all[i] != kPoison) return Status::Error(std::string("kernel wrote past the end of ") + name);
    }
    if (bytes_ > 0) std::memcpy(host.data(), all.data(), bytes_);
    return Status::Ok();
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  cudaError_t err_ = cudaSuccess;
};

// Runs a launch and waits for it; the first error wins.
Status Finish(cudaError_t launch) {
  if (launch != cudaSuccess) return CudaError("launch", launch);
  if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) return CudaError("kernel", err);
  return Status::Ok();
}

// Device copies of k chunks back to back (format.h).
struct DeviceChunks {
  DeviceBuffer codes;
  DeviceBuffer scales;
  DeviceChunks(const std::vector<Quantized>& inputs, const QuantSpec& spec)
      : codes(inputs.size() * static_cast<size_t>(CodeBytes(inputs[0].elements, spec.bits))),
        scales(inputs.size() * static_cast<size_t>(NumGroups(inputs[0].elements, spec.group_size)) *
               sizeof(float)) {}
  Status Upload(const std::vector<Quantized>& inputs) {
    if (codes.error() != cudaSuccess) return CudaError("allocate", codes.error());
    if (scales.error() != cudaSuccess) return CudaError("allocate", scales.error());
    std::vector<uint8_t> all_codes;
    std::vector<float> all_scales;
    for (const Quantized& in : inputs) {
      all_codes.insert(all_codes.end(), in.codes.begin(), in.codes.end());
      all_scales.insert(all_scales.end(), in.scales.begin(), in.scales.end());
    }
    if (cudaError_t err = codes.Upload(all_codes); err != cudaSuccess)
      return CudaError("copy to device", err);
    if (cudaError_t err = scales.Upload(all_scales); err != cudaSuccess)
      return CudaError("copy to device", err);
    return Status::Ok();
  }
};

// Output codes and scales of `elements` values, poisoned.
struct DeviceQuantized {
  DeviceBuffer codes;
  DeviceBuffer scales;
  DeviceQuantized(int64_t elements, const QuantSpec& spec)
      : codes(static_cast<size_t>(CodeBytes(elements, spec.bits))),
        scales(static_cast<size_t>(NumGroups(elements, spec.group_size)) * sizeof(float)) {}
  Status Poison() {
    if (codes.error() != cudaSuccess || scales.error() != cudaSuccess)
      return CudaError("allocate", cudaErrorMemoryAllocation);
    if (cudaError_t err = codes.Poison(); err != cudaSuccess) return CudaError("poison", err);
    if (cudaError_t err = scales.Poison(); err != cudaSuccess) return CudaError("poison", err);
    return Status::Ok();
  }
  StatusOr<Quantized> Download(int64_t elements) const {
    Quantized q;
    q.elements = elements;
    if (Status s = codes.Download(q.codes, "the codes"); !s.ok()) return s;
    if (Status s = scales.Download(q.scales, "the scales"); !s.ok()) return s;
    return q;
  }
};

Status CheckInputs(const std::vector<Quantized>& inputs, const QuantSpec& spec) {
  if (Status s = CheckReduceInputs(inputs, spec); !s.ok()) return s;
  return DeviceStatus();
}

// Uploads `input`, runs `launch(device_in, device_out)` into a poisoned output of `out_count` Out's.
template <typename In, typename Out, typename LaunchFn>
StatusOr<std::vector<Out>> RunElementwise(const std::vector<In>& input, size_t out_count, LaunchFn launch) {
  if (Status s = DeviceStatus(); !s.ok()) return s;
  DeviceBuffer in(input.size() * sizeof(In));
  DeviceBuffer out(out_count * sizeof(Out));
  if (in.error() != cudaSuccess || out.error() != cudaSuccess)
    return CudaError("allocate", cudaErrorMemoryAllocation);
  if (cudaError_t err = in.Upload(input); err != cudaSuccess) return CudaError("copy to device", err);
  if (cudaError_t err = out.Poison(); err != cudaSuccess) return CudaError("poison", err);
  if (Status s = Finish(launch(in.as<In>(), out.as<Out>())); !s.ok()) return s;
  std::vector<Out> result;
  if (Status s = out.Download(result, "the output"); !s.ok()) return s;
  return result;
}

}  // namespace

bool BuiltWithCuda() { return true; }

Status DeviceStatus() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return CudaError("cudaGetDeviceCount", err);
  if (count == 0) return Status::Error("the CUDA driver reports no device");
  return Status::Ok();
}

std::string DeviceName() {
  cudaDeviceProp prop{};
  if (!DeviceStatus().ok() || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "";
  return prop.name;
}

StatusOr<Quantized> Quantize(const std::vector<uint16_t>& values, const QuantSpec& spec,
                             const Swizzle& swizzle) {
  const auto n = static_cast<int64_t>(values.size());
  if (Status s = CheckSpec(spec); !s.ok()) return s;
  if (Status s = CheckSwizzle(swizzle, n, spec); !s.ok()) return s;
  if (Status s = DeviceStatus(); !s.ok()) return s;
  DeviceBuffer in(values.size() * sizeof(uint16_t));
  if (in.error() != cudaSuccess) return CudaError("allocate", in.error());
  if (cudaError_t err = in.Upload(values); err != cudaSuccess) return CudaError("copy to device", err);
  DeviceQuantized out(n, spec);
  if (Status s = out.Poison(); !s.ok()) return s;
  const cudaError_t launch = cuda::LaunchQuantize(in.as<uint16_t>(), n, spec, swizzle,
                                                  out.codes.as<uint8_t>(), out.scales.as<float>(), nullptr);
  if (Status s = Finish(launch); !s.ok()) return s;
  return out.Download(n);
}

StatusOr<std::vector<uint16_t>> Dequantize(const Quantized& q, const QuantSpec& spec) {
  return gpu::DequantReduce(std::vector<Quantized>{q}, spec);
}

StatusOr<Quantized> DequantReduceQuant(const std::vector<Quantized>& inputs, const QuantSpec& spec) {
  if (Status s = CheckInputs(inputs, spec); !s.ok()) return s;
  const int64_t n = inputs[0].elements;
  DeviceChunks in(inputs, spec);
  if (Status s = in.Upload(inputs); !s.ok()) return s;
  DeviceQuantized out(n, spec);
  if (Status s = out.Poison(); !s.ok()) return s;
  const cudaError_t launch = cuda::LaunchDequantReduceQuant(
      in.codes.as<uint8_t>(), in.scales.as<float>(), static_cast<int>(inputs.size()), n, spec,
      out.codes.as<uint8_t>(), out.scales.as<float>(), nullptr);
  if (Status s = Finish(launch); !s.ok()) return s;
  return out.Download(n);
}

StatusOr<std::vector<uint16_t>> DequantReduce(const std::vector<Quantized>& inputs, const QuantSpec& spec) {
  if (Status s = CheckInputs(inputs, spec); !s.ok()) return s;
  const int64_t n = inputs[0].elements;
  DeviceChunks in(inputs, spec);
  if (Status s = in.Upload(inputs); !s.ok()) return s;
  DeviceBuffer out(static_cast<size_t>(n) * sizeof(uint16_t));
  if (out.error() != cudaSuccess) return CudaError("allocate", out.error());
  if (cudaError_t err = out.Poison(); err != cudaSuccess) return CudaError("poison", err);
  const cudaError_t launch =
      cuda::LaunchDequantReduce(in.codes.as<uint8_t>(), in.scales.as<float>(),
                                static_cast<int>(inputs.size()), n, spec, out.as<uint16_t>(), nullptr);
  if (Status s = Finish(launch); !s.ok()) return s;
  std::vector<uint16_t> result;
  if (Status s = out.Download(result, "the values"); !s.ok()) return s;
  return result;
}

StatusOr<std::vector<float>> ToFloats(const std::vector<uint16_t>& bits, ValueType type) {
  return RunElementwise<uint16_t, float>(bits, bits.size(), [&](const uint16_t* in, float* out) {
    return cuda::LaunchToFloats(in, static_cast<int64_t>(bits.size()), type, out, nullptr);
  });
}

StatusOr<std::vector<uint16_t>> FromFloats(const std::vector<float>& values, ValueType type) {
  return RunElementwise<float, uint16_t>(values, values.size(), [&](const float* in, uint16_t* out) {
    return cuda::LaunchFromFloats(in, static_cast<int64_t>(values.size()), type, out, nullptr);
  });
}

}  // namespace zerosim::kernels::gpu
