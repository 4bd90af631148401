#include "study/bands.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "model/spec/strategy.h"

namespace zerosim::study {
namespace {

bool HasBand(const PointResult& p) {
  return p.engine == "analytic" && !p.band_key.empty() && p.simulated > 0 &&
         (p.metric == io::Metric::kTflopsPerGpu || p.metric == io::Metric::kTokensPerSPerGpu);
}

}  // namespace

void AttachBand(const model::BandTable& table, const model::Calibration& cal, const std::string& gpu_name,
                model::VariantReport* v) {
  if (!model::Ran(*v)) return;
  const std::string key = model::BandKey(model::GpuFamily(gpu_name), model::FrameworkName(v->zero.framework),
                                         v->layout.tensor > 1, v->exposed_comm_s, v->iteration_time_s);
  v->band = model::BandFor(table, key, cal.compute.derived_from);
}

void AttachBands(const model::BandTable& table, const model::Calibration& cal, model::Report* r) {
  for (model::VariantReport& v : r->variants) AttachBand(table, cal, r->cluster.gpu.name, &v);
}

model::BandTable BuildBandTable(const std::vector<PointResult>& points) {
  std::map<std::string, std::vector<const PointResult*>> by_key;
  for (const PointResult& p : points) {
    if (HasBand(p)) by_key[p.band_key].push_back(&p);
  }
  model::BandTable t;
  for (const auto& [key, list] : by_key) {
    model::BandGroup g;
    g.key = key;
    g.n = static_cast<int>(list.size());
    std::vector<double> ratios;
    std::vector<std::string> sources;
    for (const PointResult* p : list) {
      ratios.push_back(p->published / p->simulated);
      if (std::find(sources.begin(), sources.end(), p->group) == sources.end()) sources.push_back(p->group);
    }
    model::RatioPercentiles(ratios, &g.low, &g.high);
    for (const std::string& s : sources) g.sources += (g.sources.empty() ? "" : "; ") + s;
    t.groups.push_back(g);
  }
  return t;
}

std::string FormatBandCoverage(const std::vector<PointResult>& points) {
  std::map<std::string, std::vector<double>> ratios_by_key;
  for (const PointResult& p : points) {
    if (HasBand(p)) ratios_by_key[p.band_key].push_back(p.published / p.simulated);
  }
  std::vector<std::string> groups;
  for (const PointResult& p : points) {
    if (HasBand(p) && std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
  }
  std::string out = fmt::format("\nbands (published / simulated, 5th-95th percentile of the band key's points; coverage: "
                                "each point against the band built without it; target: at least 80%)\n"
                                "{:<48} {:<22} {:>4} {:>16} {:>9}\n",
                                "group", "band key", "n", "band", "coverage");
  for (const std::string& g : groups) {
    std::map<std::string, std::pair<int, int>> per_key;  // key -> (inside, n)
    for (const PointResult& p : points) {
      if (!HasBand(p) || p.group != g) continue;
      std::vector<double> others = ratios_by_key[p.band_key];
      const double mine = p.published / p.simulated;
      others.erase(std::find(others.begin(), others.end(), mine));
      double lo = 1, hi = 1;
      model::RatioPercentiles(others, &lo, &hi);
      auto& [inside, n] = per_key[p.band_key];
      inside += (mine >= lo && mine <= hi) ? 1 : 0;
      ++n;
    }
    for (const auto& [key, c] : per_key) {
      double lo = 1, hi = 1;
      model::RatioPercentiles(ratios_by_key[key], &lo, &hi);
      out += fmt::format("{:<48} {:<22} {:>4} {:>7.3f}-{:<7.3f} {:>8.0f}%\n", g, key, c.second, lo, hi,
                         100.0 * c.first / c.second);
    }
  }
  return out;
}

}  // namespace zerosim::study
