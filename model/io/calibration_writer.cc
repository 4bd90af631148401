#include "model/io/calibration_writer.h"

#include <fmt/format.h>

namespace zerosim::io {
namespace {

using nlohmann::ordered_json;

std::string Num(double v) { return ordered_json(v).dump(); }
std::string Str(const std::string& s) { return ordered_json(s).dump(); }

// `text` with every line after the first indented by `indent`.
std::string Indent(const std::string& text, const std::string& indent) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

}  // namespace

std::string CalibrationFileText(const CalibrationFileData& f) {
  std::string out = "{\n";
  out += "  \"format\": \"zerosim-calibration-1\",\n";
  out += "  \"gpu\": " + Str(f.gpu) + ",\n";
  out += "  \"source\": " + Str(f.source) + ",\n";
  out += "  \"provenance\": " + Str(f.provenance) + ",\n";
  out += "  \"copy_bandwidth_Bps\": " + Num(f.copy_Bps) + ",\n";
  out += "  \"gemm_efficiency\": " + Indent(f.gemm_efficiency.dump(2), "  ") + ",\n";
  out += "  \"kernels\": {\n";
  for (int k = 0; k < model::kNumKernels; ++k) {
    const model::KernelCalibration& kc = f.kernels[static_cast<size_t>(k)];
    out += fmt::format("    \"{}\": {{\n", model::KernelName(static_cast<model::Kernel>(k)));
    if (!kc.points.empty()) {
      out += "      \"points\": [\n";
      for (size_t i = 0; i < kc.points.size(); ++i) {
        out += fmt::format("        [{}, {}]{}\n", Num(kc.points[i].bytes), Num(kc.points[i].seconds),
                           i + 1 < kc.points.size() ? "," : "");
      }
      out += "      ]\n";
    } else {
      out += "      \"alpha_s\": " + Num(kc.fit.alpha_s) + ",\n";
      out += "      \"beta_Bps\": " + Num(kc.fit.beta_Bps) + "\n";
    }
    out += k + 1 < model::kNumKernels ? "    },\n" : "    }\n";
  }
  out += f.compute_json ? "  },\n  \"compute\": " + *f.compute_json + "\n}\n" : "  }\n}\n";
  return out;
}

}  // namespace zerosim::io
