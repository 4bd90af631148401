// The compute microbenchmark behind `zerosim calibrate`, beside the quantization kernels' (benchmark.h):
// cuBLASLt GEMMs, an unfused causal attention (cuda/attention.h) and kernel launch overhead on the
// current CUDA device. Its results, with the kernel benchmark's device-to-device copy points, form the
// calibration file's "compute" section (compute_section.h). C++17 (nvcc compiles compute_bench.cu).
//
// Method, as the kernel benchmark's: CUDA events around every call, `warmup` untimed calls, then the
// median of `repetitions` timed ones; inputs (random values in [-1, 1], never zeros) rotate over at least
// 4 x L2 of device memory and L2 is flushed first, so every call reads its operands from DRAM. One
// difference: a spin kernel holds the GPU while the host queues all calls, so each time is the device's
// (no host launch gap between calls); launch cost is measured on its own.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/bench/compute_section.h"
#include "kernels/bench/compute_shapes.h"
#include "kernels/bench/device_info.h"
#include "kernels/format.h"
#include "model/status.h"

namespace zerosim::kernels::bench {

struct ComputeOptions {
  GemmGrid gemm_grid = GemmGrid::kReduced;  // the standard grid's shapes (compute_shapes.h) ...
  std::vector<GemmShape> gemm_shapes;       // ... then these (a model's), each for every type in gemm_types
  std::vector<ValueType> gemm_types = {ValueType::kBf16, ValueType::kFp16};
  std::vector<AttentionShape> attention_shapes = DefaultAttentionShapes();
  ValueType attention_type = ValueType::kBf16;  // fp16 is used instead on GPUs without bf16 (before 8.0)
  int warmup = 5;                               // untimed calls per shape
  int repetitions = 51;                         // timed calls per shape; their median is the point
  int launch_batch = 1000;                      // empty kernels per timed batch of launches
  int launch_repetitions = 21;                  // batches (and x50 single launches for the latency)
  int64_t workspace_bytes = int64_t{32} << 20;  // cuBLASLt workspace (PyTorch's default on Hopper)
};

struct ComputeResult {
  DeviceInfo device;
  std::string cublaslt;   // cuBLASLt library version, e.g. "13.1.0"
  double peak_flops = 0;  // TensorPeakFlops at the maximum clock; 0 where the architecture is unknown
  std::vector<GemmPoint> gemm;
  std::vector<AttentionPoint> attention;
  double launch_s = 0;             // interval between back-to-back launches of an empty kernel (host issuing)
  double launch_queued_s = 0;      // interval between empty kernels already queued on the device
  double launch_latency_s = 0;     // one launch until the host sees it complete (cudaStreamSynchronize)
  std::vector<std::string> notes;  // what was skipped and why (a type the GPU lacks, memory)
};

// True when this build has the compute benchmark (CUDA and cuBLASLt); false for the stub.
bool BuiltWithComputeBenchmark();

// True when device 0 has bf16 tensor cores (compute capability 8.0 or later); false without a device.
bool DeviceHasBf16();

// Runs the benchmark on device 0, printing a table per part to `log` (TFLOP/s and fraction of
// peak_flops). Errors: no CUDA or no cuBLASLt in this build, no device, CUDA or cuBLASLt failures.
StatusOr<ComputeResult> RunComputeBenchmark(const ComputeOptions& options, std::FILE* log);

// The benchmarked operations on host data, for tests (16-bit values as bit patterns, row-major):
// Y[m, n] = X[m, k] W[n, k]^T, and causal attention of Q, K, V [batch_heads][seq][head_dim]. Outputs are
// poisoned before the call, so an element the device did not write shows up.
StatusOr<std::vector<uint16_t>> DeviceLinear(const GemmShape& shape, ValueType type,
                                             const std::vector<uint16_t>& x, const std::vector<uint16_t>& w);
StatusOr<std::vector<uint16_t>> DeviceCausalAttention(const AttentionShape& shape, ValueType type,
                                                      const std::vector<uint16_t>& q,
                                                      const std::vector<uint16_t>& k,
                                                      const std::vector<uint16_t>& v);

}  // namespace zerosim::kernels::bench
