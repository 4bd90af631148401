// Time of a module's compute on one GPU, from what it executes (ModuleWork: GEMM shapes, attention,
// memory-bound bytes, kernel count) and what the GPU can do (GpuSpec: datasheet peak, SMs; Calibration:
// kernel-level efficiencies and achievable HBM bandwidth). No end-to-end training run enters here.
//
//  GEMM [m x n] = [m x k][k x n] (batch copies), the larger of
//    compute: 2 m n k / (peak * gemm_efficiency * wave_utilisation), where cuBLAS-class kernels tile the
//             output in kTileM x kTileN tiles, one tile per SM at a time: tiles = ceil(m/128) ceil(n/128)
//             batch, waves = ceil(tiles / SMs), wave_utilisation = tiles / (waves * SMs) (NVIDIA, "Matrix
//             Multiplication Background User's Guide", tile and wave quantization);
//    memory:  2 (m k + k n + m n) batch bytes / achievable HBM bandwidth (roofline: each operand read once,
//             the output written once; 2-byte fp16/bf16);
//    x k / (k + gemm_k_half): the short-reduction roll-off (calibration.h ComputeEfficiency::gemm_k_half;
//    fitted on the calibration set for empirical calibrations, 0 for published ones); gemm_efficiency is the
//    GPU's sustained fraction of peak at large aligned shapes: a sustained back-to-back measurement where one
//    is published (A100), else the maximum-achievable-matmul figure, an upper bound (docs/calibration.md
//    lists which), or `zerosim calibrate`. FP8 GEMMs (Gemm::fp8, precision.h): the FP8 peak times the
//    calibration's FP8 GEMM efficiency, 1-byte operands and a 16-bit output in the roofline, plus the casts
//    of their operands to FP8 (Fp8ForwardCastBytes / Fp8BackwardCastBytes) over the HBM bandwidth, counted as
//    GEMM time.
//  Attention (FlashAttention): 4 b h s_q s_kv d FLOPs forward, halved when causal (masked tiles are skipped),
//    at the GPU's published FlashAttention efficiency; the backward does 2.5x the forward's FLOPs (five
//    matmuls against two, with the recompute of the scores inside; Dao 2023, FlashAttention-2 sec. 3.1.2)
//    at its own backward efficiency. FlashAttention v1 and its Triton port (AttentionWork::flash_v1) run the
//    same algorithm and FLOPs (five backward matmuls too: Dao et al. 2022, Algorithm 4) at the calibration's
//    v1 efficiencies.
//  Memory-bound kernels: bytes / (the calibration's device copy bandwidth x its memory_efficiency).
//  Kernel gaps: each kernel launch leaves the GPU idle for `kernel_gap_s` between back-to-back kernels.
//
// Backward of a module: each GEMM becomes two of the same FLOPs (input gradient [m x k] = [m x n][n x k],
// weight gradient [n x k] = [n x m][m x k]), attention as above, memory-bound bytes x kBackwardBytesFactor,
// twice the kernels.
#pragma once

#include "model/schedule/module_graph.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"

namespace zerosim::model {

// Output tile of the tensor-core GEMM kernels cuBLAS picks for large fp16/bf16 problems on Volta to Blackwell
// (128 x 128 thread-block tiles; NVIDIA's GEMM performance guide uses them to explain wave quantization).
inline constexpr double kTileM = 128;
inline constexpr double kTileN = 128;

// Backward memory-bound passes move about 1.5x the forward bytes: a norm's backward reads x and dy and writes
// dx (3 tensors against 2), GeLU/SwiGLU's backward reads input and dy and writes dx (3 against 2), dropout's
// reads dy and the mask and writes dx (2.5 against 3.5), residual adds pass gradients through. An
// approximation, stated: ZeroSim does not enumerate PyTorch's backward kernels one by one.
inline constexpr double kBackwardBytesFactor = 1.5;

// FLOPs of FlashAttention's backward over its forward (FlashAttention-2 sec. 3.1.2: five matmuls, two
// forward).
inline constexpr double kAttentionBackwardFlopsFactor = 2.5;

// What the GPU sustains: the GPU's datasheet facts and the calibration's kernel-level efficiencies.
struct ComputeRates {
  double peak_flops = 0;       // dense fp16/bf16 tensor-core peak, FLOP/s
  int sms = 0;                 // streaming multiprocessors
  double gemm_efficiency = 0;  // achievable fraction of peak at large aligned GEMMs
  double attention_forward_efficiency = 0;
  double attention_backward_efficiency = 0;
  double attention_v1_forward_efficiency = 0;  // FlashAttention v1 / its Triton port (0: not known)
  double attention_v1_backward_efficiency = 0;
  double attention_fa2_forward_efficiency = 0;  // FlashAttention-2 beside another generation kernel (0: not known)
  double attention_fa2_backward_efficiency = 0;
  double gemm_k_half = 0;      // short-reduction roll-off, elements (0: none)
  double hbm_Bps = 0;          // achievable HBM bandwidth (device copy, read + write counted)
  double elementwise_Bps = 0;  // memory-bound kernels' bandwidth: hbm_Bps x the calibration's
                               // memory_efficiency (0: hbm_Bps)
  double kernel_gap_s = 0;         // idle GPU time per kernel between back-to-back kernels
  double fp8_peak_flops = 0;       // dense FP8 tensor-core peak, FLOP/s (0: none)
  double fp8_gemm_efficiency = 0;  // achievable fraction of the FP8 peak at large aligned GEMMs
};

ComputeRates MakeComputeRates(const GpuSpec& gpu, const Calibration& cal);

// The short-reduction factor k / (k + k_half) of a GEMM with reduction length k (1 when k_half is 0).
double ReductionUtilisation(double k, double k_half);

// Fraction of the SMs a GEMM's last wave keeps busy, averaged over its waves (1 = no quantization loss).
double WaveUtilisation(const Gemm& g, int sms);

// Seconds of one forward GEMM.
double GemmTime(const Gemm& g, const ComputeRates& r);

// The parts of one pass's time, seconds.
struct ComputeTime {
  double gemm_s = 0;
  double attention_s = 0;
  double memory_s = 0;  // memory-bound kernels
  double launch_s = 0;  // kernel gaps
  double total() const { return gemm_s + attention_s + memory_s + launch_s; }
};

// One forward pass (also a recompute) or one backward pass (or `part` of it) of a module.
ComputeTime ForwardTime(const ModuleWork& w, const ComputeRates& r);
ComputeTime BackwardTime(const ModuleWork& w, const ComputeRates& r,
                         BackwardPart part = BackwardPart::kWhole);

}  // namespace zerosim::model
