// Calibration: what ZeroSim knows about one GPU type's speed beyond its datasheet. Loaded from
// kernels/calibration/<gpu>.json (format: docs/calibration.md), written by `zerosim calibrate` on a GPU
// ("measured") or by hand from a stated formula ("derived"). Every report prints its provenance.
//
// Quantization kernels cost t = alpha + bytes / beta, bytes being the fewest bytes the kernel must move
// through device memory (KernelBytes in kernel_cost.h); alpha and beta are fitted by least squares to
// the measured points when the file has them.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace zerosim::model {

enum class Kernel {
  kQuantizeInt8,            // qwZ: fp16 -> int8 codes + fp32 scale per group
  kDequantizeInt8,          // qwZ: int8 + scales -> fp16
  kQuantizeInt4,            // plain int4 quantization
  kDequantizeInt4,          // qgZ hop 2 output: int4 + scales -> fp16
  kSwizzleQuantizeInt4,     // qgZ hop 1 input: int4 with the two-hop slice order
  kDequantReduceQuantInt4,  // qgZ between hops: k int4 inputs -> sum -> int4
  kDequantReduceInt4,       // qgZ final: k int4 inputs -> sum / k -> fp16
  kCount,
};
inline constexpr int kNumKernels = static_cast<int>(Kernel::kCount);

// The name used in calibration files ("quantize_int8", ...).
const char* KernelName(Kernel kernel);

struct KernelFit {
  double alpha_s = 0;   // per-launch cost
  double beta_Bps = 0;  // effective bandwidth over KernelBytes
};

struct KernelPoint {
  double bytes = 0;    // KernelBytes of the measured call
  double seconds = 0;  // median time of the call
};

struct KernelCalibration {
  KernelFit fit;
  std::vector<KernelPoint> points;  // empty for derived calibrations
};

// Kernel-level compute efficiencies of one GPU (compute_cost.h uses them). Each is a fraction of the GPU's
// dense fp16/bf16 tensor-core peak reached by one kernel class running alone, from kernel benchmarks
// (published maximum-achievable-matmul measurements, FlashAttention's papers, or `zerosim calibrate`), never
// from an end-to-end training run.
struct ComputeEfficiency {
  double gemm = 0;               // GEMMs at large aligned shapes, sustained rate / peak (docs/calibration.md)
  double attention_forward = 0;  // FlashAttention forward, causal, head dim 128
  double attention_backward = 0;  // FlashAttention backward
  double kernel_gap_s = 0;        // idle GPU time between back-to-back kernels of one stream
  std::string source;             // where the numbers come from
  // FP8 GEMMs at large aligned shapes as a fraction of the GPU's dense FP8 peak (GpuSpec::fp8_peak_flops);
  // 0: not known (FP8 GEMMs are then an error), with its own source.
  double fp8_gemm = 0;
  std::string fp8_gemm_source;
  // FlashAttention v1 (Dao et al. 2022) or its Triton port, forward and backward, as fractions of the dense
  // peak; 0: not known (attention = "flash_v1" is then an error), with their own source.
  double attention_v1_forward = 0;
  double attention_v1_backward = 0;
  std::string attention_v1_source;
  // FlashAttention-2 (attention = "flash2": the flash-attn package where the generation's fused kernel is
  // another), forward and backward, as fractions of the dense peak; 0: not known (then an error), with their
  // own source.
  double attention_fa2_forward = 0;
  double attention_fa2_backward = 0;
  std::string attention_fa2_source;
  // Added after the published fields (aggregate initialisation keeps their order).
  // The software generation these numbers describe (PyTorch / CUDA / cuBLAS and kernel releases, e.g.
  // "pytorch-2.1"); a scenario picks one with `[runtime] software` (SelectSoftware). Empty: not stated.
  std::string software;
  // How the numbers were obtained, the calibration ladder (DESIGN.md): "measured" (`zerosim calibrate`),
  // "empirical" (fitted on the calibration set of single-node training runs, `zerosim fit`), "derived"
  // (kernel benchmarks, datasheets, or scaled from another GPU by a stated rule).
  std::string kind = "derived";
  // For empirical sets: the data set, the fit command and its out-of-sample error
  // (docs/fitted_parameters.md).
  std::string fit;
  // For derived sets scaled from another GPU's empirical fit: that GPU's family ("H100"); its band is
  // widened.
  std::string derived_from;
  // Out-of-sample (leave one model size out) median |error| of the fit; 0 where not fitted.
  double loo_median_abs_error = 0;
  // Short-reduction roll-off of GEMM efficiency: a GEMM with reduction length k runs at gemm x k / (k +
  // gemm_k_half). Physical meaning: each output tile pays a fixed cost (prologue: filling the shared-memory
  // pipeline; epilogue: writing and converting the tile) worth gemm_k_half elements of its main loop, so
  // short reductions (k = hidden sizes of small models, 768 to 2,560) spend a larger share of their time
  // outside the tensor-core loop (CUTLASS's multistage main loop; NVIDIA's GEMM performance guide on
  // arithmetic intensity). 0: no roll-off (the published best-shape numbers).
  double gemm_k_half = 0;
  // Fraction of the calibration's device copy bandwidth that training's memory-bound kernels (norms,
  // activations, residual adds, casts, the loss) reach; 1 for published sets (a copy is their upper bound).
  double memory_efficiency = 1;
  // The kernel `[training] attention = "flash"` stands for on this GPU, which attention_forward/backward
  // describe ("FlashAttention-2", "FlashAttention-4"); empty: not stated. `zerosim compare` lists it when the
  // two sides differ.
  std::string attention_kernel;
  // The board power limit of the GPUs the set was obtained on, watts (`power_limit_W`; 0: the part's default).
  // The power model (gpu_power.h) scales the set's tensor-core efficiencies by F(the topology's limit) / F(this),
  // so a set fitted on power-capped parts carries its cap and a topology at that cap does not count it twice.
  double power_limit_W = 0;
};

// What `zerosim calibrate` measured of the GPU's compute (the calibration file's "compute" section,
// docs/calibration.md); empty for derived files. MakeComputeRates (compute_cost.h) turns it into efficiencies
// for the topology's GPU, in place of the published ones.
struct MeasuredGemm {
  double m = 0, n = 0, k = 0;
  double seconds = 0;
};
struct MeasuredAttention {
  double batch_heads = 0, seq = 0, head_dim = 0;
  bool causal = true;
  double seconds = 0;
};
struct MeasuredCompute {
  std::vector<MeasuredGemm> gemm;
  std::vector<MeasuredAttention> attention;  // what was timed may be unfused: a lower bound on FlashAttention
  double launch_s = 0;                       // interval between back-to-back empty kernels
  std::string provenance;
};

struct Calibration {
  std::string gpu;         // GPU the numbers describe
  std::string source;      // "measured", "empirical" or "derived"
  std::string provenance;  // how: benchmark command, driver, date; or the derivation formula
  std::string path;        // file it was read from (set by the loader)
  double copy_Bps = 0;     // device-to-device copy bandwidth, read + write bytes counted
  std::array<KernelCalibration, kNumKernels> kernels;
  ComputeEfficiency compute;  // the selected software generation's set (SelectSoftware)
  // Every software generation's set the file holds: the file's default (`gemm_efficiency`) first, then
  // `software_generations` in file order (docs/calibration.md).
  std::vector<ComputeEfficiency> compute_sets;
  MeasuredCompute measured;

  const KernelFit& fit(Kernel k) const { return kernels[static_cast<int>(k)].fit; }
};

// Makes the set of software generation `software` the calibration's compute (empty: the file's default).
// Returns false, leaving `cal` unchanged, when the file holds no such set.
bool SelectSoftware(Calibration* cal, const std::string& software);

// The names of the software generations `cal` holds, comma-separated (for messages).
std::string SoftwareNames(const Calibration& cal);

// Least-squares fit (Eigen) of t = alpha + bytes / beta to `points`. Needs two points of distinct sizes;
// a negative fitted alpha is clamped to 0 and beta refitted through the origin.
KernelFit FitKernel(const std::vector<KernelPoint>& points);

}  // namespace zerosim::model
