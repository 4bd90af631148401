#include "kernels/bench/calibration_file.h"

#include <cmath>
#include <ctime>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "model/io/calibration_writer.h"
#include "model/version.h"

namespace zerosim::kernels::bench {
namespace {

using nlohmann::ordered_json;

#ifdef ZEROSIM_CUDA_ARCHITECTURES
constexpr const char* kCudaArchitectures = ZEROSIM_CUDA_ARCHITECTURES;
#else
constexpr const char* kCudaArchitectures = "(none: built without CUDA)";
#endif

// `v` to a multiple of 0.1 GB/s (1e8 B/s), ties to even.
double RoundToTenthGBps(double v) { return std::nearbyint(v / 1e8) * 1e8; }

}  // namespace

Stamp StampNow(std::string command) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return Stamp{std::move(command), date};
}

void PrintFits(const BenchResult& r, std::FILE* out) {
  fmt::print(out, "\nfits of t = alpha + bytes / beta (what the simulator will use):\n");
  for (int k = 0; k < model::kNumKernels; ++k) {
    const model::KernelFit fit = model::FitKernel(r.points[static_cast<size_t>(k)]);
    fmt::print(out, "  {:<28} alpha {:7.2f} us   beta {:8.1f} GB/s   {:5.1f}% of copy\n",
               model::KernelName(static_cast<model::Kernel>(k)), fit.alpha_s * 1e6, fit.beta_Bps / 1e9,
               100 * fit.beta_Bps / r.copy_Bps);
  }
}

std::string CalibrationFileText(const CalibrationFile& f) {
  io::CalibrationFileData data;
  data.gpu = f.gpu;
  data.source = f.source;
  data.provenance = f.provenance;
  data.copy_Bps = f.copy_Bps;
  data.gemm_efficiency = f.gemm_efficiency;
  data.kernels = f.kernels;
  if (f.compute) data.compute_json = ComputeSectionText(*f.compute, "  ");
  return io::CalibrationFileText(data);
}

StatusOr<ExistingCalibration> ReadExistingCalibration(const io::FileSource& fs, const std::string& path) {
  StatusOr<std::string> text = fs.Read(path);
  if (!text.ok()) return text.status();
  const ordered_json doc = ordered_json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("gemm_efficiency") || !doc["gemm_efficiency"].is_object() ||
      !doc.contains("gpu") || !doc["gpu"].is_string()) {
    return Status::Error(path + ": not a calibration file with \"gpu\" and \"gemm_efficiency\"");
  }
  return ExistingCalibration{doc["gpu"].get<std::string>(), doc["gemm_efficiency"]};
}

ComputeSection MeasuredComputeSection(const BenchResult& k, const ComputeResult& c, const ComputeOptions& o,
                                      const Stamp& stamp) {
  ComputeSection s;
  s.source = "measured";
  s.gemm = c.gemm;
  s.attention = c.attention;
  for (const model::KernelPoint& p : k.copy_points) {
    s.copy.push_back({static_cast<int64_t>(std::llround(p.bytes / 2)), p.seconds});
  }
  s.launch_s = c.launch_s;
  const DeviceInfo& d = c.device;
  std::string notes;
  for (const std::string& n : c.notes) notes += " Note: " + n + ".";
  s.provenance = fmt::format(
      "measured by `{}` on {} (compute capability {}.{}, {} SMs, {:.0f} MHz maximum clock; driver {}, "
      "CUDA runtime {}, cuBLASLt {}), {}, ZeroSim {}. gemm and attention: each time is the median of {} "
      "calls timed with CUDA events after {} warm-up calls, queued behind a spin kernel so that it is "
      "device time, on inputs uniform in [-1, 1) rotating over at least 4 x L2 after an L2 flush. gemm: "
      "cublasLtMatmul, the heuristic's first algorithm with a {} MiB workspace, inputs and output of "
      "the dtype, fp32 compute and scale, Y[m,n] = X[m,k] W[n,k]^T row-major (cuBLAS \"TN\"); shapes: "
      "the {}{}. attention: {}; it computes the whole seq x seq square and moves the scores through "
      "memory, so its time bounds FlashAttention's from above. copy: the quantization benchmark's "
      "cudaMemcpyAsync device to device, timed by its method (the file's top-level provenance); bytes "
      "copied, traffic twice that. launch_s: median over {} batches of the interval between {} "
      "back-to-back empty-kernel launches as the host issues them; queued on the device the interval is "
      "{:.3g} s, and one launch to completion as the host sees it takes {:.3g} s. Dense tensor peak at "
      "the maximum clock (compute_shapes.h): {:.1f} TFLOP/s.{}",
      stamp.command, d.name, d.cc_major, d.cc_minor, d.sm_count, d.clock_hz / 1e6, d.driver, d.cuda_runtime,
      c.cublaslt, stamp.date, Version(), o.repetitions, o.warmup, o.workspace_bytes >> 20,
      GemmGridText(o.gemm_grid),
      o.gemm_shapes.empty() ? "" : ", then the given shapes " + GemmShapesText(o.gemm_shapes),
      c.attention.empty() ? "none" : c.attention[0].kernel, o.launch_repetitions, o.launch_batch,
      c.launch_queued_s, c.launch_latency_s, c.peak_flops / 1e12, notes);
  return s;
}

CalibrationFile MeasuredCalibration(const BenchResult& r, const BenchOptions& o, const std::string& gpu,
                                    const Stamp& stamp, nlohmann::ordered_json gemm_efficiency,
                                    std::optional<ComputeSection> compute) {
  CalibrationFile f;
  f.compute = std::move(compute);
  f.gpu = gpu;
  f.source = "measured";
  f.copy_Bps = r.copy_Bps;
  f.gemm_efficiency = std::move(gemm_efficiency);
  for (size_t k = 0; k < f.kernels.size(); ++k) f.kernels[k].points = r.points[k];
  f.provenance = fmt::format(
      "measured by `{}` on {} ({}; driver {}, CUDA runtime {}, L2 {} MiB), {}, ZeroSim {}. Each point: bytes "
      "per "
      "model/cost/kernel_cost.h and the median of {} calls timed with CUDA events (after {} warm-up calls); "
      "inputs "
      "rotate over {} MiB of device memory and L2 is flushed first, so calls read DRAM. Tensors of {} to {} "
      "bytes of {} values (x2 steps), groups of {}, fan-in {} for the reduce kernels, swizzle {} nodes x {} "
      "GPUs "
      "(fewer partitions for tensors too small to split). copy_bandwidth_Bps: cudaMemcpyAsync device to "
      "device "
      "of {} bytes, read + write counted. Kernels: kernels/cuda, built for CUDA architectures {}.",
      stamp.command, r.device, gpu, r.driver, r.cuda_runtime, r.l2_bytes >> 20, stamp.date, Version(),
      o.repetitions, o.warmup, r.rotate_bytes >> 20, o.min_bytes, r.max_bytes, ValueTypeName(o.type),
      o.group_size, o.fan_in, o.swizzle.nodes, o.swizzle.gpus_per_node, r.max_bytes, kCudaArchitectures);
  return f;
}

CalibrationFile DerivedCalibration(const model::Calibration& from, double ratio,
                                   const std::string& ratio_text, const std::string& gpu, const Stamp& stamp,
                                   nlohmann::ordered_json gemm_efficiency) {
  CalibrationFile f;
  f.gpu = gpu;
  f.source = "derived";
  f.copy_Bps = RoundToTenthGBps(from.copy_Bps * ratio);
  f.gemm_efficiency = std::move(gemm_efficiency);
  for (size_t k = 0; k < f.kernels.size(); ++k) {
    f.kernels[k].fit.alpha_s = from.kernels[k].fit.alpha_s;
    f.kernels[k].fit.beta_Bps = RoundToTenthGBps(from.kernels[k].fit.beta_Bps * ratio);
  }
  f.provenance = fmt::format(
      "derived, nothing measured on this GPU: {} ({}, {}) scaled by the memory-bandwidth ratio {} = {:.6g}. "
      "copy_bandwidth_Bps and every beta_Bps are the source's{} times the ratio, rounded to 0.1 GB/s (ties "
      "to even); every alpha_s (launch cost) is the source's. Written by `{}`, {}. Source provenance: {}",
      from.path, from.gpu, from.source, ratio_text, ratio,
      from.source == "measured" ? " (fitted to its points)" : "", stamp.command, stamp.date, from.provenance);
  return f;
}

}  // namespace zerosim::kernels::bench
