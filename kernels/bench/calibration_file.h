// Calibration files from benchmarks (format: docs/calibration.md): "measured" ones from a benchmark run and
// "derived" ones scaled from another calibration by a memory-bandwidth ratio. The gemm_efficiency block
// belongs to whoever fits GEMM efficiency: it is carried over verbatim from an existing file. Only a
// measured file has a "compute" section (compute_section.h), and only when the compute benchmark ran:
// nothing is carried over into it, and a derived file never has one.
#pragma once

#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/bench/benchmark.h"
#include "kernels/bench/compute_bench.h"
#include "kernels/bench/compute_section.h"
#include "model/io/file_source.h"
#include "model/spec/calibration.h"
#include "model/status.h"

namespace zerosim::kernels::bench {

struct CalibrationFile {
  std::string gpu;
  std::string source;  // "measured" or "derived"
  std::string provenance;
  double copy_Bps = 0;
  nlohmann::ordered_json gemm_efficiency;  // written as given
  // Per kernel: `points` when there are any (measured; the loader fits them), else fit.alpha_s/beta_Bps.
  std::array<model::KernelCalibration, model::kNumKernels> kernels;
  std::optional<ComputeSection> compute;  // written after "kernels" when present
};

// Who wrote a file and when, for provenance.
struct Stamp {
  std::string command;  // the command line, e.g. "zerosim calibrate --out kernels/calibration/h200.json"
  std::string date;     // UTC, ISO 8601
};

// A stamp for `command`, dated now.
Stamp StampNow(std::string command);

// Prints each kernel's fit of t = alpha + bytes / beta to its points and beta's fraction of the copy.
void PrintFits(const BenchResult& result, std::FILE* out);

// The file's text, written by the model's calibration writer beside its reader
// (model/io/calibration_writer.h), with the compute section rendered here (compute_section.h): two-space
// indentation, one [bytes, seconds] point per line (one object per line in the compute section), ending
// in a newline.
std::string CalibrationFileText(const CalibrationFile& file);

// The "gpu" name and the gemm_efficiency object of an existing calibration file.
struct ExistingCalibration {
  std::string gpu;
  nlohmann::ordered_json gemm_efficiency;
};
StatusOr<ExistingCalibration> ReadExistingCalibration(const io::FileSource& fs, const std::string& path);

// The compute section of a run: `compute`'s GEMM, attention and launch times, and the kernel benchmark's
// device-to-device copy points (`kernels`; bytes copied, half the traffic its points count). The
// provenance names the device, versions, stamp and method.
ComputeSection MeasuredComputeSection(const BenchResult& kernels, const ComputeResult& compute,
                                      const ComputeOptions& options, const Stamp& stamp);

// A measured calibration from a benchmark run on `gpu` (the name the topology files use), with a compute
// section when `compute` is given.
CalibrationFile MeasuredCalibration(const BenchResult& result, const BenchOptions& options,
                                    const std::string& gpu, const Stamp& stamp,
                                    nlohmann::ordered_json gemm_efficiency,
                                    std::optional<ComputeSection> compute = std::nullopt);

// `from` scaled to another GPU: copy bandwidth and every kernel's beta times `ratio`, alpha unchanged
// (launch cost does not scale with memory bandwidth), rounded to 0.1 GB/s. `ratio_text` says
// where the ratio comes from, e.g. "900 GB/s / 4.8 TB/s (datasheet HBM)".
CalibrationFile DerivedCalibration(const model::Calibration& from, double ratio,
                                   const std::string& ratio_text, const std::string& gpu, const Stamp& stamp,
                                   nlohmann::ordered_json gemm_efficiency);

}  // namespace zerosim::kernels::bench
