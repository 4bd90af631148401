// Fake benchmark results for the calibration-file tests: what `zerosim calibrate` would have measured on
// a made-up GPU, without a GPU.
#pragma once

#include "kernels/bench/benchmark.h"

namespace zerosim::kernels::testing {

// A gemm_efficiency section as the measured calibration takes it from the user, to be kept verbatim.
inline const char kGemmEfficiency[] =
    R"({"gemm": 0.8, "attention_forward": 0.6, "attention_backward": 0.5, "kernel_gap_s": 2e-6, "source": "kept verbatim"})";

// A kernel benchmark's device fields (a 60 MiB L2, sizes to 1 GiB, 4.2 TB/s copy), with no points.
inline bench::BenchResult FakeDeviceRun() {
  bench::BenchResult r;
  r.device = "NVIDIA Test GPU";
  r.driver = "999.1";
  r.cuda_runtime = "13.0";
  r.l2_bytes = 60 << 20;
  r.rotate_bytes = 240 << 20;
  r.max_bytes = 1 << 30;
  r.copy_Bps = 4.2e12;
  return r;
}

}  // namespace zerosim::kernels::testing
