// `zerosim calibrate`'s measurement for a bare CUDA machine (this folder's CMakeLists.txt): the same
// benchmarks (bench/benchmark.h, bench/compute_bench.h) and file writer (bench/calibration_file.h) without
// the rest of the CLI's dependencies (Boost, toml++, SimGrid). kernels/bench/run_on_gpu.sh runs it:
//
//   calibrate --from kernels/calibration/h200.json --out OUT.json [--max-size BYTES] [--repetitions N]
//             [--warmup N] [--full] [--gemm-shapes MxNxK,...] [--attention-shapes BHxSxD,...] [--no-compute]
//
// --from names the shipped file whose GPU name and gemm_efficiency block the measured file keeps. The
// options mean what they mean for `zerosim calibrate` (sizes here in plain bytes).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "kernels/bench/benchmark.h"
#include "kernels/bench/calibration_file.h"
#include "kernels/bench/compute_bench.h"
#include "kernels/bench/compute_section.h"
#include "kernels/bench/compute_shapes.h"
#include "model/io/file_source.h"

namespace {

using zerosim::StatusOr;
namespace bench = zerosim::kernels::bench;

int Fail(const std::string& message) {
  std::fprintf(stderr, "calibrate: %s\n", message.c_str());
  return 1;
}

const char kUsage[] =
    "usage: calibrate --from SHIPPED.json --out OUT.json [--max-size BYTES] [--repetitions N] [--warmup N] "
    "[--full] [--gemm-shapes MxNxK,...] [--attention-shapes BHxSxD,...] [--no-compute]";

}  // namespace

int main(int argc, char** argv) {
  std::string from;
  std::string out;
  bench::BenchOptions options;
  bench::ComputeOptions compute;
  bool no_compute = false;
  std::string command = "kernels/bench/run_on_gpu.sh:";
  for (int i = 0; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--full") {
      compute.gemm_grid = bench::GemmGrid::kFull;
      continue;
    }
    if (flag == "--no-compute") {
      no_compute = true;
      continue;
    }
    if (i + 1 >= argc) return Fail(flag + " needs a value\n" + kUsage);
    const std::string value = argv[++i];
    if (flag == "--from") {
      from = value;
    } else if (flag == "--out") {
      out = value;
    } else if (flag == "--max-size") {
      options.max_bytes = std::atoll(value.c_str());
    } else if (flag == "--repetitions") {
      options.repetitions = std::atoi(value.c_str());
    } else if (flag == "--warmup") {
      options.warmup = std::atoi(value.c_str());
    } else if (flag == "--gemm-shapes") {
      StatusOr<std::vector<bench::GemmShape>> shapes = bench::ParseGemmShapes(value);
      if (!shapes.ok()) return Fail(shapes.status().message());
      compute.gemm_shapes = *shapes;
    } else if (flag == "--attention-shapes") {
      StatusOr<std::vector<bench::AttentionShape>> shapes = bench::ParseAttentionShapes(value);
      if (!shapes.ok()) return Fail(shapes.status().message());
      compute.attention_shapes = *shapes;
    } else {
      return Fail("unknown option " + flag + "\n" + kUsage);
    }
  }
  if (from.empty() || out.empty()) return Fail(kUsage);
  compute.warmup = options.warmup;
  compute.repetitions = options.repetitions;
  StatusOr<bench::ExistingCalibration> shipped =
      bench::ReadExistingCalibration(zerosim::io::DiskFileSource(), from);
  if (!shipped.ok()) return Fail(shipped.status().message());
  const bench::Stamp stamp = bench::StampNow(command);

  StatusOr<bench::BenchResult> r = bench::RunKernelBenchmark(options, stdout);
  if (!r.ok()) return Fail(r.status().message());
  bench::PrintFits(*r, stdout);
  std::optional<bench::ComputeSection> section;
  if (!no_compute) {
    StatusOr<bench::ComputeResult> c = bench::RunComputeBenchmark(compute, stdout);
    if (!c.ok()) return Fail("compute benchmark: " + c.status().message());
    section = bench::MeasuredComputeSection(*r, *c, compute, stamp);
  }
  const bench::CalibrationFile f =
      bench::MeasuredCalibration(*r, options, shipped->gpu, stamp, shipped->gemm_efficiency, section);
  const std::string text = bench::CalibrationFileText(f);
  if (section) {
    StatusOr<bench::ComputeSection> back = bench::ParseComputeSection(text, out);
    if (!back.ok())
      return Fail("internal error, the compute section would not load: " + back.status().message());
  }
  std::ofstream file(out, std::ios::binary);
  file << text;
  if (!file) return Fail("cannot write " + out);
  std::printf("calibration written to %s\n", out.c_str());
  return 0;
}
