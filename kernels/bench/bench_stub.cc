// bench/benchmark.h in a build without CUDA.
#include "kernels/bench/benchmark.h"
#include "kernels/gpu.h"

namespace zerosim::kernels::bench {

StatusOr<BenchResult> RunKernelBenchmark(const BenchOptions&, std::FILE*) { return gpu::DeviceStatus(); }

}  // namespace zerosim::kernels::bench
