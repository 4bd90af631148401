#include "model/cost/compute_cost.h"

#include "model/spec/gpu_power.h"
#include "model/spec/precision.h"

#include <algorithm>
#include <cmath>

namespace zerosim::model {
namespace {

constexpr double kElementBytes = 2.0;  // fp16/bf16 operands and outputs

// Memory-bound kernels' bandwidth; rates built by hand (tests) may leave it unset: the HBM rate then.
double ElementwiseBps(const ComputeRates& r) { return r.elementwise_Bps > 0 ? r.elementwise_Bps : r.hbm_Bps; }

double AttentionForwardFlops(const AttentionWork& a) {
  const double dense = 4.0 * a.batch_heads * a.seq_q * a.seq_kv * a.head_dim;
  return a.causal ? 0.5 * dense : dense;
}

}  // namespace

ComputeRates MakeComputeRates(const GpuSpec& gpu, const Calibration& cal) {
  ComputeRates r;
  r.peak_flops = gpu.peak_flops;
  r.sms = gpu.sms;
  r.gemm_efficiency = cal.compute.gemm;
  r.attention_forward_efficiency = cal.compute.attention_forward;
  r.attention_backward_efficiency = cal.compute.attention_backward;
  r.attention_v1_forward_efficiency = cal.compute.attention_v1_forward;
  r.attention_v1_backward_efficiency = cal.compute.attention_v1_backward;
  r.attention_fa2_forward_efficiency = cal.compute.attention_fa2_forward;
  r.attention_fa2_backward_efficiency = cal.compute.attention_fa2_backward;
  r.gemm_k_half = cal.compute.gemm_k_half;
  r.hbm_Bps = cal.copy_Bps;
  r.elementwise_Bps = cal.copy_Bps * cal.compute.memory_efficiency;
  r.kernel_gap_s = cal.compute.kernel_gap_s;
  r.fp8_peak_flops = gpu.fp8_peak_flops;
  r.fp8_gemm_efficiency = cal.compute.fp8_gemm;
  // Measured on this GPU by `zerosim calibrate`: the best GEMM's efficiency once its wave quantization is
  // taken out, the best attention kernel's, and the launch interval replace the published values.
  const MeasuredCompute& m = cal.measured;
  if (!m.gemm.empty() && gpu.peak_flops > 0) {
    double best = 0;
    for (const MeasuredGemm& g : m.gemm) {
      const Gemm shape{g.m, g.n, g.k, 1};
      best = std::max(best, shape.flops() / (g.seconds * gpu.peak_flops * WaveUtilisation(shape, gpu.sms)));
    }
    r.gemm_efficiency = std::min(1.0, best);
  }
  if (!m.attention.empty() && gpu.peak_flops > 0) {
    double best = 0;
    for (const MeasuredAttention& a : m.attention) {
      const AttentionWork w{a.batch_heads, a.seq, a.seq, a.head_dim, a.causal};
      best = std::max(best, AttentionForwardFlops(w) / (a.seconds * gpu.peak_flops));
    }
    // What calibrate times may be unfused attention, a lower bound on FlashAttention: it can only raise the
    // value.
    r.attention_forward_efficiency = std::max(r.attention_forward_efficiency, std::min(1.0, best));
  }
  if (m.launch_s > 0) r.kernel_gap_s = m.launch_s;
  // A power limit below the part's default lowers the tensor-core clock (gpu_power.h, a derived rule), relative
  // to the limit the set was obtained at; the HBM and memory-bound rates stay.
  const double clock = TensorClockFactor(gpu, cal.compute.power_limit_W);
  if (clock != 1.0) {
    for (double* e : {&r.gemm_efficiency, &r.attention_forward_efficiency, &r.attention_backward_efficiency,
                      &r.attention_v1_forward_efficiency, &r.attention_v1_backward_efficiency,
                      &r.attention_fa2_forward_efficiency, &r.attention_fa2_backward_efficiency,
                      &r.fp8_gemm_efficiency}) {
      *e = std::min(1.0, *e * clock);
    }
  }
  return r;
}

double ReductionUtilisation(double k, double k_half) { return k_half > 0 ? k / (k + k_half) : 1.0; }

double WaveUtilisation(const Gemm& g, int sms) {
  if (sms <= 0) return 1.0;
  const double tiles = std::ceil(g.m / kTileM) * std::ceil(g.n / kTileN) * g.batch;
  const double waves = std::ceil(tiles / sms);
  return waves > 0 ? tiles / (waves * sms) : 1.0;
}

double GemmTime(const Gemm& g, const ComputeRates& r) {
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return 0;
  if (g.fp8) {
    const double compute_s =
        g.flops() / (r.fp8_peak_flops * r.fp8_gemm_efficiency * WaveUtilisation(g, r.sms) *
                     ReductionUtilisation(g.k, r.gemm_k_half));
    const double memory_s =
        (kFp8Bytes * (g.m * g.k + g.k * g.n) + kElementBytes * g.m * g.n) * g.batch / r.hbm_Bps;
    return std::max(compute_s, memory_s);
  }
  const double compute_s = g.flops() / (r.peak_flops * r.gemm_efficiency * WaveUtilisation(g, r.sms) *
                                        ReductionUtilisation(g.k, r.gemm_k_half));
  const double memory_s = kElementBytes * (g.m * g.k + g.k * g.n + g.m * g.n) * g.batch / r.hbm_Bps;
  return std::max(compute_s, memory_s);
}

ComputeTime ForwardTime(const ModuleWork& w, const ComputeRates& r) {
  ComputeTime t;
  for (const Gemm& g : w.gemms) t.gemm_s += GemmTime(g, r) + Fp8ForwardCastBytes(g) / ElementwiseBps(r);
  if (w.attention.batch_heads > 0) {
    const double eff =
        w.attention.kernel == AttentionKernel::kFlashV1  ? r.attention_v1_forward_efficiency
        : w.attention.kernel == AttentionKernel::kFlash2 ? r.attention_fa2_forward_efficiency
                                                         : r.attention_forward_efficiency;
    t.attention_s = AttentionForwardFlops(w.attention) / (r.peak_flops * eff);
  }
  t.memory_s = w.elementwise_bytes / ElementwiseBps(r);
  t.launch_s = w.kernels * r.kernel_gap_s;
  return t;
}

ComputeTime BackwardTime(const ModuleWork& w, const ComputeRates& r, BackwardPart part) {
  ComputeTime t;
  const bool input = part != BackwardPart::kWeightGradient;
  const bool weight = part != BackwardPart::kInputGradient;
  for (const Gemm& g : w.gemms) {
    // input gradient [m x k] = [m x n][n x k]
    if (input) t.gemm_s += GemmTime(Gemm{g.m, g.k, g.n, g.batch, g.fp8}, r);
    // weight gradient [n x k] = [n x m][m x k]
    if (weight) t.gemm_s += GemmTime(Gemm{g.n, g.k, g.m, g.batch, g.fp8}, r);
    if (input) t.gemm_s += Fp8BackwardCastBytes(g) / ElementwiseBps(r);
  }
  if (!input) return t;  // the weight-gradient GEMMs alone
  if (w.attention.batch_heads > 0) {
    const double eff =
        w.attention.kernel == AttentionKernel::kFlashV1  ? r.attention_v1_backward_efficiency
        : w.attention.kernel == AttentionKernel::kFlash2 ? r.attention_fa2_backward_efficiency
                                                         : r.attention_backward_efficiency;
    t.attention_s = kAttentionBackwardFlopsFactor * AttentionForwardFlops(w.attention) / (r.peak_flops * eff);
  }
  t.memory_s = kBackwardBytesFactor * w.elementwise_bytes / ElementwiseBps(r);
  t.launch_s = 2.0 * w.kernels * r.kernel_gap_s;
  if (w.recompute_in_backward) {
    // The recomputed forward runs first, inside the backward pass (memory.h: selective recompute).
    const ComputeTime f = ForwardTime(w, r);
    t.gemm_s += f.gemm_s;
    t.attention_s += f.attention_s;
    t.memory_s += f.memory_s;
    t.launch_s += f.launch_s;
  } else if (w.recompute_gemm_fraction > 0 || w.recompute_elementwise) {
    // Op-level selective checkpointing: the unsaved GEMMs and the memory-bound kernels re-run first.
    const ComputeTime f = ForwardTime(w, r);
    t.gemm_s += w.recompute_gemm_fraction * f.gemm_s;
    if (w.recompute_elementwise) t.memory_s += f.memory_s;
    t.launch_s += f.launch_s;
  }
  return t;
}

}  // namespace zerosim::model
