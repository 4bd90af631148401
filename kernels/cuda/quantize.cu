// Group-quantizing kernels: quantize (plain and swizzled) and the fused dequantize-reduce-requantize.
// One group per `threads_per_group` threads (a power of two from 32 to 256, several groups per block when
// groups are small). Two passes over the group: the largest magnitude, then the codes. The second pass
// reads the group again; a group is at most a few KiB, so that read comes from L1/L2, not DRAM.
#include <climits>
#include <cstdint>

#include "kernels/cuda/device_ops.cuh"
#include "kernels/cuda/launch.cuh"

namespace zerosim::kernels::cuda {
namespace {

struct GroupLayout {
  int64_t elements = 0;  // of the tensor being quantized
  int64_t group_size = 0;
  int64_t groups = 0;
  int threads_per_group = 32;
  int nodes = 1;  // swizzle (format.h); {1, 1} keeps the order
  int gpus_per_node = 1;
  int64_t groups_per_partition = 1;
};

__device__ __forceinline__ int64_t MinI64(int64_t a, int64_t b) { return a < b ? a : b; }

// The largest magnitude over the threads of each group (every thread of the block must call it).
__device__ __forceinline__ float GroupMaxMagnitude(float m, int threads_per_group, float* warp_max) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) m = MaxMagnitude(m, __shfl_xor_sync(0xFFFFFFFFu, m, offset));
  if (threads_per_group <= 32) return m;
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = m;
  __syncthreads();
  const int warps = threads_per_group / 32;
  const int first = static_cast<int>(threadIdx.x / threads_per_group) * warps;
  float r = warp_max[first];
  for (int w = 1; w < warps; ++w) r = MaxMagnitude(r, warp_max[first + w]);
  return r;
}

template <int kBits, int V, class Source>
__global__ void __launch_bounds__(kBlockThreads)
    QuantizeGroupsKernel(Source source, GroupLayout layout, uint8_t* codes, float* scales) {
  __shared__ float warp_max[kBlockThreads / 32];
  const int tpg = layout.threads_per_group;
  const int64_t group = static_cast<int64_t>(blockIdx.x) * (kBlockThreads / tpg) + threadIdx.x / tpg;
  const int lane = static_cast<int>(threadIdx.x % tpg);
  const int64_t begin = group * layout.group_size;
  const int64_t length = group < layout.groups ? MinI64(layout.group_size, layout.elements - begin) : 0;

  float absmax = 0.0f;
  for (int64_t e = static_cast<int64_t>(lane) * V; e < length; e += static_cast<int64_t>(tpg) * V) {
    float x[V];
    source.Load(begin + e, static_cast<int>(MinI64(V, length - e)), x);
#pragma unroll
    for (int j = 0; j < V; ++j) absmax = MaxMagnitude(absmax, AbsF(x[j]));
  }
  absmax = GroupMaxMagnitude(absmax, tpg, warp_max);
  if (length == 0) return;  // past the last group; after the block-wide reduction

  const GroupScale s = ScaleForAbsMax(absmax, kBits);
  const int64_t out_group =
      SwizzledGroup(group, layout.groups_per_partition, layout.nodes, layout.gpus_per_node);
  if (lane == 0) scales[out_group] = s.scale;
  const int64_t out_begin = out_group * layout.group_size;
  const int qmax = MaxCode(kBits);
  for (int64_t e = static_cast<int64_t>(lane) * V; e < length; e += static_cast<int64_t>(tpg) * V) {
    const int count = static_cast<int>(MinI64(V, length - e));
    float x[V];
    source.Load(begin + e, count, x);
    int q[V];
#pragma unroll
    for (int j = 0; j < V; ++j) q[j] = QuantizeValue(x[j], s.inv_scale, qmax);
    StoreCodes<kBits, V>(codes, out_begin + e, count, q);
  }
}

GroupLayout MakeLayout(int64_t elements, const QuantSpec& spec, const Swizzle& swizzle, int vector) {
  GroupLayout layout;
  layout.elements = elements;
  layout.group_size = spec.group_size;
  layout.groups = NumGroups(elements, spec.group_size);
  const int64_t vectors_per_group = (spec.group_size + vector - 1) / vector;
  while (layout.threads_per_group < vectors_per_group && layout.threads_per_group < kBlockThreads) {
    layout.threads_per_group *= 2;
  }
  layout.nodes = swizzle.nodes;
  layout.gpus_per_node = swizzle.gpus_per_node;
  const int64_t partition = elements / (static_cast<int64_t>(swizzle.nodes) * swizzle.gpus_per_node);
  layout.groups_per_partition =
      NumGroups(partition, spec.group_size) > 0 ? NumGroups(partition, spec.group_size) : 1;
  return layout;
}

template <int kBits, int V, class Source>
cudaError_t LaunchGroups(const Source& source, const GroupLayout& layout, uint8_t* codes, float* scales,
                         cudaStream_t stream) {
  if (layout.groups == 0) return cudaSuccess;
  const int64_t groups_per_block = kBlockThreads / layout.threads_per_group;
  const int64_t blocks = (layout.groups + groups_per_block - 1) / groups_per_block;
  if (blocks > INT_MAX) return cudaErrorInvalidValue;
  QuantizeGroupsKernel<kBits, V, Source>
      <<<static_cast<unsigned>(blocks), kBlockThreads, 0, stream>>>(source, layout, codes, scales);
  return cudaGetLastError();
}

template <int kBits, int V>
cudaError_t QuantizeValues(const uint16_t* values, ValueType type, const GroupLayout& layout, uint8_t* codes,
                           float* scales, cudaStream_t stream) {
  if (type == ValueType::kBf16)
    return LaunchGroups<kBits, V>(ValueSource<true, V>{values}, layout, codes, scales, stream);
  return LaunchGroups<kBits, V>(ValueSource<false, V>{values}, layout, codes, scales, stream);
}

template <int kBits, int V>
cudaError_t ReduceChunks(const uint8_t* codes, const float* scales, int fan_in, const GroupLayout& layout,
                         uint8_t* out_codes, float* out_scales, cudaStream_t stream) {
  const ChunkSumSource<kBits, V> source{
      codes, scales, fan_in, CodeBytes(layout.elements, kBits), layout.groups, layout.group_size};
  return LaunchGroups<kBits, V>(source, layout, out_codes, out_scales, stream);
}

bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t LaunchQuantize(const uint16_t* values, int64_t elements, const QuantSpec& spec,
                           const Swizzle& swizzle, uint8_t* codes, float* scales, cudaStream_t stream) {
  if (elements < 0 || !CheckSpec(spec).ok() || !CheckSwizzle(swizzle, elements, spec).ok()) {
    return cudaErrorInvalidValue;
  }
  const bool vectorized = spec.group_size % 8 == 0 && Aligned16(values) && Aligned16(codes);
  const GroupLayout layout = MakeLayout(elements, spec, swizzle, vectorized ? 8 : 2);
  if (spec.bits == 8) {
    return vectorized ? QuantizeValues<8, 8>(values, spec.type, layout, codes, scales, stream)
                      : QuantizeValues<8, 2>(values, spec.type, layout, codes, scales, stream);
  }
  return vectorized ? QuantizeValues<4, 8>(values, spec.type, layout, codes, scales, stream)
                    : QuantizeValues<4, 2>(values, spec.type, layout, codes, scales, stream);
}

cudaError_t LaunchDequantReduceQuant(const uint8_t* codes, const float* scales, int fan_in,
                                     int64_t chunk_elements, const QuantSpec& spec, uint8_t* out_codes,
                                     float* out_scales, cudaStream_t stream) {
  if (fan_in < 1 || chunk_elements < 0 || !CheckSpec(spec).ok()) return cudaErrorInvalidValue;
  const bool vectorized =
      spec.group_size % 8 == 0 && chunk_elements % 8 == 0 && Aligned16(codes) && Aligned16(out_codes);
  const GroupLayout layout = MakeLayout(chunk_elements, spec, Swizzle{}, vectorized ? 8 : 2);
  if (spec.bits == 8) {
    return vectorized ? ReduceChunks<8, 8>(codes, scales, fan_in, layout, out_codes, out_scales, stream)
                      : ReduceChunks<8, 2>(codes, scales, fan_in, layout, out_codes, out_scales, stream);
  }
  return vectorized ? ReduceChunks<4, 8>(codes, scales, fan_in, layout, out_codes, out_scales, stream)
                    : ReduceChunks<4, 2>(codes, scales, fan_in, layout, out_codes, out_scales, stream);
}

}  // namespace zerosim::kernels::cuda
