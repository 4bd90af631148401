#include "study/bands.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "model/spec/gpu_power.h"
#include "model/spec/strategy.h"

namespace zerosim::study {
namespace {

bool HasBand(const PointResult& p) {
  return p.engine == "analytic" && !p.band_key.empty() && p.simulated > 0 &&
         (p.metric == io::Metric::kTflopsPerGpu || p.metric == io::Metric::kTokensPerSPerGpu);
}

std::vector<model::BandPoint> BandPoints(const std::vector<PointResult>& points, const std::string& leave_out) {
  std::vector<model::BandPoint> out;
  for (const PointResult& p : points) {
    if (HasBand(p) && p.group != leave_out) out.push_back({p.band_key, p.group, p.OutOfSampleRatio()});
  }
  return out;
}

}  // namespace

Status AttachBand(const model::BandTable& table, const model::Calibration& cal, const std::string& gpu_name,
                  model::VariantReport* v) {
  if (!model::Ran(*v)) return Status::Ok();
  const std::string key = model::BandKey(model::GpuFamily(gpu_name), cal.compute.software,
                                         model::FrameworkName(v->zero.framework),
                                         v->layout.tensor > 1, v->exposed_comm_s, v->iteration_time_s);
  v->band = model::BandFor(table, key, cal.compute.derived_from);
  if (!model::HeadlineInsideBand(v->band)) {
    return Status::Error(fmt::format("invariant violated: variant '{}' ({} engine): its headline (the model's value x "
                                     "{:.6g}) lies outside its band [{:.6g}, {:.6g}] of group '{}'",
                                     v->name, v->engine, v->band.center, v->band.low, v->band.high, v->band.group));
  }
  return Status::Ok();
}

Status AttachBands(const model::BandTable& table, const model::Calibration& cal, model::Report* r) {
  for (model::VariantReport& v : r->variants) {
    if (Status st = AttachBand(table, cal, r->cluster.gpu.name, &v); !st.ok()) return st;
  }
  return Status::Ok();
}

double GenerationSpread(const std::vector<model::Calibration>& calibrations, std::string* how) {
  double spread = 0;  // none measured yet
  std::vector<std::string> seen;
  for (const model::Calibration& c : calibrations) {
    if (std::find(seen.begin(), seen.end(), c.path) != seen.end()) continue;
    seen.push_back(c.path);
    // Each set's GEMM efficiency at the part's default power limit (model/spec/gpu_power.h): a set fitted on
    // power-capped parts (torchtitan-2024-12 on 500 W H100s) differs from the others by its cap as well as by its
    // software, and the cap is a mechanism the model applies, not a spread it is unsure of.
    model::GpuSpec gpu;
    gpu.name = c.gpu;
    auto uncapped = [&](const model::ComputeEfficiency& e) {
      return e.gemm * model::TensorClockFactor(gpu, e.power_limit_W);
    };
    const model::ComputeEfficiency* lo = nullptr;
    const model::ComputeEfficiency* hi = nullptr;
    for (const model::ComputeEfficiency& e : c.compute_sets) {
      if (e.kind != "empirical" || e.gemm <= 0) continue;
      if (lo == nullptr || uncapped(e) < uncapped(*lo)) lo = &e;
      if (hi == nullptr || uncapped(e) > uncapped(*hi)) hi = &e;
    }
    if (lo == nullptr || lo == hi || uncapped(*hi) / uncapped(*lo) <= spread) continue;
    spread = uncapped(*hi) / uncapped(*lo);
    *how = fmt::format("{}: GEMM efficiency of {} over {} ({:.3f} / {:.3f}{})", c.path, hi->software, lo->software,
                       uncapped(*hi), uncapped(*lo),
                       hi->power_limit_W > 0 || lo->power_limit_W > 0
                           ? ", each at the part's default power limit (model/spec/gpu_power.h)"
                           : "");
  }
  if (spread > 0) return spread;
  *how = "no calibration file holds two empirical software generations: the stated 1.1";
  return 1.1;
}

model::BandTable BuildBandTable(const std::vector<PointResult>& points, double derived_widening) {
  model::BandTable t;
  t.groups = model::BuildBandGroups(BandPoints(points, ""));
  t.derived_widening = derived_widening;
  return t;
}

std::vector<GroupCoverage> BandCoverage(const std::vector<PointResult>& points, double derived_widening) {
  std::vector<std::string> groups;
  for (const PointResult& p : points) {
    if (HasBand(p) && std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
  }
  const model::BandTable full = BuildBandTable(points, derived_widening);
  std::vector<GroupCoverage> out;
  for (const std::string& g : groups) {
    model::BandTable without;
    without.groups = model::BuildBandGroups(BandPoints(points, g));
    without.derived_widening = derived_widening;
    std::map<std::string, GroupCoverage> per_key;
    std::map<std::string, std::map<std::string, int>> from_count;
    for (const PointResult& p : points) {
      if (!HasBand(p) || p.group != g) continue;
      const model::Band b = model::BandFor(without, p.band_key, p.derived_from);
      const double r = p.OutOfSampleRatio();
      GroupCoverage& c = per_key[p.band_key];
      c.group = g;
      c.band_key = p.band_key;
      ++c.n;
      c.inside += (r >= b.low && r <= b.high) ? 1 : 0;
      ++from_count[p.band_key][b.group.empty() ? "none" : b.group];
    }
    for (auto& [key, c] : per_key) {
      int most = 0;
      for (const auto& [from, count] : from_count[key]) {
        if (count > most) {
          most = count;
          c.from = from;
        }
      }
      c.shipped = model::BandFor(full, key, "");
      out.push_back(c);
    }
  }
  return out;
}

std::string FormatBandCoverage(const std::vector<PointResult>& points, double derived_widening) {
  std::string out = fmt::format(
      "\nbands (published / simulated out of sample: a calibration point's leave-one-model-size-out prediction; "
      "5th-95th percentile of the key's points, or of its parent's where the key has fewer than 10)\n"
      "coverage: each point against the band built without its whole group (leave one group out), target 80%\n"
      "{:<48} {:<24} {:>4} {:>15} {:>9}  {}\n",
      "group", "band key", "n", "band (shipped)", "coverage", "band left out from");
  for (const GroupCoverage& c : BandCoverage(points, derived_widening)) {
    out += fmt::format("{:<48} {:<24} {:>4} {:>7.3f}-{:<7.3f} {:>8.0f}%  {}\n", c.group, c.band_key, c.n, c.shipped.low,
                       c.shipped.high, 100.0 * c.inside / c.n, c.from);
  }
  return out;
}

}  // namespace zerosim::study
