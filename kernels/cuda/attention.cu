#include "kernels/cuda/attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <string>

namespace zerosim::kernels::cuda {
namespace {

constexpr int kThreads = 256;

template <bool kBf16>
__device__ float Widen(uint16_t bits) {
  if constexpr (kBf16) {
    return __uint_as_float(static_cast<uint32_t>(bits) << 16);
  } else {
    return __half2float(__ushort_as_half(bits));
  }
}

template <bool kBf16>
__device__ uint16_t Narrow(float x) {
  if constexpr (kBf16) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  } else {
    return __half_as_ushort(__float2half_rn(x));
  }
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// The reduction of `v` over the block, returned to every thread. `smem` holds one float per warp.
template <typename Op>
__device__ float BlockReduce(float v, float* smem, Op op) {
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  __syncthreads();  // smem may still be read by the previous reduction
  if (threadIdx.x % 32 == 0) smem[threadIdx.x / 32] = v;
  __syncthreads();
  v = smem[0];
  for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) v = op(v, smem[w]);
  return v;
}

// One block per row. kVec: rows hold a multiple of 8 elements and start 16-byte aligned, so each thread
// moves 8 values per access; otherwise one value.
template <bool kBf16, bool kVec>
__global__ void __launch_bounds__(kThreads) CausalSoftmaxKernel(uint16_t* scores, int64_t seq) {
  __shared__ float smem[kThreads / 32];
  const int64_t row = blockIdx.x;
  const int64_t len = row % seq + 1;  // entries 0..i are kept
  uint16_t* r = scores + row * seq;
  constexpr int kWidth = kVec ? 8 : 1;
  const int64_t valid_chunks = (len + kWidth - 1) / kWidth;
  const int64_t chunks = seq / kWidth;

  auto load = [&](int64_t c, float(&x)[kWidth]) {
    if constexpr (kVec) {
      const uint4 w = reinterpret_cast<const uint4*>(r)[c];
      const uint32_t words[4] = {w.x, w.y, w.z, w.w};
      for (int e = 0; e < 8; ++e) x[e] = Widen<kBf16>(static_cast<uint16_t>(words[e / 2] >> (16 * (e % 2))));
    } else {
      x[0] = Widen<kBf16>(r[c]);
    }
  };

  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < valid_chunks; c += blockDim.x) {
    float x[kWidth];
    load(c, x);
    for (int e = 0; e < kWidth; ++e) {
      if (c * kWidth + e < len) m = fmaxf(m, x[e]);
    }
  }
  m = BlockReduce(m, smem, MaxOp{});
  float sum = 0;
  for (int64_t c = threadIdx.x; c < valid_chunks; c += blockDim.x) {
    float x[kWidth];
    load(c, x);
    for (int e = 0; e < kWidth; ++e) {
      if (c * kWidth + e < len) sum += expf(x[e] - m);
    }
  }
  const float inv = 1.0f / BlockReduce(sum, smem, SumOp{});
  for (int64_t c = threadIdx.x; c < chunks; c += blockDim.x) {
    float x[kWidth];
    if (c < valid_chunks) {
      load(c, x);
    } else {
      for (int e = 0; e < kWidth; ++e) x[e] = 0;
    }
    uint16_t y[kWidth];
    for (int e = 0; e < kWidth; ++e) y[e] = c * kWidth + e < len ? Narrow<kBf16>(expf(x[e] - m) * inv) : 0;
    if constexpr (kVec) {
      uint4 w;
      w.x = y[0] | (static_cast<uint32_t>(y[1]) << 16);
      w.y = y[2] | (static_cast<uint32_t>(y[3]) << 16);
      w.z = y[4] | (static_cast<uint32_t>(y[5]) << 16);
      w.w = y[6] | (static_cast<uint32_t>(y[7]) << 16);
      reinterpret_cast<uint4*>(r)[c] = w;
    } else {
      r[c] = y[0];
    }
  }
}

template <bool kBf16>
cudaError_t LaunchTyped(uint16_t* scores, int64_t rows, int64_t seq, cudaStream_t stream) {
  const bool vec = seq % 8 == 0 && reinterpret_cast<uintptr_t>(scores) % 16 == 0;
  if (vec) {
    CausalSoftmaxKernel<kBf16, true><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(scores, seq);
  } else {
    CausalSoftmaxKernel<kBf16, false><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(scores, seq);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchCausalSoftmax(uint16_t* scores, int64_t rows, int64_t seq, ValueType type,
                                cudaStream_t stream) {
  if (rows <= 0 || seq <= 0 || rows > 0x7FFFFFFF) return cudaErrorInvalidValue;
  return type == ValueType::kBf16 ? LaunchTyped<true>(scores, rows, seq, stream)
                                  : LaunchTyped<false>(scores, rows, seq, stream);
}

Status CausalAttention::Plan(cublasLtHandle_t handle, const bench::AttentionShape& s, ValueType type,
                             size_t workspace_bytes) {
  shape_ = s;
  type_ = type;
  if (s.batch_heads <= 0 || s.seq <= 0 || s.head_dim <= 0 || s.batch_heads > 0x7FFFFFFF ||
      s.batch_heads * s.seq > 0x7FFFFFFF) {
    return Status::Error("attention shape out of range");
  }
  // Scores[h] (row-major seq x seq) = Q[h] K[h]^T / sqrt(head_dim): the linear layout of LinearSpec with
  // X = Q, W = K, batched over heads.
  LtGemmSpec qk = LinearSpec({s.seq, s.seq, s.head_dim}, type);
  qk.batch = static_cast<int>(s.batch_heads);
  qk.stride_a = s.seq * s.head_dim;
  qk.stride_b = s.seq * s.head_dim;
  qk.stride_c = s.seq * s.seq;
  qk.alpha = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  if (Status st = qk_.Plan(handle, qk, workspace_bytes); !st.ok())
    return Status::Error("QK^T: " + st.message());
  // O[h] (row-major seq x head_dim) = P[h] V[h]; column-major: O^T (head_dim x seq) = V^T P^T, both
  // stored as they are ("NN").
  LtGemmSpec pv;
  pv.m = s.head_dim;
  pv.n = s.seq;
  pv.k = s.seq;
  pv.lda = s.head_dim;
  pv.ldb = s.seq;
  pv.ldc = s.head_dim;
  pv.batch = static_cast<int>(s.batch_heads);
  pv.stride_a = s.seq * s.head_dim;
  pv.stride_b = s.seq * s.seq;
  pv.stride_c = s.seq * s.head_dim;
  pv.type = type;
  if (Status st = pv_.Plan(handle, pv, workspace_bytes); !st.ok())
    return Status::Error("PV: " + st.message());
  return Status::Ok();
}

Status CausalAttention::Run(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* scores,
                            uint16_t* out, void* workspace, size_t workspace_bytes,
                            cudaStream_t stream) const {
  if (cublasStatus_t st = qk_.Run(k, q, scores, workspace, workspace_bytes, stream);
      st != CUBLAS_STATUS_SUCCESS) {
    return Status::Error("QK^T: " + CublasStatusText(st));
  }
  if (cudaError_t err =
          LaunchCausalSoftmax(scores, shape_.batch_heads * shape_.seq, shape_.seq, type_, stream);
      err != cudaSuccess) {
    return Status::Error(std::string("causal softmax: ") + cudaGetErrorString(err));
  }
  if (cublasStatus_t st = pv_.Run(v, scores, out, workspace, workspace_bytes, stream);
      st != CUBLAS_STATUS_SUCCESS) {
    return Status::Error("PV: " + CublasStatusText(st));
  }
  return Status::Ok();
}

}  // namespace zerosim::kernels::cuda
