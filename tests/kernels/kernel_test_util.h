// Deterministic test data for the quantization kernels: 16-bit values drawn from several distributions,
// with optional special values, and the error bound an element must meet.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/format.h"
#include "kernels/half.h"
#include "kernels/quant_math.h"
#include "kernels/reference.h"

namespace zerosim::kernels::testing {

enum class Distribution { kUniform, kGaussian, kHeavyTailed, kSmallGaussian };

inline const char* DistributionName(Distribution d) {
  switch (d) {
    case Distribution::kUniform:
      return "uniform";
    case Distribution::kGaussian:
      return "gaussian";
    case Distribution::kHeavyTailed:
      return "student_t2";
    case Distribution::kSmallGaussian:
      return "gaussian_sigma1em4";
  }
  return "?";
}

// `n` values of `type` (bit patterns) from `d`, seeded by `seed`. Heavy-tailed: Student's t with 2
// degrees of freedom (infinite variance), clipped to +-1000 to stay finite in fp16. Small Gaussian:
// sigma 1e-4, where fp16 subnormals (below 6.1e-5) appear.
inline std::vector<uint16_t> RandomValues(int64_t n, ValueType type, Distribution d, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::normal_distribution<float> gaussian(0.0f, 1.0f);
  std::student_t_distribution<float> student(2.0f);
  std::vector<uint16_t> out(static_cast<size_t>(n));
  for (uint16_t& v : out) {
    float x = 0;
    switch (d) {
      case Distribution::kUniform:
        x = uniform(rng);
        break;
      case Distribution::kGaussian:
        x = gaussian(rng);
        break;
      case Distribution::kHeavyTailed:
        x = std::clamp(student(rng), -1000.0f, 1000.0f);
        break;
      case Distribution::kSmallGaussian:
        x = 1e-4f * gaussian(rng);
        break;
    }
    v = FromFloat(x, type);
  }
  return out;
}

inline std::vector<float> ToFloats(const std::vector<uint16_t>& bits, ValueType type) {
  std::vector<float> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) out[i] = ToFloat(bits[i], type);
  return out;
}

// Half the distance between `v` and its neighbours in `type`, bounded from above (relative 2^-11 or 2^-8
// of the magnitude, plus half the smallest subnormal).
inline double OutputRoundingBound(double v, ValueType type) {
  return type == ValueType::kFp16 ? std::fabs(v) * 0x1p-11 + 0x1p-25 : std::fabs(v) * 0x1p-8 + 0x1p-134;
}

// Quantizes `x` with the reference, or fails the test.
inline Quantized MustQuantize(const std::vector<uint16_t>& x, const QuantSpec& spec,
                              const Swizzle& swizzle = {}) {
  StatusOr<Quantized> q = Quantize(x, spec, swizzle);
  if (!q.ok()) throw std::runtime_error(q.status().message());
  return *q;
}

// k quantized chunks of `n` elements of Gaussian data with per-chunk scale factors.
inline std::vector<Quantized> RandomChunks(int k, int64_t n, const QuantSpec& spec, uint64_t seed) {
  std::vector<Quantized> chunks;
  for (int i = 0; i < k; ++i) {
    chunks.push_back(MustQuantize(
        RandomValues(n, spec.type, Distribution::kGaussian, seed + static_cast<uint64_t>(i)), spec));
  }
  return chunks;
}

inline std::string SpecName(const QuantSpec& spec) {
  return "int" + std::to_string(spec.bits) + "_g" + std::to_string(spec.group_size) + "_" +
         ValueTypeName(spec.type);
}

}  // namespace zerosim::kernels::testing
