// The scalar arithmetic of the quantized formats (format.h), shared word for word by the CPU reference
// and the CUDA kernels so that they agree bit for bit. C++17, host and device.
//
// Every floating-point operation that decides a result bit is one IEEE-754 binary32 operation rounded to
// nearest-even: on the device through __fmul_rn / __fdiv_rn (never contracted into an FMA, whatever the
// compiler flags), on the host as plain operators with -ffp-contract=off (kernels/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define ZS_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#define ZS_HD inline
#endif

namespace zerosim::kernels {

// Groups with a smaller absmax are flushed to zero (format.h): 2^-119 >= 127 * 2^-126, so every scale
// that is not flushed is a normal fp32 number and qmax / absmax cannot overflow.
inline constexpr float kMinNormalAbsMax = 0x1p-119f;
inline constexpr float kMaxFiniteFloat = 0x1.fffffep127f;
// The one NaN every scale of a non-finite group carries.
inline constexpr uint32_t kNanScaleBits = 0x7FC00000u;

ZS_HD float FloatFromBits(uint32_t bits) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

ZS_HD uint32_t BitsFromFloat(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
#endif
}

ZS_HD float MulRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

ZS_HD float AddRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

ZS_HD float DivRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

// Round to nearest integer, ties to even. Precondition: |v| < 2^31.
ZS_HD int RoundToInt(float v) {
#ifdef __CUDA_ARCH__
  return __float2int_rn(v);
#else
  return static_cast<int>(std::nearbyint(v));  // the default rounding mode: to nearest, ties to even
#endif
}

ZS_HD float AbsF(float v) { return FloatFromBits(BitsFromFloat(v) & 0x7FFFFFFFu); }

// The largest code of a `bits`-bit symmetric format: 127 for int8, 7 for int4.
ZS_HD int MaxCode(int bits) { return (1 << (bits - 1)) - 1; }

// Running maximum of magnitudes that propagates NaN: combining is associative and commutative (NaN if any
// operand is NaN, else the larger), so any reduction order gives the same class and, for numbers, the same
// bits. `m` and `a` are magnitudes (>= 0 or NaN).
ZS_HD float MaxMagnitude(float m, float a) { return (a > m || a != a) ? a : m; }

struct GroupScale {
  float scale = 0;      // stored with the codes; value = code * scale
  float inv_scale = 0;  // qmax / absmax; 0 means "every code is 0"
};

// The scale of a group whose largest magnitude is `absmax` (format.h: NaN for non-finite groups, 0 for
// all-zero or flushed groups).
ZS_HD GroupScale ScaleForAbsMax(float absmax, int bits) {
  GroupScale s;
  if (!(absmax <= kMaxFiniteFloat)) {  // NaN or Inf
    s.scale = FloatFromBits(kNanScaleBits);
    return s;
  }
  if (absmax < kMinNormalAbsMax) return s;
  const float qmax = static_cast<float>(MaxCode(bits));
  s.scale = DivRn(absmax, qmax);
  s.inv_scale = DivRn(qmax, absmax);
  return s;
}

// The code of `x` in a group with `inv_scale` (from ScaleForAbsMax of the group's absmax, so |x| <= absmax).
ZS_HD int QuantizeValue(float x, float inv_scale, int qmax) {
  if (inv_scale == 0.0f) return 0;
  const int q = RoundToInt(MulRn(x, inv_scale));  // |x * inv_scale| <= qmax * (1 + 2^-22): no overflow
  return q > qmax ? qmax : (q < -qmax ? -qmax : q);
}

ZS_HD float DequantizeValue(int code, float scale) { return MulRn(static_cast<float>(code), scale); }

// int8 codes: one two's-complement byte.
ZS_HD uint8_t Int8Byte(int code) { return static_cast<uint8_t>(code & 0xFF); }
ZS_HD int Int8Code(uint8_t byte) {
  return byte >= 128 ? static_cast<int>(byte) - 256 : static_cast<int>(byte);
}

// int4 codes: element 2i in the low nibble, element 2i + 1 in the high nibble, 4-bit two's complement.
ZS_HD uint8_t PackNibbles(int low, int high) {
  return static_cast<uint8_t>((low & 0xF) | ((high & 0xF) << 4));
}
ZS_HD int NibbleCode(unsigned nibble) {
  return nibble >= 8 ? static_cast<int>(nibble) - 16 : static_cast<int>(nibble);
}
ZS_HD int LowNibble(uint8_t byte) { return NibbleCode(byte & 0xFu); }
ZS_HD int HighNibble(uint8_t byte) { return NibbleCode(byte >> 4); }

// Where group `group` of a tensor of N x D partitions (each `groups_per_partition` groups) is stored in
// qgZ's swizzled order: partition p = n * D + d goes to slot d * N + n (format.h, Swizzle).
ZS_HD int64_t SwizzledGroup(int64_t group, int64_t groups_per_partition, int nodes, int gpus_per_node) {
  const int64_t partition = group / groups_per_partition;
  const int64_t n = partition / gpus_per_node;
  const int64_t d = partition % gpus_per_node;
  return (d * nodes + n) * groups_per_partition + group % groups_per_partition;
}

// The largest |x - dequantized(x)| in fp32 for a group of largest magnitude `absmax` (a normal, finite
// group): half a step, plus the fp32 roundings of scale, inverse scale, x * inv_scale and code * scale
// (four relative errors of at most 2^-24, each on a quantity <= absmax), with a factor 2 of margin.
// Rounding the result to fp16/bf16 adds half an ulp of the output type on top.
constexpr double QuantErrorBound(double absmax, int bits) {
  const double qmax = static_cast<double>((1 << (bits - 1)) - 1);
  return absmax / (2 * qmax) * (1 + 0x1p-23) + absmax * 0x1p-21;
}

}  // namespace zerosim::kernels
