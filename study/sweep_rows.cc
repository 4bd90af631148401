#include "study/sweep_rows.h"

#include <fmt/format.h>

#include "model/cost.h"
#include "model/io/report_fields.h"
#include "model/version.h"
#include "study/json_line.h"

namespace zerosim::study {
namespace {

// "measured" when the calibration file holds measurements of that part, "derived" otherwise
// (docs/calibration.md).
const char* KernelsKind(const model::Calibration& c) {
  for (const model::KernelCalibration& k : c.kernels) {
    if (!k.points.empty()) return "measured";
  }
  return "derived";
}
const char* ComputeKind(const model::Calibration& c) {
  return c.measured.gemm.empty() ? "derived" : "measured";
}

JsonLine InputLine(const model::InputFile& f) { return JsonLine().Add("path", f.path).Add("hash", f.hash); }

// The point's provenance (docs/sweeps.md): the version, every input file's hash and the calibration's kinds.
std::string ProvenanceLine(const io::SweepSpec& spec, const SweepPoint& p) {
  return JsonLine()
      .Add("zerosim_version", Version())
      .Add("sweep", spec.file.hash)
      .Add("scenario", spec.base.scenario_file.hash)
      .Add("topology", InputLine(p.topology_file))
      .Add("model", InputLine(p.model_file))
      .Add("calibration", InputLine(p.calibration_file))
      .Add("calibration_gpu", p.calibration.gpu)
      .Add("calibration_source", p.calibration.source)
      .Add("kernels_source", KernelsKind(p.calibration))
      .Add("compute_source", ComputeKind(p.calibration))
      .str();
}

}  // namespace

std::string PointRows(const io::SweepSpec& spec, const SweepPoint& p,
                      const std::vector<model::VariantReport>& reports, const std::string& sweep_hash) {
  std::string out;
  const model::ClusterSpec& c = p.cluster;
  JsonLine axes;
  for (const auto& [k, v] : p.axes) axes.Add(k, v);
  const std::string provenance = ProvenanceLine(spec, p);
  for (const model::VariantReport& r : reports) {
    JsonLine j;
    j.Add("sweep", spec.name);
    if (!sweep_hash.empty()) j.Add("sweep_hash", sweep_hash);
    j.Add("point", p.index).Add("axes", axes);
    // The variant's fields, named as in `run --format jsonl` (model/io/report_fields.h).
    std::string members;
    io::AppendRowMembers({&r, &c, spec.base.name}, &members);
    j.Members(members);
    if (r.iteration_time_s > 0 && spec.has_price) {
      const model::CostResult cost = model::EstimateCost(c, spec.price, r.tokens_per_s, spec.train_tokens);
      j.Add("cost", JsonLine()
                        .Add("capex_usd", cost.capex_usd)
                        .Add("usd_per_hour", cost.usd_per_hour)
                        .Add("usd_per_million_tokens", cost.usd_per_million_tokens)
                        .Add("train_tokens", spec.train_tokens)
                        .Add("time_to_train_s", cost.time_to_train_s)
                        .Add("cost_to_train_usd", cost.cost_to_train_usd));
    }
    j.Raw("provenance", provenance);
    out += j.str() + "\n";
  }
  return out;
}

}  // namespace zerosim::study
