// Device building blocks of the quantization kernels: fp16/bf16 conversions, vector loads and stores of
// values and codes, and the two element sources the kernels read (16-bit values; k quantized chunks summed).
// Included by the .cu files of kernels/cuda only.
//
// Vectors: V consecutive elements starting at an element index that is a multiple of V. V = 8 moves 16
// bytes of values per load (needs 16-byte aligned buffers, group and chunk lengths multiples of 8); V = 2
// moves element by element and needs only even group sizes. A vector may be partial at the end of a group
// or tensor: `count` < V elements are real, the rest read as 0 and are not written.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/half.h"
#include "kernels/quant_math.h"

namespace zerosim::kernels::cuda {

inline constexpr int kBlockThreads = 256;

// fp16/bf16 <-> fp32 with the hardware's round-to-nearest-even conversions; NaN canonical as in half.h.
template <bool kBf16>
__device__ __forceinline__ float ToFloatDev(uint16_t bits) {
  const float f = kBf16 ? __bfloat162float(__ushort_as_bfloat16(bits)) : __half2float(__ushort_as_half(bits));
  return f != f ? FloatFromBits(kFloatNanBits) : f;
}

template <bool kBf16>
__device__ __forceinline__ uint16_t FromFloatDev(float f) {
  if (f != f) return kBf16 ? kBf16NanBits : kHalfNanBits;
  return kBf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(f)) : __half_as_ushort(__float2half_rn(f));
}

template <int V>
__device__ __forceinline__ void LoadHalves(const uint16_t* p, int count, uint16_t (&h)[V]) {
  if (V == 8 && count == 8) {
    const uint4 w = *reinterpret_cast<const uint4*>(p);
    const uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      h[2 * j] = static_cast<uint16_t>(words[j] & 0xFFFFu);
      h[2 * j + 1] = static_cast<uint16_t>(words[j] >> 16);
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j) h[j] = j < count ? p[j] : 0;
}

template <int V>
__device__ __forceinline__ void StoreHalves(uint16_t* p, int count, const uint16_t (&h)[V]) {
  if (V == 8 && count == 8) {
    uint4 w;
    w.x = h[0] | (static_cast<uint32_t>(h[1]) << 16);
    w.y = h[2] | (static_cast<uint32_t>(h[3]) << 16);
    w.z = h[4] | (static_cast<uint32_t>(h[5]) << 16);
    w.w = h[6] | (static_cast<uint32_t>(h[7]) << 16);
    *reinterpret_cast<uint4*>(p) = w;
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j) {
    if (j < count) p[j] = h[j];
  }
}

// Codes of elements [e, e + count) of a code buffer (format.h layout), e a multiple of V.
template <int kBits, int V>
__device__ __forceinline__ void LoadCodes(const uint8_t* codes, int64_t e, int count, int (&q)[V]) {
  if (V == 8 && count == 8) {
    if (kBits == 8) {
      const uint2 w = *reinterpret_cast<const uint2*>(codes + e);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        q[j] = Int8Code(static_cast<uint8_t>(w.x >> (8 * j)));
        q[j + 4] = Int8Code(static_cast<uint8_t>(w.y >> (8 * j)));
      }
    } else {
      const uint32_t w = *reinterpret_cast<const uint32_t*>(codes + e / 2);
#pragma unroll
      for (int j = 0; j < 8; ++j) q[j] = NibbleCode((w >> (4 * j)) & 0xFu);
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j) {
    if (j >= count) {
      q[j] = 0;
    } else if (kBits == 8) {
      q[j] = Int8Code(codes[e + j]);
    } else {
      const uint8_t byte = codes[(e + j) / 2];
      q[j] = (j % 2 == 0) ? LowNibble(byte) : HighNibble(byte);
    }
  }
}

// Stores the codes of elements [e, e + count); for int4 a partial vector's last byte gets a 0 high nibble
// when count is odd (q[count] is 0: the padding element is 0).
template <int kBits, int V>
__device__ __forceinline__ void StoreCodes(uint8_t* codes, int64_t e, int count, const int (&q)[V]) {
  if (V == 8 && count == 8) {
    if (kBits == 8) {
      uint2 w = {0, 0};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        w.x |= static_cast<uint32_t>(Int8Byte(q[j])) << (8 * j);
        w.y |= static_cast<uint32_t>(Int8Byte(q[j + 4])) << (8 * j);
      }
      *reinterpret_cast<uint2*>(codes + e) = w;
    } else {
      uint32_t w = 0;
#pragma unroll
      for (int j = 0; j < 8; j += 2) w |= static_cast<uint32_t>(PackNibbles(q[j], q[j + 1])) << (4 * j);
      *reinterpret_cast<uint32_t*>(codes + e / 2) = w;
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j) {
    if (j >= count) break;
    if (kBits == 8) {
      codes[e + j] = Int8Byte(q[j]);
    } else if (j % 2 == 0) {
      codes[(e + j) / 2] = PackNibbles(q[j], j + 1 < V ? q[j + 1] : 0);
    }
  }
}

// Element source: 16-bit values (bit patterns of fp16 or bf16).
template <bool kBf16, int V>
struct ValueSource {
  const uint16_t* values;

  __device__ __forceinline__ void Load(int64_t e, int count, float (&x)[V]) const {
    uint16_t h[V];
    LoadHalves<V>(values + e, count, h);
#pragma unroll
    for (int j = 0; j < V; ++j) x[j] = j < count ? ToFloatDev<kBf16>(h[j]) : 0.0f;
  }
};

// Element source: the fp32 sum, in chunk order, of the dequantized values of `fan_in` chunks laid back to
// back (format.h). fan_in 1 is plain dequantization.
template <int kBits, int V>
struct ChunkSumSource {
  const uint8_t* codes;
  const float* scales;
  int fan_in;
  int64_t chunk_code_bytes;  // CodeBytes(chunk elements)
  int64_t chunk_groups;      // NumGroups(chunk elements)
  int64_t group_size;

  __device__ __forceinline__ void Load(int64_t e, int count, float (&x)[V]) const {
#pragma unroll
    for (int j = 0; j < V; ++j) x[j] = 0.0f;
    const int64_t group = e / group_size;  // all V elements share it: group_size is a multiple of V
    for (int i = 0; i < fan_in; ++i) {
      int q[V];
      LoadCodes<kBits, V>(codes + i * chunk_code_bytes, e, count, q);
      const float scale = scales[i * chunk_groups + group];
#pragma unroll
      for (int j = 0; j < V; ++j) x[j] = AddRn(x[j], DequantizeValue(q[j], scale));
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (j >= count) x[j] = 0.0f;  // a NaN scale must not leak into the padding
    }
  }
};

}  // namespace zerosim::kernels::cuda
