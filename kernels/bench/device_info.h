// What the benchmarks record about the GPU they ran on (device 0), for provenance and for bounds.
// C++17; the implementation (device_info.cc) needs CUDA.
#pragma once

#include <cstdint>
#include <string>

#include "model/status.h"

namespace zerosim::kernels::bench {

struct DeviceInfo {
  std::string name;          // e.g. "NVIDIA H200"
  std::string driver;        // kernel module version (e.g. "580.159.03"), else "CUDA <driver API version>"
  std::string cuda_runtime;  // e.g. "13.0"
  int cc_major = 0;          // compute capability
  int cc_minor = 0;
  int sm_count = 0;
  double clock_hz = 0;  // the SMs' maximum clock (cudaDevAttrClockRate)
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
};

// Device 0's properties. Errors: CUDA's.
StatusOr<DeviceInfo> QueryDevice();

// "13.0" from CUDA's 13000 encoding.
std::string CudaVersionString(int version);

}  // namespace zerosim::kernels::bench
