// `zerosim calibrate`'s measurement for a bare CUDA machine (this folder's CMakeLists.txt): the same
// benchmark (bench/benchmark.h) and file writer (bench/calibration_file.h) without the rest of the CLI's
// dependencies (Boost, toml++, SimGrid). kernels/bench/run_on_gpu.sh runs it:
//
//   calibrate --from kernels/calibration/h200.json --out OUT.json [--max-size BYTES] [--repetitions N]
//
// --from names the shipped file whose GPU name and gemm_efficiency block the measured file keeps.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "kernels/bench/benchmark.h"
#include "kernels/bench/calibration_file.h"
#include "model/io/file_source.h"

namespace {

using zerosim::StatusOr;
namespace bench = zerosim::kernels::bench;

int Fail(const std::string& message) {
  std::fprintf(stderr, "calibrate: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string from;
  std::string out;
  bench::BenchOptions options;
  std::string command = "kernels/bench/run_on_gpu.sh:";
  for (int i = 0; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--from") {
      from = value;
    } else if (flag == "--out") {
      out = value;
    } else if (flag == "--max-size") {
      options.max_bytes = std::atoll(value.c_str());
    } else if (flag == "--repetitions") {
      options.repetitions = std::atoi(value.c_str());
    } else {
      return Fail("unknown option " + flag);
    }
  }
  if (from.empty() || out.empty() || argc % 2 == 0) {
    return Fail("usage: calibrate --from SHIPPED.json --out OUT.json [--max-size BYTES] [--repetitions N]");
  }
  StatusOr<bench::ExistingCalibration> shipped =
      bench::ReadExistingCalibration(zerosim::io::DiskFileSource(), from);
  if (!shipped.ok()) return Fail(shipped.status().message());
  const bench::Stamp stamp = bench::StampNow(command);

  StatusOr<bench::BenchResult> r = bench::RunKernelBenchmark(options, stdout);
  if (!r.ok()) return Fail(r.status().message());
  bench::PrintFits(*r, stdout);
  const bench::CalibrationFile f =
      bench::MeasuredCalibration(*r, options, shipped->gpu, stamp, shipped->gemm_efficiency);
  std::ofstream file(out, std::ios::binary);
  file << bench::CalibrationFileText(f);
  if (!file) return Fail("cannot write " + out);
  std::printf("calibration written to %s\n", out.c_str());
  return 0;
}
