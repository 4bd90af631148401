#include "kernels/bench/lt_gemm.h"

namespace zerosim::kernels::cuda {
namespace {

#define ZS_LT_TRY(what, call)                                                 \
  do {                                                                        \
    if (cublasStatus_t st_ = (call); st_ != CUBLAS_STATUS_SUCCESS) {          \
      return Status::Error(std::string(what) + ": " + CublasStatusText(st_)); \
    }                                                                         \
  } while (0)

cudaDataType_t DataType(ValueType t) { return t == ValueType::kBf16 ? CUDA_R_16BF : CUDA_R_16F; }

// A column-major rows x cols layout with leading dimension ld, batched when batch > 1.
cublasStatus_t MakeLayout(cublasLtMatrixLayout_t* layout, ValueType t, int64_t rows, int64_t cols, int64_t ld,
                          int batch, int64_t stride) {
  cublasStatus_t st = cublasLtMatrixLayoutCreate(layout, DataType(t), static_cast<uint64_t>(rows),
                                                 static_cast<uint64_t>(cols), ld);
  if (st != CUBLAS_STATUS_SUCCESS || batch <= 1) return st;
  const int32_t count = batch;
  st = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  return cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                          sizeof stride);
}

}  // namespace

LtGemmSpec LinearSpec(const bench::GemmShape& s, ValueType type) {
  LtGemmSpec spec;
  spec.trans_a = true;   // W's storage is column-major k x n: transposed, it is the n x k op(A)
  spec.trans_b = false;  // X's storage is column-major k x m: op(B) = X^T as stored
  spec.m = s.n;
  spec.n = s.m;
  spec.k = s.k;
  spec.lda = s.k;
  spec.ldb = s.k;
  spec.ldc = s.n;
  spec.type = type;
  return spec;
}

std::string CublasStatusText(cublasStatus_t status) {
  return std::string(cublasLtGetStatusName(status)) + " (" + cublasLtGetStatusString(status) + ")";
}

LtGemm::~LtGemm() { Release(); }

void LtGemm::Release() {
  if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
  if (a_ != nullptr) cublasLtMatrixLayoutDestroy(a_);
  if (b_ != nullptr) cublasLtMatrixLayoutDestroy(b_);
  if (c_ != nullptr) cublasLtMatrixLayoutDestroy(c_);
  desc_ = nullptr;
  a_ = b_ = c_ = nullptr;
}

Status LtGemm::Plan(cublasLtHandle_t handle, const LtGemmSpec& s, size_t workspace_bytes) {
  Release();
  handle_ = handle;
  alpha_ = s.alpha;
  ZS_LT_TRY("cublasLtMatmulDescCreate", cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t ta = s.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = s.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  ZS_LT_TRY("transa", cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  ZS_LT_TRY("transb", cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  // Stored shapes: A is m x k, or k x m when transposed; B is k x n, or n x k.
  ZS_LT_TRY("layout A", MakeLayout(&a_, s.type, s.trans_a ? s.k : s.m, s.trans_a ? s.m : s.k, s.lda, s.batch,
                                   s.stride_a));
  ZS_LT_TRY("layout B", MakeLayout(&b_, s.type, s.trans_b ? s.n : s.k, s.trans_b ? s.k : s.n, s.ldb, s.batch,
                                   s.stride_b));
  ZS_LT_TRY("layout C", MakeLayout(&c_, s.type, s.m, s.n, s.ldc, s.batch, s.stride_c));

  cublasLtMatmulPreference_t pref = nullptr;
  ZS_LT_TRY("cublasLtMatmulPreferenceCreate", cublasLtMatmulPreferenceCreate(&pref));
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &workspace_bytes, sizeof workspace_bytes);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS) {
    st = cublasLtMatmulAlgoGetHeuristic(handle, desc_, a_, b_, c_, c_, pref, 1, &result, &found);
  }
  cublasLtMatmulPreferenceDestroy(pref);
  ZS_LT_TRY("cublasLtMatmulAlgoGetHeuristic", st);
  if (found == 0) {
    return Status::Error("cuBLASLt has no algorithm for this " + std::string(ValueTypeName(s.type)) +
                         " product on this GPU");
  }
  algo_ = result.algo;
  return Status::Ok();
}

cublasStatus_t LtGemm::Run(const void* a, const void* b, void* c, void* workspace, size_t workspace_bytes,
                           cudaStream_t stream) const {
  const float beta = 0.0f;
  return cublasLtMatmul(handle_, desc_, &alpha_, a, a_, b, b_, &beta, c, c_, c, c_, &algo_, workspace,
                        workspace_bytes, stream);
}

}  // namespace zerosim::kernels::cuda
