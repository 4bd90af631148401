// The compute benchmark on a GPU (kernels/bench/compute_bench.h): the GEMM and the attention it times
// compute the right function (against float64 references on fresh random inputs, outputs poisoned with
// NaN first), and its measurements are sane: positive and finite, growing with the work, GEMMs below the
// tensor-core peak. Skipped, with the reason, where no CUDA device (or no cuBLASLt build) can run them.
#include "kernels/bench/compute_bench.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/bench/benchmark.h"
#include "kernels/bench/calibration_file.h"
#include "kernels/gpu.h"
#include "kernels/half.h"

namespace zerosim::kernels::bench {
namespace {

using nlohmann::json;

// Skips where the compute benchmark cannot run (no device, or a build without cuBLASLt), saying why. On a
// GPU with the benchmark built, every failure fails.
#define SKIP_WITHOUT_COMPUTE()                                                                      \
  do {                                                                                              \
    if (Status s = gpu::DeviceStatus(); !s.ok()) GTEST_SKIP() << "no CUDA device: " << s.message(); \
    if (!BuiltWithComputeBenchmark()) {                                                             \
      GTEST_SKIP() << "no compute benchmark: "                                                      \
                   << RunComputeBenchmark(ComputeOptions{}, stdout).status().message();             \
    }                                                                                               \
  } while (0)

// Uniform values in [-1, 1) as 16-bit patterns, and the values they hold.
std::vector<uint16_t> Random(size_t n, ValueType type, std::mt19937_64& rng, std::vector<double>* held) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint16_t> bits(n);
  held->resize(n);
  for (size_t i = 0; i < n; ++i) {
    bits[i] = FromFloat(u(rng), type);
    (*held)[i] = ToFloat(bits[i], type);
  }
  return bits;
}

// ||out - ref|| / ||ref||; infinite if any output is not finite (an unwritten, NaN-poisoned element).
double RelativeError(const std::vector<uint16_t>& out, ValueType type, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double y = ToFloat(out[i], type);
    if (!std::isfinite(y)) return INFINITY;
    num += (y - ref[i]) * (y - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

// Tolerances: three to five times the error of the same rounding steps emulated in numpy (bf16 inputs,
// fp32 accumulation, bf16 scores, probabilities and outputs): GEMM 1.7e-3 (bf16) and 2.1e-4 (fp16),
// attention 3.4e-3 and 3.9e-4.
double GemmTolerance(ValueType t) { return t == ValueType::kBf16 ? 5e-3 : 1e-3; }
double AttentionTolerance(ValueType t) { return t == ValueType::kBf16 ? 1e-2 : 2e-3; }

std::vector<ValueType> TypesHere() {
  if (DeviceHasBf16()) return {ValueType::kBf16, ValueType::kFp16};
  return {ValueType::kFp16};  // before compute capability 8.0
}

TEST(ComputeGpu, LinearMatchesTheReference) {
  SKIP_WITHOUT_COMPUTE();
  std::mt19937_64 rng(std::random_device{}());
  for (ValueType type : TypesHere()) {
    for (GemmShape s : {GemmShape{64, 48, 80}, GemmShape{130, 77, 33}, GemmShape{256, 512, 1024},
                        GemmShape{1, 4096, 4096}}) {
      std::vector<double> x, w;
      const std::vector<uint16_t> xb = Random(static_cast<size_t>(s.m * s.k), type, rng, &x);
      const std::vector<uint16_t> wb = Random(static_cast<size_t>(s.n * s.k), type, rng, &w);
      std::vector<double> ref(static_cast<size_t>(s.m * s.n));
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          double acc = 0;
          for (int64_t l = 0; l < s.k; ++l)
            acc += x[static_cast<size_t>(i * s.k + l)] * w[static_cast<size_t>(j * s.k + l)];
          ref[static_cast<size_t>(i * s.n + j)] = acc;
        }
      }
      const std::string what = std::string(ValueTypeName(type)) + " " + GemmShapesText({s});
      StatusOr<std::vector<uint16_t>> y = DeviceLinear(s, type, xb, wb);
      ASSERT_TRUE(y.ok()) << what << ": " << y.status().message();
      EXPECT_LT(RelativeError(*y, type, ref), GemmTolerance(type)) << what;
    }
  }
}

TEST(ComputeGpu, CausalAttentionMatchesTheReference) {
  SKIP_WITHOUT_COMPUTE();
  std::mt19937_64 rng(std::random_device{}());
  // seq 96: the vectorized softmax; seq 77: the element-wise one; seq 1: a single key.
  for (ValueType type : TypesHere()) {
    for (AttentionShape s : {AttentionShape{3, 96, 64}, AttentionShape{2, 77, 32}, AttentionShape{2, 1, 16},
                             AttentionShape{2, 1000, 128}}) {
      const auto n = static_cast<size_t>(s.batch_heads * s.seq * s.head_dim);
      std::vector<double> q, k, v;
      const std::vector<uint16_t> qb = Random(n, type, rng, &q);
      const std::vector<uint16_t> kb = Random(n, type, rng, &k);
      const std::vector<uint16_t> vb = Random(n, type, rng, &v);
      std::vector<double> ref(n, 0.0);
      const auto D = static_cast<size_t>(s.head_dim);
      for (size_t h = 0; h < static_cast<size_t>(s.batch_heads); ++h) {
        const size_t base = h * static_cast<size_t>(s.seq) * D;
        for (size_t i = 0; i < static_cast<size_t>(s.seq); ++i) {
          std::vector<double> p(i + 1);
          double max = -INFINITY, sum = 0;
          for (size_t j = 0; j <= i; ++j) {
            double dot = 0;
            for (size_t d = 0; d < D; ++d) dot += q[base + i * D + d] * k[base + j * D + d];
            p[j] = dot / std::sqrt(static_cast<double>(D));
            max = std::max(max, p[j]);
          }
          for (double& e : p) sum += (e = std::exp(e - max));
          for (size_t j = 0; j <= i; ++j) {
            for (size_t d = 0; d < D; ++d) ref[base + i * D + d] += p[j] / sum * v[base + j * D + d];
          }
        }
      }
      const std::string what = std::string(ValueTypeName(type)) + " " + std::to_string(s.batch_heads) + "x" +
                               std::to_string(s.seq) + "x" + std::to_string(s.head_dim);
      StatusOr<std::vector<uint16_t>> out = DeviceCausalAttention(s, type, qb, kb, vb);
      ASSERT_TRUE(out.ok()) << what << ": " << out.status().message();
      EXPECT_LT(RelativeError(*out, type, ref), AttentionTolerance(type)) << what;
    }
  }
}

// Each time at least `slack` times the previous one (the work grows along `times`).
void ExpectGrowing(const std::vector<double>& times, double slack, const std::string& what) {
  for (size_t i = 1; i < times.size(); ++i) {
    EXPECT_GE(times[i], slack * times[i - 1]) << what << ": step " << i;
  }
}

TEST(ComputeGpu, MeasurementsAreSane) {
  SKIP_WITHOUT_COMPUTE();
  ComputeOptions o;
  o.gemm_grid = GemmGrid::kNone;
  o.gemm_shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}};
  o.attention_shapes = {{8, 512, 128}, {8, 1024, 128}, {8, 2048, 128}, {8, 4096, 128}};
  o.warmup = 3;
  o.repetitions = 11;
  o.launch_batch = 200;
  o.launch_repetitions = 5;
  StatusOr<ComputeResult> r = RunComputeBenchmark(o, stdout);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->gemm.empty());
  for (ValueType type : {ValueType::kBf16, ValueType::kFp16}) {
    std::vector<double> times;
    for (const GemmPoint& p : r->gemm) {
      ASSERT_TRUE(std::isfinite(p.seconds) && p.seconds > 0);
      if (p.type != type) continue;
      times.push_back(p.seconds);
      if (r->peak_flops > 0) {
        EXPECT_LT(GemmFlops(p.shape) / p.seconds, r->peak_flops) << "faster than the tensor cores can be";
      }
    }
    if (times.empty()) continue;
    ASSERT_EQ(times.size(), 4u);
    ExpectGrowing(times, 0.95, std::string("GEMM ") + ValueTypeName(type));
    // 8x the FLOPs from 2048^3 to 4096^3 and on to 8192^3: compute-bound, so at least 2x the time.
    EXPECT_GT(times[2], 2 * times[1]);
    EXPECT_GT(times[3], 2 * times[2]);
    if (r->peak_flops > 0) {
      EXPECT_GT(GemmFlops(o.gemm_shapes[3]) / times[3], 0.2 * r->peak_flops)
          << "8192^3 below a fifth of the peak: timing or algorithm choice is off";
    } else {
      std::printf("note: no tensor peak known for compute capability %d.%d; GEMMs not bounded\n",
                  r->device.cc_major, r->device.cc_minor);
    }
  }
  std::vector<double> attention;
  for (const AttentionPoint& p : r->attention) {
    ASSERT_TRUE(std::isfinite(p.seconds) && p.seconds > 0);
    attention.push_back(p.seconds);
  }
  ASSERT_EQ(attention.size(), 4u);
  ExpectGrowing(attention, 0.95, "attention");
  EXPECT_GT(attention[3], 2 * attention[2]) << "4x the work from seq 2048 to 4096";
  for (double t : {r->launch_s, r->launch_queued_s, r->launch_latency_s}) {
    EXPECT_TRUE(std::isfinite(t) && t > 0 && t < 1e-3) << t;
  }
}

TEST(ComputeGpu, CopyGrowsWithSizeAndTheSectionReadsBack) {
  SKIP_WITHOUT_COMPUTE();
  BenchOptions ko;
  ko.max_bytes = int64_t{256} << 20;
  ko.warmup = 2;
  ko.repetitions = 7;
  StatusOr<BenchResult> k = RunKernelBenchmark(ko, stdout);
  ASSERT_TRUE(k.ok()) << k.status().message();
  ComputeOptions o;
  o.gemm_grid = GemmGrid::kNone;
  o.gemm_shapes = {{512, 512, 512}};
  o.attention_shapes = {{2, 256, 64}};
  o.warmup = 1;
  o.repetitions = 3;
  o.launch_batch = 10;
  o.launch_repetitions = 2;
  StatusOr<ComputeResult> c = RunComputeBenchmark(o, stdout);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const Stamp stamp = StampNow("compute_gpu_test");
  const ComputeSection section = MeasuredComputeSection(*k, *c, o, stamp);
  std::vector<double> copy;
  for (const CopyPoint& p : section.copy) copy.push_back(p.seconds);
  ASSERT_GE(copy.size(), 10u);
  ExpectGrowing(copy, 0.9, "copy");
  const double small_Bps = section.copy.front().bytes / copy.front();
  const double large_Bps = section.copy.back().bytes / copy.back();
  EXPECT_GT(large_Bps, 10 * small_Bps) << "from 4 KiB (launch-bound) to 256 MiB (bandwidth-bound)";
  const CalibrationFile f = MeasuredCalibration(
      *k, ko, "Test", stamp, json::parse(R"({"max": 0.6, "half_tokens": 1, "source": "t"})"), section);
  StatusOr<ComputeSection> back = ParseComputeSection(CalibrationFileText(f), "measured.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->gemm.size(), c->gemm.size());
  EXPECT_NE(back->provenance.find(c->device.name), std::string::npos);
}

}  // namespace
}  // namespace zerosim::kernels::bench
