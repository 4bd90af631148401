#include "study/sweep_rows.h"

#include <fmt/format.h>

#include "model/io/report_fields.h"
#include "model/spec/cost.h"
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
  return c.measured.gemm.empty() ? c.compute.kind.c_str() : "measured";
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
    if (model::Ran(r) && spec.has_price) {
      // From the headline, the calibrated expectation (model/report/band.h), as plan's.
      const model::CostResult cost =
          model::EstimateCost(c, io::PriceOf(spec, c), r.tokens_per_s * r.band.center, spec.train_tokens);
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

namespace {

// The cost columns, in the JSON row's order.
const char* const kCostColumns[] = {"capex_usd",    "usd_per_hour",    "usd_per_million_tokens",
                                    "train_tokens", "time_to_train_s", "cost_to_train_usd"};

// The provenance's columns and values, in the JSON row's order.
const char* const kProvenanceColumns[] = {
    "zerosim_version",    "sweep",          "scenario",         "topology.path",    "topology.hash",
    "model.path",         "model.hash",     "calibration.path", "calibration.hash", "calibration_gpu",
    "calibration_source", "kernels_source", "compute_source"};
std::vector<std::string> ProvenanceValues(const io::SweepSpec& spec, const SweepPoint& p) {
  return {Version(),
          spec.file.hash,
          spec.base.scenario_file.hash,
          p.topology_file.path,
          p.topology_file.hash,
          p.model_file.path,
          p.model_file.hash,
          p.calibration_file.path,
          p.calibration_file.hash,
          p.calibration.gpu,
          p.calibration.source,
          KernelsKind(p.calibration),
          ComputeKind(p.calibration)};
}

// One CSV record being built: cells separated by commas (RFC 4180).
class Record {
 public:
  void Add(const io::FieldValue& v) {
    if (cells_++ > 0) text_ += ',';
    text_ += io::FieldCsv(v);
  }
  std::string Line() const { return text_ + "\r\n"; }

 private:
  std::string text_;
  size_t cells_ = 0;
};

}  // namespace

std::string SweepCsvHeader(const io::SweepSpec& spec) {
  Record header;
  for (const char* name : {"sweep", "sweep_hash", "point"}) header.Add(std::string(name));
  for (const io::Axis& a : spec.axes) header.Add("axes." + a.key);
  for (const io::ReportField& f : io::RowFields()) header.Add(std::string(f.name));
  if (spec.has_price) {
    for (const char* name : kCostColumns) header.Add(std::string("cost.") + name);
  }
  for (const char* name : kProvenanceColumns) header.Add(std::string("provenance.") + name);
  return header.Line();
}

std::string PointRowsCsv(const io::SweepSpec& spec, const SweepPoint& p,
                         const std::vector<model::VariantReport>& reports, const std::string& sweep_hash) {
  std::string out;
  const std::vector<std::string> provenance = ProvenanceValues(spec, p);
  for (const model::VariantReport& r : reports) {
    Record line;
    line.Add(spec.name);
    line.Add(sweep_hash);
    line.Add(static_cast<long long>(p.index));
    for (const auto& [key, value] : p.axes) line.Add(value);
    const io::FieldRow row{&r, &p.cluster, spec.base.name};
    for (const io::ReportField& f : io::RowFields()) line.Add(io::FieldOf(f, row));
    if (spec.has_price) {
      const bool ran = model::Ran(r);
      model::CostResult cost;
      if (ran) cost = model::EstimateCost(p.cluster, io::PriceOf(spec, p.cluster), r.tokens_per_s * r.band.center, spec.train_tokens);
      const double values[] = {cost.capex_usd,    cost.usd_per_hour,    cost.usd_per_million_tokens,
                               spec.train_tokens, cost.time_to_train_s, cost.cost_to_train_usd};
      for (double v : values) line.Add(ran ? io::FieldValue(v) : io::FieldValue());
    }
    for (const std::string& value : provenance) line.Add(value);
    out += line.Line();
  }
  return out;
}

}  // namespace zerosim::study
