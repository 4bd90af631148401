// One cuBLASLt matrix product, planned once (descriptors and the heuristic's first algorithm, as PyTorch
// picks it) and run many times: the GEMM the compute benchmark (bench/compute_bench.h) times and the two
// batched products of the attention path (cuda/attention.h). fp16 or bf16 inputs and output, fp32
// accumulation and scaling (CUBLAS_COMPUTE_32F), D = alpha op(A) op(B), beta 0.
//
// cuBLAS's column-major view: op(A) is m x k, op(B) k x n, C m x n, with leading dimensions lda, ldb and
// ldc, and `batch` independent products whose matrices lie `stride_*` elements apart.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernels/bench/compute_shapes.h"
#include "kernels/format.h"
#include "model/status.h"

namespace zerosim::kernels::cuda {

struct LtGemmSpec {
  bool trans_a = false;
  bool trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // elements; used when batch > 1
  ValueType type = ValueType::kBf16;
  float alpha = 1.0f;
};

// The forward of torch.nn.functional.linear, Y[m, n] = X[m, k] W[n, k]^T with row-major X, W and Y,
// seen column-major: Y^T (n x m) = W (n x k) X^T (k x m). Row-major W is column-major k x n, so A is
// W's buffer transposed; row-major X is column-major k x m, B as stored ("TN", lda = ldb = k, ldc = n).
LtGemmSpec LinearSpec(const bench::GemmShape& shape, ValueType type);

// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)".
std::string CublasStatusText(cublasStatus_t status);

class LtGemm {
 public:
  LtGemm() = default;
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  // Creates the descriptors and asks the heuristic for an algorithm that needs at most `workspace_bytes`.
  // Errors: a cuBLASLt failure, or no algorithm (e.g. bf16 before compute capability 8.0).
  Status Plan(cublasLtHandle_t handle, const LtGemmSpec& spec, size_t workspace_bytes);

  // Enqueues the product on `stream`. a, b and c are device pointers laid out as the spec says.
  cublasStatus_t Run(const void* a, const void* b, void* c, void* workspace, size_t workspace_bytes,
                     cudaStream_t stream) const;

 private:
  void Release();

  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  float alpha_ = 1.0f;
};

}  // namespace zerosim::kernels::cuda
