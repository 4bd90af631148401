// Writing calibration files (format: docs/calibration.md), beside their reader (calibration_loader.cc,
// ParseCalibration in loaders.h): what one writes the other reads back with the same numbers
// (tests/io/calibration_writer_test.cc). `zerosim calibrate` (kernels/bench/calibration_file.h) fills the
// plain data below from its benchmarks and hands it here; the compute section's format belongs to the
// benchmark side (kernels/bench/compute_section.h), which renders it, so this library never depends on the
// kernels.
#pragma once

#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/spec/calibration.h"

namespace zerosim::io {

// A calibration file's contents, as written.
struct CalibrationFileData {
  std::string gpu;
  std::string source;  // "measured" or "derived"
  std::string provenance;
  double copy_Bps = 0;
  nlohmann::ordered_json gemm_efficiency;  // written as given (carried over from an existing file)
  // Per kernel: `points` when there are any (measured; the loader fits them), else fit.alpha_s/beta_Bps.
  std::array<model::KernelCalibration, model::kNumKernels> kernels;
  // The "compute" section as JSON text ("{...}", lines after the first indented by two spaces to sit
  // under its key), written after "kernels" when present.
  std::optional<std::string> compute_json;
};

// The file's text: "format": "zerosim-calibration-1", two-space indentation, one [bytes, seconds] point
// per line, numbers in their shortest round-trip form, ending in a newline.
std::string CalibrationFileText(const CalibrationFileData& file);

}  // namespace zerosim::io
