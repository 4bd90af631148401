// The power model: how far a GPU's tensor-core clock falls when its board power limit is set below the part's
// default (`[gpu] power_limit`, nvidia-smi -pl), as a factor on the calibration's tensor-core efficiencies
// (GEMMs, FP8 GEMMs, attention). Memory bandwidth (the HBM roofline, memory-bound kernels) is left alone: an
// assumption (the firmware holds the limit by lowering the SM clock; Ujeniya et al., arXiv 2604.11391, measure
// SM and memory clocks apart on H100 and H200 capped from 200 to 700 W, numbers ZeroSim does not take).
//
// Rule (derived, not fitted): a large GEMM holds the board at its power limit (H. He, "Strangely, Matrix
// Multiplications on GPUs Run Faster When Given 'Predictable' Data", thonking.ai, 2024: "matmuls on the H100
// are primarily not compute or bandwidth limited, they are power limited"; the clock falls until the draw
// fits). Board power is a static part plus the switching power a C V^2 f, and over the DVFS range the voltage
// rises with the clock (V ~ f), so P(f) = P_idle + (P_default - P_idle) (f / f_default)^3, P_default the
// part's default limit, at which the calibration's efficiencies were obtained. Under a limit L:
//   clock factor = min(1, ((L - P_idle) / (P_default - P_idle))^(1/3)).
// P_idle is the idle draw He's article reads from nvidia-smi on its H100, 88 W, taken for every GH100 part
// (same die). An approximation, stated: at low limits the voltage reaches its floor and the clock falls faster
// (power then ~ f), so the factor is an upper bound there.
#pragma once

#include <string>

#include "model/spec/cluster_spec.h"

namespace zerosim::model {

// What the power model knows of one part, from its datasheet.
struct GpuPowerRange {
  std::string part;        // the part the row describes ("H100 SXM5")
  double default_W = 0;    // default (and highest) board power limit
  double min_W = 0;        // lowest settable limit
  double idle_W = 0;       // static draw (the P_idle above)
  std::string source;      // datasheet and measurement the row comes from
};

// The row for `gpu` by its name (H100 SXM, H100 NVL, H100 PCIe, H200 SXM; like GpuComputeCapability, the one
// place that reads a GPU's name for power); false for a part without power data (then `power_limit` is
// refused).
bool FindGpuPowerRange(const GpuSpec& gpu, GpuPowerRange* out);

// The clock factor of the rule above at limit `limit_W` (0: the part's default, factor 1).
double PowerClockFactor(const GpuPowerRange& p, double limit_W);

// The factor on the calibration's tensor-core efficiencies for `gpu` at its power limit, relative to the limit
// the efficiency set was obtained at (`set_power_limit_W`, 0: the part's default): F(gpu limit) / F(set limit).
// A set fitted on 500 W parts (h100.json torchtitan-2024-12) is 1 on a 500 W part and above 1 on a 700 W one, so
// a cap is never counted twice. 1 for a part without power data.
double TensorClockFactor(const GpuSpec& gpu, double set_power_limit_W);

// One line for the report's provenance: the limit, the factor and the rule; empty when neither the GPU nor the
// set is capped.
std::string PowerModelText(const GpuSpec& gpu, double set_power_limit_W);

}  // namespace zerosim::model
