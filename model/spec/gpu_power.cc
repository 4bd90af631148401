#include "model/spec/gpu_power.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace zerosim::model {
namespace {

// The idle draw He's article reads from nvidia-smi on its H100 (thonking.ai, 2024), for every GH100 part.
constexpr double kGh100IdleW = 88;

struct Row {
  const char* name_has[2];  // the GPU name contains both (the second may be "")
  GpuPowerRange range;
};

// Datasheet ranges of the configurable power limit ("Max thermal design power (TDP)").
const Row kRows[] = {
    {{"H100", "NVL"},
     {"H100 NVL", 400, 350, kGh100IdleW,
      "NVIDIA H100 datasheet: H100 NVL 350-400 W (configurable); idle 88 W (He, thonking.ai, an H100)"}},
    {{"H100", "PCIe"},
     {"H100 PCIe", 350, 300, kGh100IdleW,
      "NVIDIA H100 PCIe datasheet: 300-350 W (configurable); idle 88 W (He, thonking.ai, an H100)"}},
    {{"H100", "SXM"},
     {"H100 SXM5", 700, 200, kGh100IdleW,
      "NVIDIA H100 datasheet: H100 SXM up to 700 W (configurable); 200 W the lowest cap set on it by Ujeniya et "
      "al. (arXiv 2604.11391); idle 88 W (He, thonking.ai)"}},
    {{"H200", "SXM"},
     {"H200 SXM", 700, 200, kGh100IdleW,
      "NVIDIA H200 datasheet: H200 SXM up to 700 W (configurable); 200 W the lowest cap set on it by Ujeniya et "
      "al. (arXiv 2604.11391); idle 88 W of the same GH100 die (He, thonking.ai)"}},
};

}  // namespace

bool FindGpuPowerRange(const GpuSpec& gpu, GpuPowerRange* out) {
  for (const Row& r : kRows) {
    if (gpu.name.find(r.name_has[0]) == std::string::npos) continue;
    if (gpu.name.find(r.name_has[1]) == std::string::npos) continue;
    *out = r.range;
    return true;
  }
  return false;
}

double PowerClockFactor(const GpuPowerRange& p, double limit_W) {
  if (limit_W <= 0 || limit_W >= p.default_W) return 1.0;
  const double share = (limit_W - p.idle_W) / (p.default_W - p.idle_W);
  return share <= 0 ? 0.0 : std::cbrt(share);
}

double TensorClockFactor(const GpuSpec& gpu, double set_power_limit_W) {
  GpuPowerRange p;
  if (!FindGpuPowerRange(gpu, &p)) return 1.0;
  const double set = PowerClockFactor(p, set_power_limit_W);
  return set > 0 ? PowerClockFactor(p, gpu.power_limit_W) / set : 1.0;
}

std::string PowerModelText(const GpuSpec& gpu, double set_power_limit_W) {
  if (gpu.power_limit_W <= 0 && set_power_limit_W <= 0) return "";
  GpuPowerRange p;
  if (!FindGpuPowerRange(gpu, &p)) return "";
  auto watts = [&](double w) { return fmt::format("{:g} W", w > 0 ? w : p.default_W); };
  return fmt::format(
      "{} at {} against the calibration set's {}: tensor-core clock x{:.3f} (derived: clock ~ ((L - {:g} W) / "
      "({:g} W - {:g} W))^(1/3), switching power ~ f^3 above the idle draw; {})",
      p.part, watts(gpu.power_limit_W), watts(set_power_limit_W), TensorClockFactor(gpu, set_power_limit_W),
      p.idle_W, p.default_W, p.idle_W, p.source);
}

}  // namespace zerosim::model
