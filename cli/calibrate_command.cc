// `zerosim calibrate --out FILE [options]`: measure the quantization kernels and the GPU's compute (GEMMs,
// attention, launch overhead; the file's "compute" section) on this machine's GPU and write a "measured"
// calibration file; or, with --derive-from, write a "derived" one for another GPU (never with a compute
// section: nothing was measured).
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "cli/options.h"
#include "kernels/bench/benchmark.h"
#include "kernels/bench/calibration_file.h"
#include "kernels/bench/compute_bench.h"
#include "kernels/bench/compute_section.h"
#include "kernels/bench/compute_shapes.h"
#include "kernels/gpu.h"
#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/io/quantity.h"

namespace zerosim::cli {
namespace {

namespace po = boost::program_options;
namespace bench = kernels::bench;

StatusOr<int64_t> Bytes(const std::string& text) {
  StatusOr<double> b = io::ParseQuantity(text, io::Dimension::kBytes);
  if (!b.ok()) return b.status();
  return static_cast<int64_t>(*b);
}

// Checks that the file reads back (the calibration through the model's loader, the compute section
// through its own strict reader), then writes it to `path`.
int WriteCalibration(const bench::CalibrationFile& file, const std::string& path) {
  const std::string text = bench::CalibrationFileText(file);
  bench::CalibrationFile without_compute = file;
  without_compute.compute.reset();
  Status check = io::ParseCalibration(bench::CalibrationFileText(without_compute), path).status();
  if (check.ok() && file.compute) {
    check = bench::ParseComputeSection(text, path).status();
  }
  if (!check.ok()) {
    fmt::print(stderr, "zerosim calibrate: internal error, the file would not load: {}\n", check.message());
    return kExitFailed;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    fmt::print(stderr, "zerosim calibrate: error: cannot write {}\n", path);
    return kExitFailed;
  }
  return Print("calibrate", fmt::format("calibration written to {}\n", path)) ? kExitOk : kExitFailed;
}

struct Args {
  std::string out;
  std::string gpu;
  std::string gemm_from;
  std::string derive_from;
  std::string target_bandwidth;
  std::string source_bandwidth;
  std::string min_size = "4KiB";
  std::string max_size = "1GiB";
  std::string dtype = "fp16";
  bool full = false;
  bool no_compute = false;
  std::string gemm_shapes;
  std::string attention_shapes;
  bench::BenchOptions bench;
  bench::ComputeOptions compute;
};

int Derive(const Args& a, const bench::Stamp& stamp, const bench::ExistingCalibration& existing) {
  StatusOr<double> target = io::ParseQuantity(a.target_bandwidth, io::Dimension::kBandwidth);
  StatusOr<double> source = io::ParseQuantity(a.source_bandwidth, io::Dimension::kBandwidth);
  if (!target.ok() || !source.ok() || *source <= 0) {
    fmt::print(
        stderr,
        "zerosim calibrate: --derive-from needs --hbm and --source-hbm bandwidths (e.g. 900GBps): {}\n",
        !target.ok() ? target.status().message() : source.status().message());
    return kExitUsage;
  }
  StatusOr<model::Calibration> from = io::LoadCalibration(io::DiskFileSource(), a.derive_from);
  if (!from.ok()) {
    fmt::print(stderr, "zerosim calibrate: error: {}\n", from.status().message());
    return kExitUsage;
  }
  const std::string ratio_text =
      fmt::format("{} / {} (datasheet memory bandwidth of {} over that of {})",
                  io::FormatQuantity(*target, io::Dimension::kBandwidth),
                  io::FormatQuantity(*source, io::Dimension::kBandwidth), existing.gpu, from->gpu);
  const bench::CalibrationFile f = bench::DerivedCalibration(*from, *target / *source, ratio_text,
                                                             existing.gpu, stamp, existing.gemm_efficiency);
  return WriteCalibration(f, a.out);
}

int Measure(const Args& a, const bench::Stamp& stamp, const bench::ExistingCalibration& existing) {
  StatusOr<bench::BenchResult> r = bench::RunKernelBenchmark(a.bench, stdout);
  if (!r.ok()) {
    fmt::print(stderr, "zerosim calibrate: benchmark failed: {}\n", r.status().message());
    return kExitFailed;
  }
  bench::PrintFits(*r, stdout);
  std::optional<bench::ComputeSection> compute;
  if (!a.no_compute) {
    StatusOr<bench::ComputeResult> c = bench::RunComputeBenchmark(a.compute, stdout);
    if (!c.ok()) {
      fmt::print(stderr, "zerosim calibrate: compute benchmark failed: {}\n", c.status().message());
      return kExitFailed;
    }
    compute = bench::MeasuredComputeSection(*r, *c, a.compute, stamp);
  }
  const bench::CalibrationFile f = bench::MeasuredCalibration(*r, a.bench, existing.gpu, stamp,
                                                              existing.gemm_efficiency, std::move(compute));
  return WriteCalibration(f, a.out);
}

}  // namespace

int CalibrateCommand(int argc, char** argv) {
  Args a;
  po::options_description opts(
      "usage: zerosim calibrate --out FILE [options]\n"
      "       zerosim calibrate --derive-from FILE --hbm BW --source-hbm BW --out FILE [--gpu NAME]\n\n"
      "Measures this machine's CUDA GPU and writes a \"measured\" calibration file (docs/calibration.md):\n"
      "the quantization kernels over sizes from --min-size to --max-size, with the device-to-device copy as\n"
      "the ceiling; then its compute (the \"compute\" section, unless --no-compute): cuBLASLt GEMMs in bf16\n"
      "and fp16 at a standard grid (--full: every power of two from 256 to 16384) and at --gemm-shapes, a\n"
      "causal attention, the copy, and kernel launch overhead. With --derive-from, writes a \"derived\" "
      "file\n"
      "instead: the given calibration's bandwidths scaled by --hbm / --source-hbm, with no compute section.\n"
      "The gemm_efficiency block and the GPU name are kept from the --out file when it exists (or taken\n"
      "from --gemm-from).\n\noptions");
  // clang-format off
  opts.add_options()
      ("help,h", "print this help")
      ("out", po::value<std::string>(&a.out)->value_name("FILE"), "calibration file to write (required)")
      ("gpu", po::value<std::string>(&a.gpu)->value_name("NAME"),
       "GPU name to record (default: the --out file's)")
      ("gemm-from", po::value<std::string>(&a.gemm_from)->value_name("FILE"),
       "calibration whose gemm_efficiency block to keep (default: the --out file)")
      ("min-size", po::value<std::string>(&a.min_size)->value_name("BYTES"), "smallest tensor (default 4KiB)")
      ("max-size", po::value<std::string>(&a.max_size)->value_name("BYTES"), "largest tensor (default 1GiB)")
      ("repetitions", po::value<int>(&a.bench.repetitions)->value_name("N"),
       "timed calls per size or shape (default 51)")
      ("warmup", po::value<int>(&a.bench.warmup)->value_name("N"),
       "untimed calls per size or shape (default 5)")
      ("group-size", po::value<int64_t>(&a.bench.group_size)->value_name("N"),
       "elements per scale (default 2048)")
      ("fan-in", po::value<int>(&a.bench.fan_in)->value_name("K"), "inputs of the reduce kernels (default 8)")
      ("dtype", po::value<std::string>(&a.dtype)->value_name("fp16|bf16"),
       "the quantization kernels' 16-bit value type (default fp16)")
      ("full", po::bool_switch(&a.full), "GEMMs: the full grid (343 shapes) instead of the reduced one (64)")
      ("gemm-shapes", po::value<std::string>(&a.gemm_shapes)->value_name("MxNxK,..."),
       "GEMMs: a model's shapes too, Y[M,N] = X[M,K] W[N,K]^T (e.g. 8192x12288x4096)")
      ("attention-shapes", po::value<std::string>(&a.attention_shapes)->value_name("BHxSxD,..."),
       "attention: batch_heads x seq x head_dim (default 32x512x128 to 32x8192x128, 32x2048x64)")
      ("no-compute", po::bool_switch(&a.no_compute), "measure the quantization kernels only")
      ("derive-from", po::value<std::string>(&a.derive_from)->value_name("FILE"),
       "calibration to scale instead of measuring")
      ("hbm", po::value<std::string>(&a.target_bandwidth)->value_name("BW"),
       "with --derive-from: this GPU's memory bandwidth")
      ("source-hbm", po::value<std::string>(&a.source_bandwidth)->value_name("BW"),
       "with --derive-from: the source GPU's memory bandwidth");
  // clang-format on
  if (std::optional<int> stop = ParseCommandLine("calibrate", argc, argv, opts)) return *stop;
  StatusOr<int64_t> min_size = Bytes(a.min_size);
  StatusOr<int64_t> max_size = Bytes(a.max_size);
  if (a.out.empty() || !min_size.ok() || !max_size.ok() || (a.dtype != "fp16" && a.dtype != "bf16")) {
    fmt::print(stderr,
               "zerosim calibrate: needs --out FILE, sizes in bytes (e.g. 4KiB) and --dtype fp16 or bf16\n");
    return kExitUsage;
  }
  a.bench.min_bytes = *min_size;
  a.bench.max_bytes = *max_size;
  a.bench.type = a.dtype == "bf16" ? kernels::ValueType::kBf16 : kernels::ValueType::kFp16;
  const bool compute_options = a.full || !a.gemm_shapes.empty() || !a.attention_shapes.empty();
  if (!a.derive_from.empty() && (compute_options || a.no_compute)) {
    fmt::print(
        stderr,
        "zerosim calibrate: --derive-from measures nothing: --full, --gemm-shapes, --attention-shapes and "
        "--no-compute do not apply (a derived file has no compute section)\n");
    return kExitUsage;
  }
  if (a.no_compute && compute_options) {
    fmt::print(stderr, "zerosim calibrate: --no-compute with --full, --gemm-shapes or --attention-shapes\n");
    return kExitUsage;
  }
  a.compute.gemm_grid = a.full ? bench::GemmGrid::kFull : bench::GemmGrid::kReduced;
  a.compute.warmup = a.bench.warmup;
  a.compute.repetitions = a.bench.repetitions;
  if (!a.gemm_shapes.empty()) {
    StatusOr<std::vector<bench::GemmShape>> shapes = bench::ParseGemmShapes(a.gemm_shapes);
    if (!shapes.ok()) {
      fmt::print(stderr, "zerosim calibrate: {}\n", shapes.status().message());
      return kExitUsage;
    }
    a.compute.gemm_shapes = *shapes;
  }
  if (!a.attention_shapes.empty()) {
    StatusOr<std::vector<bench::AttentionShape>> shapes = bench::ParseAttentionShapes(a.attention_shapes);
    if (!shapes.ok()) {
      fmt::print(stderr, "zerosim calibrate: {}\n", shapes.status().message());
      return kExitUsage;
    }
    a.compute.attention_shapes = *shapes;
  }

  if (a.derive_from.empty()) {
    if (Status s = kernels::gpu::DeviceStatus(); !s.ok()) {
      fmt::print(
          stderr,
          "zerosim calibrate: cannot measure here: {}\n"
          "Run it on a machine with a CUDA GPU (kernels/bench/run_on_gpu.sh builds, tests and calibrates).\n",
          s.message());
      return kExitFailed;
    }
  }
  // The GPU name: --gpu, else the --out file's; gemm_efficiency: --gemm-from's, else the --out file's.
  StatusOr<bench::ExistingCalibration> out_file = bench::ReadExistingCalibration(io::DiskFileSource(), a.out);
  StatusOr<bench::ExistingCalibration> existing =
      a.gemm_from.empty() ? out_file : bench::ReadExistingCalibration(io::DiskFileSource(), a.gemm_from);
  if (!existing.ok()) {
    fmt::print(
        stderr,
        "zerosim calibrate: error: {}\nThe gemm_efficiency block is kept from an existing calibration: "
        "pass --gemm-from FILE when --out does not exist yet.\n",
        existing.status().message());
    return kExitUsage;
  }
  existing.value().gpu = !a.gpu.empty() ? a.gpu : out_file.ok() ? out_file->gpu : "";
  if (existing->gpu.empty() && !a.derive_from.empty()) {
    fmt::print(stderr, "zerosim calibrate: --derive-from into a new file needs --gpu NAME\n");
    return kExitUsage;
  }
  if (existing->gpu.empty()) existing.value().gpu = kernels::gpu::DeviceName();
  std::string command = "zerosim";
  for (int i = 0; i < argc; ++i) command += std::string(" ") + argv[i];
  const bench::Stamp stamp = bench::StampNow(command);
  return a.derive_from.empty() ? Measure(a, stamp, *existing) : Derive(a, stamp, *existing);
}

}  // namespace zerosim::cli
