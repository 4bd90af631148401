// `zerosim compare`: two reports side by side. Per variant (matched by name and engine) every field of the
// field list (model/io/report_fields.h) for A and B with the difference, and the difference's causes: which
// inputs differ (cluster, model, calibration, ZeRO keys) and how the iteration time's parts moved (compute by
// kind, the optimizer, side-stream GPU work, exposed communication by cause) with the bytes per tier and
// phase.
#pragma once

#include <string>
#include <vector>

#include "model/io/loaders.h"
#include "model/report/report.h"
#include "model/status.h"
#include "study/output_format.h"

namespace zerosim::study {

// One input key whose value differs, as the JSON report spells key and value ("cluster.nic.bandwidth_Bps").
struct InputDifference {
  std::string key;
  std::string a;  // JSON text; "(none)" when the key exists on one side only
  std::string b;
};

// One part of the iteration time and how much it moved (B - A).
struct TimeCause {
  std::string part;  // "compute.gemm", "exposed.waiting_for_data", ...
  double a_s = 0;
  double b_s = 0;
};

struct VariantComparison {
  std::string name;
  std::string engine;
  int a = -1;                           // index into Comparison::a.variants; -1: the variant is only in B
  int b = -1;                           // index into Comparison::b.variants; -1: only in A
  std::vector<InputDifference> inputs;  // the variant's own differences (ZeRO keys, model, sequence length)
  // The iteration time as the sum of its parts (docs/report.md: iteration = compute + optimizer + GPU side
  // work + exposed communication, exposed = waiting for data + NCCL's SMs + one hardware queue), largest
  // |B - A| first; empty unless both ran.
  std::vector<TimeCause> causes;
};

struct Comparison {
  std::string a_label;  // what the user named (a path)
  std::string b_label;
  model::Report a;
  model::Report b;
  // The scenarios' shared differences: cluster, model files, calibration (file, kind, software generation,
  // every efficiency and kernel choice, the quantization kernels' fits).
  std::vector<InputDifference> inputs;
  std::vector<VariantComparison> variants;  // A's order, then those only in B
};

// One side of a comparison: `path` as a scenario, or, when it is a topology file, the scenario `base` (""
// : the embedded default) on that cluster (the sweep axis `topology`, with its checks); then the what-ifs
// `settings` (ApplySettings, sweep_grid.h). Errors: a file that is neither, a bad setting.
StatusOr<io::Scenario> LoadComparedScenario(const std::string& path, const std::string& base,
                                            const std::vector<std::string>& settings);

// Compares `a` with `b`, evaluated with the calibrations `a_cal` and `b_cal` (each scenario's, with its software
// generation selected): every calibration value and kernel choice that differs is an input difference
// (`calibration.compute.attention_kernel`, `calibration.compute.kind`, `calibration.kernels.quantize_int8.beta_Bps`,
// ...; docs/report.md).
Comparison CompareReports(std::string a_label, model::Report a, const model::Calibration& a_cal,
                          std::string b_label, model::Report b, const model::Calibration& b_cal);

// The comparison in `format`: a table for people; the JSON document (format "zerosim-compare-1",
// docs/report.md); or one row per variant and field (variant, engine, field, unit, a, b, difference) as JSON
// lines or CSV.
std::string RenderComparison(const Comparison& c, OutputFormat format);

}  // namespace zerosim::study
