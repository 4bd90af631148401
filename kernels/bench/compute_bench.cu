// bench/compute_bench.h on CUDA: the timing. (The host-buffer entry points are in compute_host.cc.)
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/bench/compute_bench.h"
#include "kernels/bench/lt_gemm.h"
#include "kernels/cuda/attention.h"
#include "kernels/gpu.h"

namespace zerosim::kernels::bench {
namespace {

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

__global__ void EmptyKernel() {}

// Holds the GPU for `ns` nanoseconds of its global timer, so that the host can queue the calls behind it.
__global__ void SpinKernel(uint64_t ns) {
  uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Uniform values in [-1, 1) of the 16-bit type (bf16 by truncating fp32 bits, fp16 by conversion),
// deterministic in (seed, i).
__global__ void FillUniform(uint16_t* p, int64_t n, bool bf16, uint64_t seed) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(i);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    const float u = static_cast<float>(x >> 40) * 0x1p-23f - 1.0f;  // 24 random bits
    p[i] = bf16 ? static_cast<uint16_t>(__float_as_uint(u) >> 16) : __half_as_ushort(__float2half_rn(u));
  }
}

double Median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::string LtVersion() {
  const size_t v = cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

// Device memory, events, the cuBLASLt handle and its workspace, shared by every measurement.
class ComputeBench {
 public:
  explicit ComputeBench(const ComputeOptions& o) : o_(o) {}
  ~ComputeBench() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    for (void* p : {arena_, flush_, workspace_}) {
      if (p != nullptr) cudaFree(p);
    }
    if (lt_ != nullptr) cublasLtDestroy(lt_);
  }
  ComputeBench(const ComputeBench&) = delete;
  ComputeBench& operator=(const ComputeBench&) = delete;

  Status Init(const DeviceInfo& d) {
    l2_bytes_ = std::max<int64_t>(d.l2_bytes, int64_t{1} << 20);
    if (cublasStatus_t st = cublasLtCreate(&lt_); st != CUBLAS_STATUS_SUCCESS) {
      return Status::Error("cublasLtCreate: " + cuda::CublasStatusText(st));
    }
    ZS_CUDA_TRY("cudaMalloc (workspace)", cudaMalloc(&workspace_, static_cast<size_t>(o_.workspace_bytes)));
    ZS_CUDA_TRY("cudaMalloc (L2 flush)", cudaMalloc(&flush_, static_cast<size_t>(2 * l2_bytes_)));
    events_.resize(2 * static_cast<size_t>(std::max(o_.repetitions, o_.launch_repetitions)));
    for (cudaEvent_t& e : events_) ZS_CUDA_TRY("cudaEventCreate", cudaEventCreate(&e));
    return Status::Ok();
  }

  cublasLtHandle_t lt() const { return lt_; }
  void* workspace() const { return workspace_; }
  size_t workspace_bytes() const { return static_cast<size_t>(o_.workspace_bytes); }

  // The bytes one call's rotating inputs span: at least 4 x L2 and two calls' worth.
  int64_t RotationBytes(int64_t call_bytes) const { return std::max(4 * l2_bytes_, 2 * AlignUp(call_bytes)); }

  // A random arena of `bytes` (re-used when big enough), refilled with `type` values.
  StatusOr<uint16_t*> Arena(int64_t bytes, ValueType type) {
    if (bytes > arena_bytes_) {
      if (arena_ != nullptr) cudaFree(arena_);
      arena_ = nullptr;
      arena_bytes_ = 0;
      ZS_CUDA_TRY("cudaMalloc (arena)", cudaMalloc(&arena_, static_cast<size_t>(bytes)));
      arena_bytes_ = bytes;
    }
    FillUniform<<<1024, 256>>>(static_cast<uint16_t*>(arena_), bytes / 2, type == ValueType::kBf16, ++seed_);
    ZS_CUDA_TRY("fill", cudaGetLastError());
    return static_cast<uint16_t*>(arena_);
  }

  // Median device seconds of `call(i)` (i counts warm-up and timed calls from 0): L2 flushed, a spin
  // kernel holding the GPU while every call is queued, then events around each timed call.
  template <typename Call>
  StatusOr<double> Time(int launches_per_call, Call call) {
    ZS_CUDA_TRY("L2 flush", cudaMemsetAsync(flush_, 0, static_cast<size_t>(2 * l2_bytes_)));
    // 50 us per launch queued (cuBLASLt and an event pair take a few us of host time each): the spin
    // outlasts the queueing, so no call waits for the host.
    const int calls = o_.warmup + o_.repetitions;
    const auto spin_ns = static_cast<uint64_t>(std::min(50e6, 50e3 * calls * launches_per_call));
    SpinKernel<<<1, 1>>>(spin_ns);
    ZS_CUDA_TRY("spin", cudaGetLastError());
    for (int i = 0; i < calls; ++i) {
      const int rep = i - o_.warmup;
      if (rep >= 0) ZS_CUDA_TRY("cudaEventRecord", cudaEventRecord(events_[2 * rep]));
      if (Status s = call(i); !s.ok()) return s;
      if (rep >= 0) ZS_CUDA_TRY("cudaEventRecord", cudaEventRecord(events_[2 * rep + 1]));
    }
    ZS_CUDA_TRY("synchronize", cudaDeviceSynchronize());
    return Elapsed(o_.repetitions, 1);
  }

  // Launch costs: back-to-back batches issued by the host, the same queued behind a spin, and single
  // launches waited for by the host.
  Status TimeLaunches(ComputeResult& r) {
    const int batch = o_.launch_batch;
    for (bool queued : {false, true}) {
      for (int rep = -1; rep < o_.launch_repetitions; ++rep) {  // rep -1: warm-up
        if (queued) SpinKernel<<<1, 1>>>(static_cast<uint64_t>(std::min(50e6, 10e3 * batch)));
        if (rep >= 0) ZS_CUDA_TRY("cudaEventRecord", cudaEventRecord(events_[2 * rep]));
        for (int i = 0; i < batch; ++i) EmptyKernel<<<1, 1>>>();
        if (rep >= 0) ZS_CUDA_TRY("cudaEventRecord", cudaEventRecord(events_[2 * rep + 1]));
        ZS_CUDA_TRY("empty kernels", cudaGetLastError());
        ZS_CUDA_TRY("synchronize", cudaDeviceSynchronize());
      }
      StatusOr<double> t = Elapsed(o_.launch_repetitions, batch);
      if (!t.ok()) return t.status();
      (queued ? r.launch_queued_s : r.launch_s) = *t;
    }
    std::vector<double> latency;
    const int singles = 50 * o_.launch_repetitions;
    for (int i = -singles / 10; i < singles; ++i) {
      const auto start = std::chrono::steady_clock::now();
      EmptyKernel<<<1, 1>>>();
      ZS_CUDA_TRY("synchronize", cudaStreamSynchronize(nullptr));
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      if (i >= 0) latency.push_back(took.count());
    }
    ZS_CUDA_TRY("empty kernel", cudaGetLastError());
    r.launch_latency_s = Median(latency);
    return Status::Ok();
  }

 private:
  // Median over `reps` event pairs of the elapsed time divided by `per`.
  StatusOr<double> Elapsed(int reps, int per) {
    std::vector<double> seconds;
    for (int rep = 0; rep < reps; ++rep) {
      float ms = 0;
      ZS_CUDA_TRY("cudaEventElapsedTime", cudaEventElapsedTime(&ms, events_[2 * rep], events_[2 * rep + 1]));
      seconds.push_back(ms * 1e-3 / per);
    }
    return Median(seconds);
  }

  ComputeOptions o_;
  cublasLtHandle_t lt_ = nullptr;
  void* workspace_ = nullptr;
  void* flush_ = nullptr;
  void* arena_ = nullptr;
  int64_t arena_bytes_ = 0;
  int64_t l2_bytes_ = 0;
  uint64_t seed_ = 0;
  std::vector<cudaEvent_t> events_;
};

// Slot i of `slots` equal, 256-byte aligned slots of `bytes` each.
int64_t SlotOffset(int i, int64_t slots, int64_t bytes) { return (i % slots) * AlignUp(bytes); }

Status TimeGemms(ComputeBench& bench, const ComputeOptions& o, ComputeResult& r, int64_t free_bytes,
                 std::FILE* log) {
  for (ValueType type : o.gemm_types) {
    if (type == ValueType::kBf16 && r.device.cc_major < 8) {
      r.notes.push_back("no bf16 GEMMs: compute capability " + std::to_string(r.device.cc_major) + "." +
                        std::to_string(r.device.cc_minor) + " has no bf16 tensor cores");
      continue;
    }
    std::fprintf(log, "\nGEMM %s, fp32 accumulate: Y[m,n] = X[m,k] W[n,k]^T\n%7s %7s %7s %12s %10s %8s\n",
                 ValueTypeName(type), "m", "n", "k", "median us", "TFLOP/s", "of peak");
    for (const GemmShape& s : GemmShapesToRun(o.gemm_grid, o.gemm_shapes)) {
      const int64_t in_bytes = AlignUp(2 * s.m * s.k) + AlignUp(2 * s.n * s.k);
      const int64_t out_bytes = 2 * s.m * s.n;
      const int64_t in_span = bench.RotationBytes(in_bytes);
      const int64_t out_span = bench.RotationBytes(out_bytes);
      if (in_span + out_span > free_bytes * 7 / 10) {
        r.notes.push_back("skipped GEMM " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                          std::to_string(s.k) + ": device memory");
        continue;
      }
      cuda::LtGemm gemm;
      if (Status st = gemm.Plan(bench.lt(), cuda::LinearSpec(s, type), bench.workspace_bytes()); !st.ok()) {
        return Status::Error("GEMM plan: " + st.message());
      }
      StatusOr<uint16_t*> arena = bench.Arena(in_span + out_span, type);
      if (!arena.ok()) return arena.status();
      char* in = reinterpret_cast<char*>(*arena);
      char* out = in + in_span;
      const int64_t in_slots = in_span / AlignUp(in_bytes);
      const int64_t out_slots = out_span / AlignUp(out_bytes);
      StatusOr<double> t = bench.Time(1, [&](int i) {
        const char* x = in + SlotOffset(i, in_slots, in_bytes);
        const char* w = x + AlignUp(2 * s.m * s.k);
        const cublasStatus_t st = gemm.Run(w, x, out + SlotOffset(i, out_slots, out_bytes), bench.workspace(),
                                           bench.workspace_bytes(), nullptr);
        return st == CUBLAS_STATUS_SUCCESS ? Status::Ok()
                                           : Status::Error("GEMM: " + cuda::CublasStatusText(st));
      });
      if (!t.ok()) return t.status();
      r.gemm.push_back({type, s, *t});
      const double flops = GemmFlops(s) / *t;
      std::fprintf(log, "%7lld %7lld %7lld %12.2f %10.1f %7.0f%%\n", static_cast<long long>(s.m),
                   static_cast<long long>(s.n), static_cast<long long>(s.k), *t * 1e6, flops / 1e12,
                   r.peak_flops > 0 ? 100 * flops / r.peak_flops : 0.0);
    }
  }
  return Status::Ok();
}

Status TimeAttention(ComputeBench& bench, const ComputeOptions& o, ComputeResult& r, int64_t free_bytes,
                     std::FILE* log) {
  ValueType type = o.attention_type;
  if (type == ValueType::kBf16 && r.device.cc_major < 8) {
    type = ValueType::kFp16;
    r.notes.push_back("attention in fp16: this GPU has no bf16 tensor cores");
  }
  std::fprintf(log, "\ncausal attention %s (%s)\n%11s %7s %8s %12s %16s\n", ValueTypeName(type),
               cuda::kAttentionKernel, "batch_heads", "seq", "head_dim", "median us", "causal TFLOP/s");
  for (const AttentionShape& s : o.attention_shapes) {
    cuda::CausalAttention attention;
    if (Status st = attention.Plan(bench.lt(), s, type, bench.workspace_bytes()); !st.ok()) {
      return Status::Error("attention plan: " + st.message());
    }
    const int64_t tensor = 2 * attention.TensorElements();
    const int64_t in_bytes = 3 * AlignUp(tensor);
    const int64_t in_span = bench.RotationBytes(in_bytes);
    const int64_t scores = AlignUp(2 * attention.ScoreElements());
    if (in_span + scores + tensor > free_bytes * 7 / 10) {
      r.notes.push_back("skipped attention " + std::to_string(s.batch_heads) + "x" + std::to_string(s.seq) +
                        "x" + std::to_string(s.head_dim) + ": device memory");
      continue;
    }
    StatusOr<uint16_t*> arena = bench.Arena(in_span + scores + AlignUp(tensor), type);
    if (!arena.ok()) return arena.status();
    char* in = reinterpret_cast<char*>(*arena);
    auto* p = reinterpret_cast<uint16_t*>(in + in_span);
    auto* out = reinterpret_cast<uint16_t*>(in + in_span + scores);
    const int64_t slots = in_span / AlignUp(in_bytes);
    StatusOr<double> t = bench.Time(3, [&](int i) {
      const char* q = in + SlotOffset(i, slots, in_bytes);
      return attention.Run(reinterpret_cast<const uint16_t*>(q),
                           reinterpret_cast<const uint16_t*>(q + AlignUp(tensor)),
                           reinterpret_cast<const uint16_t*>(q + 2 * AlignUp(tensor)), p, out,
                           bench.workspace(), bench.workspace_bytes(), nullptr);
    });
    if (!t.ok()) return t.status();
    r.attention.push_back({type, s, true, *t, cuda::kAttentionKernel});
    // Causal FLOPs, as FlashAttention counts them: 4 seq^2 head_dim per head, halved by the mask.
    const double causal_flops = 2.0 * static_cast<double>(s.batch_heads) * s.seq * s.seq * s.head_dim;
    std::fprintf(log, "%11lld %7lld %8lld %12.2f %16.1f\n", static_cast<long long>(s.batch_heads),
                 static_cast<long long>(s.seq), static_cast<long long>(s.head_dim), *t * 1e6,
                 causal_flops / *t / 1e12);
  }
  return Status::Ok();
}

}  // namespace

bool BuiltWithComputeBenchmark() { return true; }

bool DeviceHasBf16() {
  if (!gpu::DeviceStatus().ok()) return false;
  StatusOr<DeviceInfo> d = QueryDevice();
  return d.ok() && d->cc_major >= 8;
}

StatusOr<ComputeResult> RunComputeBenchmark(const ComputeOptions& o, std::FILE* log) {
  if (Status s = gpu::DeviceStatus(); !s.ok()) return s;
  if (o.repetitions < 1 || o.warmup < 0 || o.launch_batch < 1 || o.launch_repetitions < 1 ||
      o.workspace_bytes < 0) {
    return Status::Error("compute benchmark options out of range");
  }
  ComputeResult r;
  StatusOr<DeviceInfo> device = QueryDevice();
  if (!device.ok()) return device.status();
  r.device = *device;
  r.cublaslt = LtVersion();
  r.peak_flops = TensorPeakFlops(r.device.cc_major, r.device.cc_minor, r.device.sm_count, r.device.clock_hz);
  ComputeBench bench(o);
  if (Status s = bench.Init(r.device); !s.ok()) return s;
  size_t free_bytes = 0, total_bytes = 0;
  ZS_CUDA_TRY("cudaMemGetInfo", cudaMemGetInfo(&free_bytes, &total_bytes));
  std::fprintf(log,
               "\ncompute: %s (compute capability %d.%d, %d SMs, %.0f MHz max), cuBLASLt %s; dense tensor "
               "peak %.1f TFLOP/s\n",
               r.device.name.c_str(), r.device.cc_major, r.device.cc_minor, r.device.sm_count,
               r.device.clock_hz / 1e6, r.cublaslt.c_str(), r.peak_flops / 1e12);

  if (Status s = bench.TimeLaunches(r); !s.ok()) return s;
  std::fprintf(log,
               "launch: %.2f us back to back (host issuing), %.2f us queued on the device, %.2f us launch to "
               "completion\n",
               r.launch_s * 1e6, r.launch_queued_s * 1e6, r.launch_latency_s * 1e6);
  if (Status s = TimeGemms(bench, o, r, static_cast<int64_t>(free_bytes), log); !s.ok()) return s;
  if (Status s = TimeAttention(bench, o, r, static_cast<int64_t>(free_bytes), log); !s.ok()) return s;
  for (const std::string& note : r.notes) std::fprintf(log, "note: %s\n", note.c_str());
  return r;
}

}  // namespace zerosim::kernels::bench
