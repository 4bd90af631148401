// bench/compute_bench.h on CUDA: the benchmarked GEMM and attention on host buffers, for the GPU tests.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/bench/compute_bench.h"
#include "kernels/bench/lt_gemm.h"
#include "kernels/cuda/attention.h"
#include "kernels/gpu.h"

namespace zerosim::kernels::bench {
namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

Status CudaError(const char* what, cudaError_t err) {
  return Status::Error(std::string(what) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                       ")");
}

// Device buffers and a cuBLASLt handle, released on scope exit.
class Scratch {
 public:
  ~Scratch() {
    for (void* p : buffers_) cudaFree(p);
    if (lt_ != nullptr) cublasLtDestroy(lt_);
  }
  Status Init() {
    if (Status s = gpu::DeviceStatus(); !s.ok()) return s;
    if (cublasStatus_t st = cublasLtCreate(&lt_); st != CUBLAS_STATUS_SUCCESS) {
      return Status::Error("cublasLtCreate: " + cuda::CublasStatusText(st));
    }
    return Status::Ok();
  }
  // A device buffer of `count` 16-bit values: a copy of `host` if given, else filled with 0xFFFF (NaN in
  // both types), so that an element nothing wrote stays visible.
  StatusOr<uint16_t*> Buffer(size_t count, const std::vector<uint16_t>* host = nullptr) {
    void* p = nullptr;
    if (cudaError_t err = cudaMalloc(&p, count * 2 + 256); err != cudaSuccess)
      return CudaError("cudaMalloc", err);
    buffers_.push_back(p);
    cudaError_t err = host != nullptr ? cudaMemcpy(p, host->data(), count * 2, cudaMemcpyHostToDevice)
                                      : cudaMemset(p, 0xFF, count * 2);
    if (err != cudaSuccess) return CudaError("initialise buffer", err);
    return static_cast<uint16_t*>(p);
  }
  StatusOr<void*> Workspace() {
    void* p = nullptr;
    if (cudaError_t err = cudaMalloc(&p, kWorkspaceBytes); err != cudaSuccess)
      return CudaError("cudaMalloc", err);
    buffers_.push_back(p);
    return p;
  }
  cublasLtHandle_t lt() const { return lt_; }

 private:
  std::vector<void*> buffers_;
  cublasLtHandle_t lt_ = nullptr;
};

StatusOr<std::vector<uint16_t>> Download(const uint16_t* device, size_t count) {
  if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) return CudaError("kernel", err);
  std::vector<uint16_t> host(count);
  if (cudaError_t err = cudaMemcpy(host.data(), device, count * 2, cudaMemcpyDeviceToHost);
      err != cudaSuccess) {
    return CudaError("copy to host", err);
  }
  return host;
}

}  // namespace

StatusOr<std::vector<uint16_t>> DeviceLinear(const GemmShape& s, ValueType type,
                                             const std::vector<uint16_t>& x, const std::vector<uint16_t>& w) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || x.size() != static_cast<size_t>(s.m * s.k) ||
      w.size() != static_cast<size_t>(s.n * s.k)) {
    return Status::Error("DeviceLinear: buffer sizes do not match the shape");
  }
  Scratch scratch;
  if (Status st = scratch.Init(); !st.ok()) return st;
  StatusOr<uint16_t*> dx = scratch.Buffer(x.size(), &x);
  StatusOr<uint16_t*> dw = scratch.Buffer(w.size(), &w);
  StatusOr<uint16_t*> dy = scratch.Buffer(static_cast<size_t>(s.m * s.n));
  StatusOr<void*> ws = scratch.Workspace();
  if (!dx.ok() || !dw.ok() || !dy.ok() || !ws.ok()) {
    return !dx.ok() ? dx.status() : !dw.ok() ? dw.status() : !dy.ok() ? dy.status() : ws.status();
  }
  cuda::LtGemm gemm;
  if (Status st = gemm.Plan(scratch.lt(), cuda::LinearSpec(s, type), kWorkspaceBytes); !st.ok()) return st;
  if (cublasStatus_t st = gemm.Run(*dw, *dx, *dy, *ws, kWorkspaceBytes, nullptr);
      st != CUBLAS_STATUS_SUCCESS) {
    return Status::Error("GEMM: " + cuda::CublasStatusText(st));
  }
  return Download(*dy, static_cast<size_t>(s.m * s.n));
}

StatusOr<std::vector<uint16_t>> DeviceCausalAttention(const AttentionShape& s, ValueType type,
                                                      const std::vector<uint16_t>& q,
                                                      const std::vector<uint16_t>& k,
                                                      const std::vector<uint16_t>& v) {
  const auto elements = static_cast<size_t>(s.batch_heads * s.seq * s.head_dim);
  if (s.batch_heads <= 0 || s.seq <= 0 || s.head_dim <= 0 || q.size() != elements || k.size() != elements ||
      v.size() != elements) {
    return Status::Error("DeviceCausalAttention: buffer sizes do not match the shape");
  }
  Scratch scratch;
  if (Status st = scratch.Init(); !st.ok()) return st;
  cuda::CausalAttention attention;
  if (Status st = attention.Plan(scratch.lt(), s, type, kWorkspaceBytes); !st.ok()) return st;
  StatusOr<uint16_t*> dq = scratch.Buffer(elements, &q);
  StatusOr<uint16_t*> dk = scratch.Buffer(elements, &k);
  StatusOr<uint16_t*> dv = scratch.Buffer(elements, &v);
  StatusOr<uint16_t*> dp = scratch.Buffer(static_cast<size_t>(attention.ScoreElements()));
  StatusOr<uint16_t*> dout = scratch.Buffer(elements);
  StatusOr<void*> ws = scratch.Workspace();
  for (const StatusOr<uint16_t*>* b : {&dq, &dk, &dv, &dp, &dout}) {
    if (!b->ok()) return b->status();
  }
  if (!ws.ok()) return ws.status();
  if (Status st = attention.Run(*dq, *dk, *dv, *dp, *dout, *ws, kWorkspaceBytes, nullptr); !st.ok())
    return st;
  return Download(*dout, elements);
}

}  // namespace zerosim::kernels::bench
