// qgZ's kernels in the CPU reference: the swizzled quantization against a brute-force index map, the fused
// reduce kernels against the composition of the unfused stages, and the whole two-hop reduction.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/half.h"
#include "kernels/reference.h"
#include "tests/kernels/kernel_test_util.h"

namespace zerosim::kernels {
namespace {

using testing::Distribution;
using testing::MustQuantize;
using testing::RandomValues;

TEST(Swizzle, PaperExampleTwoNodesFourGpus) {
  // Partition p holds the constant p + 1, one group per partition: the scales in storage order name the
  // partitions. 2 nodes x 4 GPUs: 0 1 2 3 4 5 6 7 -> 0 4 1 5 2 6 3 7.
  const QuantSpec spec{4, 2, ValueType::kFp16};
  std::vector<uint16_t> x;
  for (int p = 0; p < 8; ++p) x.insert(x.end(), 2, FloatToHalfBits(static_cast<float>(p + 1)));
  const Quantized q = MustQuantize(x, spec, {2, 4});
  const int order[] = {0, 4, 1, 5, 2, 6, 3, 7};
  for (int slot = 0; slot < 8; ++slot) {
    EXPECT_EQ(q.scales[static_cast<size_t>(slot)], static_cast<float>(order[slot] + 1) / 7) << slot;
  }
}

TEST(Swizzle, MatchesABruteForceIndexMap) {
  for (int bits : {4, 8}) {
    for (auto [nodes, gpus] :
         {std::pair{2, 4}, std::pair{3, 2}, std::pair{4, 8}, std::pair{1, 8}, std::pair{5, 1}}) {
      const QuantSpec spec{bits, 6, ValueType::kBf16};
      const int64_t partition = 3 * spec.group_size;
      const int64_t n = partition * nodes * gpus;
      const std::vector<uint16_t> x = RandomValues(n, spec.type, Distribution::kGaussian, 11);
      const Quantized plain = MustQuantize(x, spec);
      const Quantized swizzled = MustQuantize(x, spec, {nodes, gpus});
      for (int64_t e = 0; e < n; ++e) {
        const int64_t p = e / partition;
        const int64_t slot = (p % gpus) * nodes + p / gpus;
        const int64_t to = slot * partition + e % partition;
        ASSERT_EQ(CodeAt(swizzled.codes, to, bits), CodeAt(plain.codes, e, bits)) << e;
        if (e % spec.group_size == 0) {
          ASSERT_EQ(swizzled.scales[static_cast<size_t>(to / spec.group_size)],
                    plain.scales[static_cast<size_t>(e / spec.group_size)]);
        }
      }
    }
  }
}

// The unfused composition: fp32 dequantization of each input, fp32 sums in input order.
std::vector<float> SumOfDequantized(const std::vector<Quantized>& inputs, const QuantSpec& spec) {
  std::vector<float> sum(static_cast<size_t>(inputs[0].elements), 0.0f);
  for (const Quantized& in : inputs) {
    const std::vector<float> x = *DequantizeToFloats(in, spec);
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += x[i];
  }
  return sum;
}

TEST(FusedReduce, DequantReduceQuantEqualsTheComposition) {
  for (int k : {1, 2, 3, 8, 16}) {
    for (int64_t n : {int64_t{1}, int64_t{999}, int64_t{4096}}) {
      const QuantSpec spec{4, 64, ValueType::kFp16};
      std::vector<Quantized> inputs = testing::RandomChunks(k, n, spec, 100 + static_cast<uint64_t>(k));
      const Quantized fused = *DequantReduceQuant(inputs, spec);
      const Quantized unfused = *QuantizeFloats(SumOfDequantized(inputs, spec), spec);
      EXPECT_EQ(fused.codes, unfused.codes) << k << " " << n;
      ASSERT_EQ(fused.scales.size(), unfused.scales.size());
      for (size_t g = 0; g < fused.scales.size(); ++g) {
        EXPECT_EQ(BitsFromFloat(fused.scales[g]), BitsFromFloat(unfused.scales[g])) << g;
      }
    }
  }
}

TEST(FusedReduce, DequantReduceEqualsTheCompositionAndAverages) {
  for (ValueType type : {ValueType::kFp16, ValueType::kBf16}) {
    for (int k : {1, 2, 3, 24}) {
      const QuantSpec spec{4, 128, type};
      std::vector<Quantized> inputs = testing::RandomChunks(k, 1001, spec, 200 + static_cast<uint64_t>(k));
      const std::vector<uint16_t> fused = *DequantReduce(inputs, spec);
      const std::vector<float> sum = SumOfDequantized(inputs, spec);
      for (size_t i = 0; i < sum.size(); ++i) {
        ASSERT_EQ(fused[i], FromFloat(sum[i] / static_cast<float>(k), type)) << i;
      }
    }
  }
}

TEST(FusedReduce, NonFiniteInputsStayVisible) {
  // One input's group holds Inf: the fused sum's group dequantizes to NaN, the other groups are exact.
  const QuantSpec spec{4, 4, ValueType::kFp16};
  std::vector<uint16_t> a(8, FloatToHalfBits(7));
  a[1] = 0x7C00;  // +Inf
  const std::vector<Quantized> inputs = {MustQuantize(a, spec),
                                         MustQuantize(std::vector<uint16_t>(8, FloatToHalfBits(7)), spec)};
  const Quantized r = *DequantReduceQuant(inputs, spec);
  EXPECT_TRUE(std::isnan(r.scales[0]));
  EXPECT_EQ(r.scales[1], 2.0f);
  const std::vector<uint16_t> y = *DequantReduce(inputs, spec);
  EXPECT_EQ(y[0], kHalfNanBits);
  EXPECT_EQ(HalfBitsToFloat(y[5]), 7.0f);
}

// The first `count` elements from `first` of `q` (both multiples of the group size).
Quantized Slice(const Quantized& q, int64_t first, int64_t count, const QuantSpec& spec) {
  Quantized s;
  s.elements = count;
  const auto byte = [&](int64_t e) { return q.codes.begin() + CodeBytes(e, spec.bits); };
  s.codes.assign(byte(first), byte(first + count));
  const auto group = q.scales.begin() + first / spec.group_size;
  s.scales.assign(group, group + NumGroups(count, spec.group_size));
  return s;
}

TEST(Qgz, TwoHopReductionDeliversEachRankItsAveragedPartition) {
  // N nodes x D GPUs, each with its own gradient. Hop 1: swizzled int4 quantization, intra-node all-to-all
  // (local GPU d gets slot block d from every local GPU), fused dequantize-sum-requantize. Hop 2: inter-node
  // all-to-all (node m gets chunk m from every node), final dequantize-sum-average. Rank (m, d) must hold
  // partition m * D + d of sum(gradients) / N.
  const int nodes = 3;
  const int gpus = 4;
  const QuantSpec spec{4, 32, ValueType::kFp16};
  const int64_t partition = 4 * spec.group_size;
  const int64_t n = partition * nodes * gpus;
  std::vector<std::vector<uint16_t>> grads;
  std::vector<Quantized> hop1;
  for (int r = 0; r < nodes * gpus; ++r) {
    grads.push_back(RandomValues(n, spec.type, Distribution::kGaussian, 300 + static_cast<uint64_t>(r)));
    hop1.push_back(MustQuantize(grads.back(), spec, {nodes, gpus}));
  }
  const int64_t block = partition * nodes;  // what one local GPU receives from each peer
  std::vector<Quantized> reduced(static_cast<size_t>(nodes * gpus));
  for (int m = 0; m < nodes; ++m) {
    for (int d = 0; d < gpus; ++d) {
      std::vector<Quantized> received;
      for (int j = 0; j < gpus; ++j)
        received.push_back(Slice(hop1[static_cast<size_t>(m * gpus + j)], d * block, block, spec));
      reduced[static_cast<size_t>(m * gpus + d)] = *DequantReduceQuant(received, spec);
    }
  }
  double err2 = 0;
  double ref2 = 0;
  for (int m = 0; m < nodes; ++m) {
    for (int d = 0; d < gpus; ++d) {
      std::vector<Quantized> received;
      for (int from = 0; from < nodes; ++from) {
        received.push_back(
            Slice(reduced[static_cast<size_t>(from * gpus + d)], m * partition, partition, spec));
      }
      const std::vector<uint16_t> out = *DequantReduce(received, spec);
      const int64_t p = m * gpus + d;
      for (int64_t i = 0; i < partition; ++i) {
        double expected = 0;
        for (const auto& g : grads) expected += HalfBitsToFloat(g[static_cast<size_t>(p * partition + i)]);
        expected /= nodes;
        const double e = HalfBitsToFloat(out[static_cast<size_t>(i)]) - expected;
        err2 += e * e;
        ref2 += expected * expected;
      }
    }
  }
  // Two int4 roundings: hop 1 adds D independent errors of ~14% of each input; hop 2 rounds the sum again.
  // A wrong partition would give an error above 100%.
  EXPECT_LT(std::sqrt(err2 / ref2), 0.25);
  EXPECT_GT(std::sqrt(err2 / ref2), 0.05);
}

}  // namespace
}  // namespace zerosim::kernels
