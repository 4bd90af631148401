#include "kernels/bench/device_info.h"

#include <cuda_runtime.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace zerosim::kernels::bench {
namespace {

// "580.159.03" from /proc/driver/nvidia/version, or "" where there is no such file.
std::string KernelModuleVersion() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  std::istringstream words(line);
  std::string w;
  while (words >> w) {
    if (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos)
      return w;
  }
  return "";
}

}  // namespace

std::string CudaVersionString(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

StatusOr<DeviceInfo> QueryDevice() {
  cudaDeviceProp prop{};
  if (cudaError_t err = cudaGetDeviceProperties(&prop, 0); err != cudaSuccess) {
    return Status::Error(std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(err));
  }
  DeviceInfo d;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  d.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  int clock_khz = 0;
  if (cudaError_t err = cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0); err != cudaSuccess) {
    return Status::Error(std::string("cudaDeviceGetAttribute(clock rate): ") + cudaGetErrorString(err));
  }
  d.clock_hz = clock_khz * 1e3;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  d.driver = KernelModuleVersion();
  if (d.driver.empty()) d.driver = "CUDA " + CudaVersionString(driver);
  d.cuda_runtime = CudaVersionString(runtime);
  return d;
}

}  // namespace zerosim::kernels::bench
