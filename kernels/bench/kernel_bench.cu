// bench/benchmark.h on CUDA.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/bench/benchmark.h"
#include "kernels/bench/device_info.h"
#include "kernels/cuda/device_ops.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/gpu.h"
#include "model/cost/kernel_cost.h"

namespace zerosim::kernels::bench {
namespace {

using model::Kernel;

constexpr int64_t kAlign = 256;
int64_t AlignUp(int64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

Status CudaError(const char* what, cudaError_t err) {
  return Status::Error(std::string(what) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                       ")");
}

#define ZS_CUDA_TRY(what, call)                           \
  do {                                                    \
    if (cudaError_t err_ = (call); err_ != cudaSuccess) { \
      return CudaError(what, err_);                       \
    }                                                     \
  } while (0)

// What one call reads and writes: a slab of device memory with its regions at 256-byte aligned offsets.
struct Slab {
  uint16_t* values = nullptr;  // input 16-bit values (quantizers)
  uint8_t* codes = nullptr;    // input codes, fan_in chunks (dequantizers, reduces)
  float* scales = nullptr;     // input scales, fan_in chunks
  uint8_t* out_codes = nullptr;
  float* out_scales = nullptr;
  uint16_t* out_values = nullptr;
};

struct SlabLayout {
  int64_t values = 0, codes = 0, scales = 0, out_codes = 0, out_scales = 0, out_values = 0;  // region bytes
  int64_t bytes() const {
    return AlignUp(values) + AlignUp(codes) + AlignUp(scales) + AlignUp(out_codes) + AlignUp(out_scales) +
           AlignUp(out_values);
  }
  Slab At(char* base) const {
    Slab s;
    char* p = base;
    auto take = [&p](int64_t size) {
      char* at = size > 0 ? p : nullptr;
      p += AlignUp(size);
      return at;
    };
    s.values = reinterpret_cast<uint16_t*>(take(values));
    s.codes = reinterpret_cast<uint8_t*>(take(codes));
    s.scales = reinterpret_cast<float*>(take(scales));
    s.out_codes = reinterpret_cast<uint8_t*>(take(out_codes));
    s.out_scales = reinterpret_cast<float*>(take(out_scales));
    s.out_values = reinterpret_cast<uint16_t*>(take(out_values));
    return s;
  }
};

bool IsQuantizer(Kernel k) {
  return k == Kernel::kQuantizeInt8 || k == Kernel::kQuantizeInt4 || k == Kernel::kSwizzleQuantizeInt4;
}
int BitsOf(Kernel k) { return (k == Kernel::kQuantizeInt8 || k == Kernel::kDequantizeInt8) ? 8 : 4; }
int FanIn(Kernel k, const BenchOptions& o) {
  return (k == Kernel::kDequantReduceQuantInt4 || k == Kernel::kDequantReduceInt4) ? o.fan_in : 1;
}

// The device-to-device copy of `bytes`: a source and a destination.
SlabLayout CopyLayout(int64_t bytes) {
  SlabLayout l;
  l.values = bytes;
  l.out_values = bytes;
  return l;
}

SlabLayout LayoutFor(Kernel k, int64_t n, const BenchOptions& o) {
  const int bits = BitsOf(k);
  const int fan_in = FanIn(k, o);
  SlabLayout l;
  if (IsQuantizer(k)) {
    l.values = 2 * n;
  } else {
    l.codes = fan_in * CodeBytes(n, bits);
    l.scales = fan_in * NumGroups(n, o.group_size) * 4;
  }
  if (IsQuantizer(k) || k == Kernel::kDequantReduceQuantInt4) {
    l.out_codes = CodeBytes(n, bits);
    l.out_scales = NumGroups(n, o.group_size) * 4;
  } else {
    l.out_values = 2 * n;
  }
  return l;
}

// The largest swizzle no bigger than `want` whose partitions hold whole groups of an n-element tensor.
Swizzle FitSwizzle(Swizzle want, int64_t n, int64_t group) {
  for (int d = want.gpus_per_node; d >= 1; --d) {
    for (int m = want.nodes; m >= 1; --m) {
      const int64_t parts = static_cast<int64_t>(m) * d;
      if (n % parts == 0 && (n / parts) % group == 0) return {m, d};
    }
  }
  return {1, 1};
}

// Deterministic pseudo-random fill: values near N(0, 1) (sum of four uniforms), random code bytes, scales
// in [1e-3, 2e-3).
__device__ uint32_t Hash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}

__global__ void FillKernel(Slab s, int64_t values, int64_t code_bytes, int64_t scales, bool bf16,
                           uint64_t seed) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < values || i < code_bytes || i < scales; i += stride) {
    const uint32_t h = Hash(seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(i));
    if (i < values) {
      const float u = ((h & 0xFF) + ((h >> 8) & 0xFF) + ((h >> 16) & 0xFF) + (h >> 24)) / 255.0f - 2.0f;
      const float x = u * 1.732f;
      s.values[i] = bf16 ? cuda::FromFloatDev<true>(x) : cuda::FromFloatDev<false>(x);
    }
    if (i < code_bytes) s.codes[i] = static_cast<uint8_t>(h);
    if (i < scales) s.scales[i] = 1e-3f * (1.0f + (h & 0xFFFF) / 65536.0f);
  }
}

cudaError_t LaunchKernel(Kernel k, const Slab& s, int64_t n, const BenchOptions& o, cudaStream_t stream) {
  const QuantSpec spec{BitsOf(k), o.group_size, o.type};
  switch (k) {
    case Kernel::kQuantizeInt8:
    case Kernel::kQuantizeInt4:
      return cuda::LaunchQuantize(s.values, n, spec, Swizzle{}, s.out_codes, s.out_scales, stream);
    case Kernel::kSwizzleQuantizeInt4:
      return cuda::LaunchQuantize(s.values, n, spec, FitSwizzle(o.swizzle, n, o.group_size), s.out_codes,
                                  s.out_scales, stream);
    case Kernel::kDequantizeInt8:
    case Kernel::kDequantizeInt4:
      return cuda::LaunchDequantize(s.codes, s.scales, n, spec, s.out_values, stream);
    case Kernel::kDequantReduceQuantInt4:
      return cuda::LaunchDequantReduceQuant(s.codes, s.scales, o.fan_in, n, spec, s.out_codes, s.out_scales,
                                            stream);
    case Kernel::kDequantReduceInt4:
      return cuda::LaunchDequantReduce(s.codes, s.scales, o.fan_in, n, spec, s.out_values, stream);
    case Kernel::kCount:
      break;
  }
  return cudaErrorInvalidValue;
}

// Device memory and events shared by every measurement.
class Bench {
 public:
  Bench(const BenchOptions& options, std::FILE* log) : o_(options), log_(log) {}
  ~Bench() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    if (arena_ != nullptr) cudaFree(arena_);
    if (flush_ != nullptr) cudaFree(flush_);
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  Status Init(BenchResult& r) {
    StatusOr<DeviceInfo> device = QueryDevice();
    if (!device.ok()) return device.status();
    r.device = device->name;
    r.l2_bytes = device->l2_bytes;
    r.driver = device->driver;
    r.cuda_runtime = device->cuda_runtime;
    rotate_ = std::max<int64_t>(4 * r.l2_bytes, int64_t{64} << 20);
    // Memory: the largest slab twice (two rotating copies at least) or the rotation span plus one slab.
    size_t free_bytes = 0, total_bytes = 0;
    ZS_CUDA_TRY("cudaMemGetInfo", cudaMemGetInfo(&free_bytes, &total_bytes));
    r.max_bytes = o_.max_bytes;
    while (ArenaFor(r.max_bytes / 2) > static_cast<int64_t>(free_bytes * 0.8) && r.max_bytes > o_.min_bytes) {
      r.max_bytes /= 2;
    }
    if (r.max_bytes < o_.max_bytes) {
      std::fprintf(log_, "note: largest size reduced to %lld bytes to fit device memory\n",
                   static_cast<long long>(r.max_bytes));
    }
    arena_bytes_ = ArenaFor(r.max_bytes / 2);
    r.rotate_bytes = rotate_;
    ZS_CUDA_TRY("cudaMalloc (rotation arena)", cudaMalloc(&arena_, static_cast<size_t>(arena_bytes_)));
    flush_bytes_ = 2 * std::max<int64_t>(r.l2_bytes, int64_t{1} << 20);
    ZS_CUDA_TRY("cudaMalloc (L2 flush)", cudaMalloc(&flush_, static_cast<size_t>(flush_bytes_)));
    events_.resize(2 * static_cast<size_t>(o_.repetitions));
    for (cudaEvent_t& e : events_) ZS_CUDA_TRY("cudaEventCreate", cudaEventCreate(&e));
    return Status::Ok();
  }

  // Median seconds of `launch(slab)` over the repetitions, inputs filled and L2 flushed first.
  template <typename LaunchFn>
  StatusOr<double> Time(const SlabLayout& layout, bool bf16, LaunchFn launch) {
    const int64_t slab = layout.bytes();
    const int64_t slabs = std::min(arena_bytes_ / slab, std::max<int64_t>(2, (rotate_ + slab - 1) / slab));
    if (slabs < 1) return Status::Error("rotation arena too small");
    const int64_t calls = o_.warmup + o_.repetitions;
    for (int64_t i = 0; i < std::min(slabs, calls); ++i) {
      const Slab s = layout.At(arena_ + i * slab);
      FillKernel<<<1024, 256>>>(s, layout.values / 2, layout.codes, layout.scales / 4, bf16,
                                static_cast<uint64_t>(i + 1));
    }
    ZS_CUDA_TRY("fill", cudaGetLastError());
    ZS_CUDA_TRY("L2 flush", cudaMemsetAsync(flush_, 0, static_cast<size_t>(flush_bytes_)));
    for (int64_t i = 0; i < calls; ++i) {
      const Slab s = layout.At(arena_ + (i % slabs) * slab);
      const int64_t rep = i - o_.warmup;
      if (rep >= 0) ZS_CUDA_TRY("cudaEventRecord", cudaEventRecord(events_[2 * rep]));
      ZS_CUDA_TRY("launch", launch(s));
      if (rep >= 0) ZS_CUDA_TRY("cudaEventRecord", cudaEventRecord(events_[2 * rep + 1]));
    }
    ZS_CUDA_TRY("synchronize", cudaDeviceSynchronize());
    std::vector<double> seconds;
    for (int rep = 0; rep < o_.repetitions; ++rep) {
      float ms = 0;
      ZS_CUDA_TRY("cudaEventElapsedTime", cudaEventElapsedTime(&ms, events_[2 * rep], events_[2 * rep + 1]));
      seconds.push_back(ms * 1e-3);
    }
    std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
    return seconds[seconds.size() / 2];
  }

 private:
  int64_t ArenaFor(int64_t max_elements) const {
    int64_t slab = CopyLayout(2 * max_elements).bytes();
    for (int k = 0; k < model::kNumKernels; ++k)
      slab = std::max(slab, LayoutFor(static_cast<Kernel>(k), max_elements, o_).bytes());
    return std::max(2 * slab, rotate_ + slab);
  }

  BenchOptions o_;
  std::FILE* log_;
  char* arena_ = nullptr;
  int64_t arena_bytes_ = 0;
  int64_t rotate_ = 0;
  void* flush_ = nullptr;
  int64_t flush_bytes_ = 0;
  std::vector<cudaEvent_t> events_;
};

}  // namespace

StatusOr<BenchResult> RunKernelBenchmark(const BenchOptions& o, std::FILE* log) {
  if (Status s = gpu::DeviceStatus(); !s.ok()) return s;
  if (Status s = CheckSpec({4, o.group_size, o.type}); !s.ok()) return s;
  if (o.min_bytes < 4 || o.max_bytes < o.min_bytes || o.repetitions < 1 || o.warmup < 0 || o.fan_in < 1) {
    return Status::Error("benchmark options out of range");
  }
  BenchResult r;
  Bench bench(o, log);
  if (Status s = bench.Init(r); !s.ok()) return s;
  std::fprintf(log, "%s, driver %s, CUDA runtime %s, L2 %lld MiB; rotating over %lld MiB\n", r.device.c_str(),
               r.driver.c_str(), r.cuda_runtime.c_str(), static_cast<long long>(r.l2_bytes >> 20),
               static_cast<long long>(r.rotate_bytes >> 20));

  // The ceiling: device-to-device copy, read + write counted.
  for (int64_t bytes = o.min_bytes; bytes <= r.max_bytes; bytes *= 2) {
    StatusOr<double> t = bench.Time(CopyLayout(bytes), false, [&](const Slab& s) {
      return cudaMemcpyAsync(s.out_values, s.values, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice);
    });
    if (!t.ok()) return t.status();
    r.copy_points.push_back({2.0 * bytes, *t});
  }
  r.copy_Bps = r.copy_points.back().bytes / r.copy_points.back().seconds;
  std::fprintf(log, "device-to-device copy: %.1f GB/s at %lld bytes (read + write)\n", r.copy_Bps / 1e9,
               static_cast<long long>(r.max_bytes));

  for (int k = 0; k < model::kNumKernels; ++k) {
    const auto kernel = static_cast<Kernel>(k);
    std::fprintf(log, "\n%s (groups of %lld, fan-in %d, %s)\n%14s %14s %12s %10s %8s\n",
                 model::KernelName(kernel), static_cast<long long>(o.group_size), FanIn(kernel, o),
                 ValueTypeName(o.type), "elements", "bytes", "median us", "GB/s", "of copy");
    for (int64_t bytes = o.min_bytes; bytes <= r.max_bytes; bytes *= 2) {
      const int64_t n = bytes / 2;
      StatusOr<double> t = bench.Time(LayoutFor(kernel, n, o), o.type == ValueType::kBf16,
                                      [&](const Slab& s) { return LaunchKernel(kernel, s, n, o, nullptr); });
      if (!t.ok()) return Status::Error(std::string(model::KernelName(kernel)) + ": " + t.status().message());
      const double moved = model::KernelBytes(kernel, static_cast<double>(n), BitsOf(kernel),
                                              static_cast<double>(o.group_size), FanIn(kernel, o));
      r.points[static_cast<size_t>(k)].push_back({moved, *t});
      std::fprintf(log, "%14lld %14.0f %12.2f %10.1f %7.0f%%\n", static_cast<long long>(n), moved, *t * 1e6,
                   moved / *t / 1e9, 100 * moved / *t / r.copy_Bps);
    }
  }
  return r;
}

}  // namespace zerosim::kernels::bench
