// The "compute" section of a calibration file (docs/calibration.md, "compute"): what `zerosim calibrate`
// measured of one GPU's compute. It is the contract with the model's loader (model/io), which reads it;
// this side writes it, and reads it back to check what it wrote. Only measurements go in it: "source" is
// always "measured", and derived calibrations have no compute section at all.
//
//   "compute": {
//     "source": "measured",
//     "provenance": "GPU, driver, CUDA runtime, cuBLAS version, date, command, method",
//     "gemm": [{"dtype": "bf16", "m": 4096, "n": 4096, "k": 4096, "seconds": 1.2e-4}, ...],
//     "attention": [{"dtype": "bf16", "batch_heads": 64, "seq": 2048, "head_dim": 128, "causal": true,
//                    "seconds": 3.1e-4, "kernel": "what was timed"}, ...],
//     "copy": [{"bytes": 1073741824, "seconds": 5.0e-4}, ...],
//     "launch_s": 4.5e-6
//   }
//
// gemm: Y[m, n] = X[m, k] W[n, k]^T (row-major; compute_shapes.h), inputs and output of `dtype`, fp32
// accumulation. copy: `bytes` copied device to device, so the memory traffic is 2 x bytes (read + write)
// and the bandwidth 2 x bytes / seconds, the convention of copy_bandwidth_Bps. launch_s: the interval
// between back-to-back launches of an empty kernel. Every time is a median of repeated timed calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/bench/compute_shapes.h"
#include "kernels/format.h"
#include "model/status.h"

namespace zerosim::kernels::bench {

struct GemmPoint {
  ValueType type = ValueType::kBf16;
  GemmShape shape;
  double seconds = 0;
};

struct AttentionPoint {
  ValueType type = ValueType::kBf16;
  AttentionShape shape;
  bool causal = true;
  double seconds = 0;
  std::string kernel;  // what was timed, e.g. "cuBLASLt QK^T + ZeroSim causal softmax + cuBLASLt PV"
};

struct CopyPoint {
  int64_t bytes = 0;  // bytes copied (the traffic is twice this)
  double seconds = 0;
};

struct ComputeSection {
  std::string source = "measured";
  std::string provenance;
  std::vector<GemmPoint> gemm;
  std::vector<AttentionPoint> attention;
  std::vector<CopyPoint> copy;
  double launch_s = 0;
};

// The section as JSON text: "{...}" with one point per line, every line after the first indented by
// `indent` (to sit under a key of an enclosing object). No trailing newline.
std::string ComputeSectionText(const ComputeSection& section, const std::string& indent);

// Reads the "compute" section of a calibration file's text strictly: every key above required, no others;
// dtypes "bf16" or "fp16"; dimensions positive integers; times positive and finite; source "measured".
// Errors name `path` and the key, e.g. "h200.json: key 'compute.gemm[3].seconds': expected a finite
// number greater than zero". Invalid JSON or no section: an error saying so. (No JSON type in this
// header: nvcc compiles the benchmark that includes it, once per architecture.)
StatusOr<ComputeSection> ParseComputeSection(const std::string& file_text, const std::string& path);

}  // namespace zerosim::kernels::bench
