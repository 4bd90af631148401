// The CUDA kernels against the CPU reference, bit for bit, on fresh random inputs of many sizes (gpu.h
// poisons every output with 0xFF and checks a guard zone past its end). Skipped, visibly, where no CUDA
// device can run them.
#include "kernels/gpu.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/half.h"
#include "kernels/quant_math.h"
#include "kernels/reference.h"
#include "tests/kernels/kernel_test_util.h"

namespace zerosim::kernels {
namespace {

using testing::Distribution;

#define SKIP_WITHOUT_DEVICE()                            \
  do {                                                   \
    if (Status s = gpu::DeviceStatus(); !s.ok()) {       \
      GTEST_SKIP() << "no CUDA device: " << s.message(); \
    }                                                    \
  } while (0)

void ExpectSameQuantized(const Quantized& gpu, const Quantized& cpu, const std::string& what) {
  ASSERT_EQ(gpu.elements, cpu.elements) << what;
  ASSERT_EQ(gpu.codes, cpu.codes) << what;
  ASSERT_EQ(gpu.scales.size(), cpu.scales.size()) << what;
  for (size_t g = 0; g < cpu.scales.size(); ++g) {
    ASSERT_EQ(BitsFromFloat(gpu.scales[g]), BitsFromFloat(cpu.scales[g])) << what << " scale " << g;
  }
}

// Random values with special values sprinkled in: NaN, +-Inf, zeros, subnormals, whole zero groups.
std::vector<uint16_t> Inputs(int64_t n, const QuantSpec& spec, uint64_t seed) {
  std::vector<uint16_t> x = testing::RandomValues(n, spec.type, static_cast<Distribution>(seed % 4), seed);
  std::mt19937_64 rng(seed);
  const bool fp16 = spec.type == ValueType::kFp16;
  const uint16_t specials[] = {fp16 ? kHalfNanBits : kBf16NanBits,
                               static_cast<uint16_t>(fp16 ? 0x7C00 : 0x7F80),
                               static_cast<uint16_t>(fp16 ? 0xFC00 : 0xFF80),
                               0x8000,
                               0x0001,
                               0x8003};
  for (int i = 0; i < 4 && n > 0; ++i) x[rng() % static_cast<uint64_t>(n)] = specials[rng() % 6];
  if (n > 3 * spec.group_size) std::fill(x.begin() + spec.group_size, x.begin() + 2 * spec.group_size, 0);
  return x;
}

struct Shape {
  int bits;
  int64_t group;
  ValueType type;
};

// Vectorized (group % 8 == 0) and element-wise paths, small and large groups, both value types.
const Shape kShapes[] = {{8, 2048, ValueType::kFp16}, {4, 2048, ValueType::kBf16}, {8, 64, ValueType::kBf16},
                         {4, 6144, ValueType::kFp16}, {4, 10, ValueType::kFp16},   {8, 2, ValueType::kBf16},
                         {4, 8192, ValueType::kBf16}, {8, 512, ValueType::kFp16}};
const int64_t kSizes[] = {0, 1, 2, 7, 8, 9, 255, 4096, 4097, 65535, 1 << 20, (1 << 20) + 6, 3'000'001};

TEST(Gpu, ConversionsMatchTheSoftwareOnes) {
  SKIP_WITHOUT_DEVICE();
  for (ValueType type : {ValueType::kFp16, ValueType::kBf16}) {
    std::vector<uint16_t> all(1 << 16);
    for (uint32_t b = 0; b < all.size(); ++b) all[b] = static_cast<uint16_t>(b);
    const std::vector<float> widened = *gpu::ToFloats(all, type);
    for (uint32_t b = 0; b < all.size(); ++b) {
      ASSERT_EQ(BitsFromFloat(widened[b]), BitsFromFloat(ToFloat(all[b], type)))
          << ValueTypeName(type) << " " << b;
    }
    std::mt19937 rng(31);
    std::vector<float> f = {0.0f,
                            -0.0f,
                            65504.0f,
                            65520.0f,
                            0x1p-25f,
                            0x1.8p-24f,
                            0x1p-119f,
                            0x1.ffp127f,
                            std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min()};
    for (int i = 0; i < 1 << 20; ++i) f.push_back(FloatFromBits(static_cast<uint32_t>(rng())));
    for (uint32_t b = 0; b < 0x7C00; ++b) {  // just below, at and above every fp16 midpoint
      const float lo = HalfBitsToFloat(static_cast<uint16_t>(b));
      const float mid = lo + (HalfBitsToFloat(static_cast<uint16_t>(b + 1)) - lo) / 2;
      f.insert(f.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)});
    }
    const std::vector<uint16_t> narrowed = *gpu::FromFloats(f, type);
    for (size_t i = 0; i < f.size(); ++i) ASSERT_EQ(narrowed[i], FromFloat(f[i], type)) << f[i];
  }
}

TEST(Gpu, QuantizeAndDequantizeMatchTheReference) {
  SKIP_WITHOUT_DEVICE();
  uint64_t seed = 1;
  for (const Shape& s : kShapes) {
    const QuantSpec spec{s.bits, s.group, s.type};
    for (int64_t n : kSizes) {
      const std::vector<uint16_t> x = Inputs(n, spec, ++seed);
      const std::string what = testing::SpecName(spec) + " n=" + std::to_string(n);
      const Quantized cpu = *Quantize(x, spec);
      StatusOr<Quantized> dev = gpu::Quantize(x, spec);
      ASSERT_TRUE(dev.ok()) << what << ": " << dev.status().message();
      ExpectSameQuantized(*dev, cpu, what);
      StatusOr<std::vector<uint16_t>> y = gpu::Dequantize(cpu, spec);
      ASSERT_TRUE(y.ok()) << what << ": " << y.status().message();
      ASSERT_EQ(*y, *Dequantize(cpu, spec)) << what;
    }
  }
}

TEST(Gpu, SwizzledQuantizeMatchesTheReference) {
  SKIP_WITHOUT_DEVICE();
  for (const Shape& s : kShapes) {
    const QuantSpec spec{s.bits, s.group, s.type};
    for (Swizzle sw : {Swizzle{2, 4}, Swizzle{4, 8}, Swizzle{3, 2}, Swizzle{24, 16}}) {
      const int64_t n = static_cast<int64_t>(sw.nodes) * sw.gpus_per_node * s.group * 3;
      const std::vector<uint16_t> x = Inputs(n, spec, static_cast<uint64_t>(n + s.bits));
      const std::string what = testing::SpecName(spec) + " swizzle " + std::to_string(sw.nodes) + "x" +
                               std::to_string(sw.gpus_per_node);
      StatusOr<Quantized> dev = gpu::Quantize(x, spec, sw);
      ASSERT_TRUE(dev.ok()) << what << ": " << dev.status().message();
      ExpectSameQuantized(*dev, *Quantize(x, spec, sw), what);
    }
  }
}

TEST(Gpu, FusedReducesMatchTheReference) {
  SKIP_WITHOUT_DEVICE();
  uint64_t seed = 1000;
  for (const Shape& s : kShapes) {
    const QuantSpec spec{s.bits, s.group, s.type};
    for (int k : {1, 2, 8, 24}) {
      for (int64_t n : {int64_t{1}, int64_t{9}, int64_t{4096}, int64_t{100'003}, int64_t{1} << 20}) {
        std::vector<Quantized> inputs;
        for (int i = 0; i < k; ++i) inputs.push_back(*Quantize(Inputs(n, spec, ++seed), spec));
        const std::string what =
            testing::SpecName(spec) + " k=" + std::to_string(k) + " n=" + std::to_string(n);
        StatusOr<Quantized> drq = gpu::DequantReduceQuant(inputs, spec);
        ASSERT_TRUE(drq.ok()) << what << ": " << drq.status().message();
        ExpectSameQuantized(*drq, *DequantReduceQuant(inputs, spec), what);
        StatusOr<std::vector<uint16_t>> dr = gpu::DequantReduce(inputs, spec);
        ASSERT_TRUE(dr.ok()) << what << ": " << dr.status().message();
        ASSERT_EQ(*dr, *DequantReduce(inputs, spec)) << what;
      }
    }
  }
}

TEST(Gpu, WithoutADeviceEveryCallSaysWhy) {
  if (gpu::DeviceStatus().ok()) GTEST_SKIP() << "a CUDA device is present; nothing to check here";
  const Status s = gpu::DeviceStatus();
  EXPECT_FALSE(s.message().empty());
  EXPECT_FALSE(gpu::Quantize({1, 2}, QuantSpec{}).ok());
  EXPECT_FALSE(gpu::FromFloats({1.0f}, ValueType::kFp16).ok());
  EXPECT_TRUE(gpu::DeviceName().empty());
}

}  // namespace
}  // namespace zerosim::kernels
