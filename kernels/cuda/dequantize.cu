// Elementwise kernels: dequantize (one chunk), the final dequantize-reduce (k chunks, averaged) and the
// fp16/bf16 conversions. Grid-stride loops over vectors of V elements.
#include <algorithm>
#include <climits>
#include <cstdint>

#include "kernels/cuda/device_ops.cuh"
#include "kernels/cuda/launch.cuh"

namespace zerosim::kernels::cuda {
namespace {

// Enough blocks to fill any current GPU several times over; the loops stride over the rest.
constexpr int64_t kMaxBlocks = 1 << 16;

unsigned BlocksFor(int64_t vectors) {
  return static_cast<unsigned>(
      std::min(kMaxBlocks, std::max<int64_t>(1, (vectors + kBlockThreads - 1) / kBlockThreads)));
}

// values[e] = fp16/bf16 of (sum over chunks of code * scale), divided by `fan_in` when `average`.
template <int kBits, bool kBf16, int V>
__global__ void __launch_bounds__(kBlockThreads)
    DequantReduceKernel(ChunkSumSource<kBits, V> source, int64_t elements, bool average, uint16_t* values) {
  const auto divisor = static_cast<float>(source.fan_in);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x * V;
  for (int64_t e = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V; e < elements;
       e += stride) {
    const int count = elements - e < V ? static_cast<int>(elements - e) : V;
    float x[V];
    source.Load(e, count, x);
    uint16_t h[V];
#pragma unroll
    for (int j = 0; j < V; ++j) h[j] = FromFloatDev<kBf16>(average ? DivRn(x[j], divisor) : x[j]);
    StoreHalves<V>(values + e, count, h);
  }
}

template <int kBits, bool kBf16, int V>
cudaError_t Launch(const uint8_t* codes, const float* scales, int fan_in, int64_t elements,
                   int64_t group_size, uint16_t* values, cudaStream_t stream) {
  const ChunkSumSource<kBits, V> source{
      codes, scales, fan_in, CodeBytes(elements, kBits), NumGroups(elements, group_size), group_size};
  DequantReduceKernel<kBits, kBf16, V>
      <<<BlocksFor((elements + V - 1) / V), kBlockThreads, 0, stream>>>(source, elements, fan_in > 1, values);
  return cudaGetLastError();
}

template <int V>
cudaError_t Dispatch(const uint8_t* codes, const float* scales, int fan_in, int64_t elements,
                     const QuantSpec& spec, uint16_t* values, cudaStream_t stream) {
  const bool bf16 = spec.type == ValueType::kBf16;
  if (spec.bits == 8) {
    return bf16 ? Launch<8, true, V>(codes, scales, fan_in, elements, spec.group_size, values, stream)
                : Launch<8, false, V>(codes, scales, fan_in, elements, spec.group_size, values, stream);
  }
  return bf16 ? Launch<4, true, V>(codes, scales, fan_in, elements, spec.group_size, values, stream)
              : Launch<4, false, V>(codes, scales, fan_in, elements, spec.group_size, values, stream);
}

cudaError_t DequantizeChunks(const uint8_t* codes, const float* scales, int fan_in, int64_t elements,
                             const QuantSpec& spec, uint16_t* values, cudaStream_t stream) {
  if (fan_in < 1 || elements < 0 || !CheckSpec(spec).ok()) return cudaErrorInvalidValue;
  if (elements == 0) return cudaSuccess;
  const bool vectorized = spec.group_size % 8 == 0 && elements % 8 == 0 &&
                          reinterpret_cast<uintptr_t>(codes) % 16 == 0 &&
                          reinterpret_cast<uintptr_t>(values) % 16 == 0;
  return vectorized ? Dispatch<8>(codes, scales, fan_in, elements, spec, values, stream)
                    : Dispatch<2>(codes, scales, fan_in, elements, spec, values, stream);
}

// out[i] = Convert<kBf16>(in[i]): one of the conversions the kernels use.
struct ToFloatOp {
  template <bool kBf16>
  __device__ float Convert(uint16_t bits) const {
    return ToFloatDev<kBf16>(bits);
  }
};
struct FromFloatOp {
  template <bool kBf16>
  __device__ uint16_t Convert(float value) const {
    return FromFloatDev<kBf16>(value);
  }
};

template <bool kBf16, typename In, typename Out, class Op>
__global__ void ConvertKernel(const In* in, int64_t count, Out* out, Op op) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = op.template Convert<kBf16>(in[i]);
  }
}

template <typename In, typename Out, class Op>
cudaError_t LaunchConvert(const In* in, int64_t count, ValueType type, Out* out, Op op, cudaStream_t stream) {
  if (count <= 0) return count == 0 ? cudaSuccess : cudaErrorInvalidValue;
  if (type == ValueType::kBf16) {
    ConvertKernel<true><<<BlocksFor(count), kBlockThreads, 0, stream>>>(in, count, out, op);
  } else {
    ConvertKernel<false><<<BlocksFor(count), kBlockThreads, 0, stream>>>(in, count, out, op);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchDequantize(const uint8_t* codes, const float* scales, int64_t elements,
                             const QuantSpec& spec, uint16_t* values, cudaStream_t stream) {
  return DequantizeChunks(codes, scales, 1, elements, spec, values, stream);
}

cudaError_t LaunchDequantReduce(const uint8_t* codes, const float* scales, int fan_in, int64_t chunk_elements,
                                const QuantSpec& spec, uint16_t* values, cudaStream_t stream) {
  return DequantizeChunks(codes, scales, fan_in, chunk_elements, spec, values, stream);
}

cudaError_t LaunchToFloats(const uint16_t* bits, int64_t count, ValueType type, float* out,
                           cudaStream_t stream) {
  return LaunchConvert(bits, count, type, out, ToFloatOp{}, stream);
}

cudaError_t LaunchFromFloats(const float* values, int64_t count, ValueType type, uint16_t* out,
                             cudaStream_t stream) {
  return LaunchConvert(values, count, type, out, FromFloatOp{}, stream);
}

}  // namespace zerosim::kernels::cuda
