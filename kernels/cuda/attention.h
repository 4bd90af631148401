// Causal attention O = softmax(Q K^T / sqrt(head_dim) + causal mask) V, unfused, from what the CUDA
// toolkit offers (no FlashAttention): a cuBLASLt strided-batched product for the scores, ZeroSim's own
// causal softmax kernel over them in place, and a second cuBLASLt product with V. Like PyTorch's "math"
// scaled_dot_product_attention it computes the whole seq x seq square (twice the causal FLOPs) and moves
// the scores through device memory, so its time is an upper bound on FlashAttention's (a lower bound on
// its efficiency).
//
// Layouts: Q, K, V and O row-major [batch_heads][seq][head_dim]; scores row-major
// [batch_heads][seq][seq], of the value type (as PyTorch's math path keeps them); softmax in fp32.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/bench/compute_shapes.h"
#include "kernels/bench/lt_gemm.h"
#include "kernels/format.h"
#include "model/status.h"

namespace zerosim::kernels::cuda {

// What CausalAttention runs, for the calibration file's "kernel" field.
inline constexpr const char* kAttentionKernel =
    "unfused: cuBLASLt batched QK^T (full square) + ZeroSim causal softmax in place + cuBLASLt batched PV";

// Row by row, in place: entries j <= i of row i (i = row index within its head) become
// exp(s_ij - max) / sum, entries j > i become 0. rows = batch_heads * seq.
cudaError_t LaunchCausalSoftmax(uint16_t* scores, int64_t rows, int64_t seq, ValueType type,
                                cudaStream_t stream);

class CausalAttention {
 public:
  // Plans the two products. Errors: cuBLASLt's.
  Status Plan(cublasLtHandle_t handle, const bench::AttentionShape& shape, ValueType type,
              size_t workspace_bytes);

  // Elements of one of Q, K, V or O, and of the scores.
  int64_t TensorElements() const { return shape_.batch_heads * shape_.seq * shape_.head_dim; }
  int64_t ScoreElements() const { return shape_.batch_heads * shape_.seq * shape_.seq; }

  // Enqueues the three steps on `stream`; the first failure wins.
  Status Run(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* scores, uint16_t* out,
             void* workspace, size_t workspace_bytes, cudaStream_t stream) const;

 private:
  bench::AttentionShape shape_;
  ValueType type_ = ValueType::kBf16;
  LtGemm qk_;
  LtGemm pv_;
};

}  // namespace zerosim::kernels::cuda
