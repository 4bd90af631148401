// What the compute microbenchmark (bench/compute_bench.h) times: GEMM and attention shapes, the standard
// GEMM grid, the shape lists users pass on the command line, and the tensor-core peak that bounds every
// measured GEMM. Plain C++17 (nvcc compiles the benchmark that includes it); no CUDA needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/status.h"

namespace zerosim::kernels::bench {

// One GEMM as torch.nn.functional.linear's forward computes it: Y[m, n] = X[m, k] * W[n, k]^T, all
// row-major (m tokens, k input features, n output features); 2 m n k floating-point operations.
struct GemmShape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

// One attention call: batch_heads independent heads of seq x head_dim queries, keys and values.
struct AttentionShape {
  int64_t batch_heads = 0;
  int64_t seq = 0;
  int64_t head_dim = 0;
};

// The standard grid: every (m, n, k) with each of m, n and k in GemmGridSizes, m slowest, k fastest.
// kFull: 256, 512, ..., 16384 (powers of two: 343 shapes); kReduced, the default: 256, 1024, 4096, 16384
// (powers of four: 64 shapes); kNone: no grid (only a model's shapes).
enum class GemmGrid { kNone, kReduced, kFull };
std::vector<int64_t> GemmGridSizes(GemmGrid grid);
std::vector<GemmShape> GemmGridShapes(GemmGrid grid);
// "reduced grid (256, 1024, 4096, 16384 in each of m, n, k)", for provenance.
std::string GemmGridText(GemmGrid grid);

// The default attention sizes: 32 heads of head_dim 128 at seq 512 to 8192 (x2 steps), plus head_dim 64
// at seq 2048.
std::vector<AttentionShape> DefaultAttentionShapes();

// "4096x4096x4096,2048x8192x1024" (MxNxK) -> shapes. Errors name the item and say what is wrong.
StatusOr<std::vector<GemmShape>> ParseGemmShapes(const std::string& text);
// "32x2048x128,..." (batch_heads x seq x head_dim) -> shapes.
StatusOr<std::vector<AttentionShape>> ParseAttentionShapes(const std::string& text);

// The grid's shapes, then `extra` (a model's shapes), duplicates removed (first occurrence kept).
std::vector<GemmShape> GemmShapesToRun(GemmGrid grid, const std::vector<GemmShape>& extra);

// "4096x4096x4096,2048x8192x1024", as ParseGemmShapes reads it.
std::string GemmShapesText(const std::vector<GemmShape>& shapes);

// 2 m n k.
double GemmFlops(const GemmShape& s);

// Dense fp16/bf16 tensor-core multiply-adds x 2 per streaming multiprocessor per clock, fp32 accumulate,
// by compute capability; 0 where unknown. From NVIDIA's architecture whitepapers (Turing: 8 tensor cores x
// 64 FMA; A100: 4 x 256 FMA; GA10x/AD10x: half of A100's per SM; H100: 4 x 512 FMA; B200: twice H100 per
// SM; GB20x: as Ada). GeForce parts run fp32 accumulation at half these rates.
double DenseTensorFlopsPerSmPerClock(int cc_major, int cc_minor);

// SMs x clock x DenseTensorFlopsPerSmPerClock: the dense bf16/fp16 tensor peak at `clock_hz`. At the
// datasheets' boost clocks it gives their numbers (A100 SXM: 108 SMs x 1.41 GHz = 312 TFLOP/s; H100 SXM:
// 132 SMs x 1.83 GHz = 989 TFLOP/s); at the device's maximum clock (cudaDevAttrClockRate) it is an upper
// bound no measured GEMM can pass.
double TensorPeakFlops(int cc_major, int cc_minor, int sm_count, double clock_hz);

}  // namespace zerosim::kernels::bench
