#include "model/report/band.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace zerosim::model {

std::string GpuFamily(const std::string& gpu_name) {
  std::string family;
  for (char c : gpu_name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) break;
    family += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return family;
}

std::string BandKey(const std::string& gpu_family, const std::string& software, const std::string& framework,
                    bool tensor_parallel, double exposed_comm_s, double iteration_time_s) {
  const bool compute = iteration_time_s > 0 && exposed_comm_s < kComputeBoundExposedShare * iteration_time_s;
  const std::string generation = software.empty() ? kUnstatedSoftware : software;
  return gpu_family + " " + generation + " " + framework + (tensor_parallel ? " tp" : "") +
         (compute ? " compute" : " comm");
}

std::string ParentBandKey(const std::string& key) {
  const size_t space = key.rfind(' ');
  return space == std::string::npos ? std::string() : key.substr(0, space);
}

namespace {

const BandGroup* Find(const BandTable& t, const std::string& key) {
  for (const BandGroup& g : t.groups) {
    if (g.key == key) return &g;
  }
  return nullptr;
}

// The first of `key` and its parents with at least min_points points; the root ("") whatever its size when
// nothing above it has enough; null for a table without a root.
const BandGroup* Walk(const BandTable& t, std::string key) {
  while (true) {
    const BandGroup* g = Find(t, key);
    if (g != nullptr && (g->n >= t.min_points || key.empty())) return g;
    if (key.empty()) return nullptr;
    key = ParentBandKey(key);
  }
}

std::string Shown(const std::string& key) { return key.empty() ? "all" : key; }

std::string FirstWord(const std::string& key) { return key.substr(0, key.find(' ')); }

// "H100 pytorch-2.1 fsdp compute" -> "H100 pytorch-2.1": the GPU family and its software generation.
std::string FirstTwoWords(const std::string& key) {
  const size_t first = key.find(' ');
  return first == std::string::npos ? key : key.substr(0, key.find(' ', first + 1));
}

}  // namespace

Band BandFor(const BandTable& table, const std::string& key, const std::string& derived_from) {
  Band b;
  b.key = key;
  const BandGroup* own = Find(table, key);
  const bool own_enough = own != nullptr && own->n >= table.min_points;
  const bool compute_bound = key.size() >= 8 && key.compare(key.size() - 8, 8, " compute") == 0;
  const bool family_known = Find(table, FirstWord(key)) != nullptr;
  // A software generation no validation point of this family ran on is off the calibrated ground too.
  const bool generation_known = Find(table, FirstTwoWords(key)) != nullptr;
  const BandGroup* g = nullptr;
  double widen = 1;
  if (own_enough) {
    g = own;
    b.validated = true;
  } else if (!derived_from.empty() && compute_bound && Find(table, derived_from) != nullptr) {
    // Compute derived from another family's fit: that family's compute-bound residuals transfer (its
    // communication-bound ones describe its own networks, not this GPU's compute), widened by the generations'
    // spread.
    g = Walk(table, derived_from + key.substr(key.find(' ')));
    widen = table.derived_widening;
    b.note = "compute derived from " + derived_from + ": its band widened by the spread between software generations";
  } else {
    // The key's parents: its family, then every point; widened off the calibrated ground (derived compute, or a
    // family no point validates).
    g = Walk(table, key);
    if (!derived_from.empty() || !family_known || !generation_known) widen = table.derived_widening;
    if (g != nullptr) {
      b.note = own == nullptr ? "no validation point of this key: the band of " + Shown(g->key)
                              : "this key's " + std::to_string(own->n) + " points are too few: the band of " +
                                    Shown(g->key);
      if (widen > 1) b.note += ", widened by the spread between software generations (off the calibrated ground)";
    }
  }
  if (g == nullptr) {
    b.low = 0.5;
    b.high = 2.0;
    b.note = "no validated group: a factor of two either way";
    return b;
  }
  b.group = Shown(g->key);
  b.n = g->n;
  b.low = g->low / widen;
  b.high = g->high * widen;
  // Biased where every central point lies on one side of the model: centre the headline on the median.
  if (g->low > 1 || g->high < 1) b.center = std::clamp(g->median, b.low, b.high);
  return b;
}

std::vector<BandGroup> BuildBandGroups(const std::vector<BandPoint>& points) {
  std::map<std::string, std::vector<const BandPoint*>> by_key;
  for (const BandPoint& p : points) {
    std::string k = p.key;
    while (true) {
      by_key[k].push_back(&p);
      if (k.empty()) break;
      k = ParentBandKey(k);
    }
  }
  std::vector<BandGroup> out;
  for (const auto& [key, list] : by_key) {
    BandGroup g;
    g.key = key;
    g.n = static_cast<int>(list.size());
    std::vector<double> ratios;
    std::vector<std::string> sources;
    for (const BandPoint* p : list) {
      ratios.push_back(p->ratio);
      if (std::find(sources.begin(), sources.end(), p->source) == sources.end()) sources.push_back(p->source);
    }
    RatioPercentiles(ratios, &g.low, &g.high);
    g.median = RatioMedian(ratios);
    for (const std::string& s : sources) g.sources += (g.sources.empty() ? "" : "; ") + s;
    out.push_back(g);
  }
  return out;
}

void RatioPercentiles(std::vector<double> ratios, double* low, double* high) {
  if (ratios.empty()) {
    *low = *high = 1;
    return;
  }
  std::sort(ratios.begin(), ratios.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(ratios.size() - 1);
    const size_t i = static_cast<size_t>(std::floor(pos));
    const size_t j = std::min(i + 1, ratios.size() - 1);
    return ratios[i] + (pos - static_cast<double>(i)) * (ratios[j] - ratios[i]);
  };
  *low = at(0.05);
  *high = at(0.95);
}

double RatioMedian(std::vector<double> ratios) {
  if (ratios.empty()) return 1;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  return n % 2 == 1 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
}

bool HeadlineInsideBand(const Band& band) {
  constexpr double kSlack = 1e-9;
  return std::isfinite(band.center) && band.center >= band.low * (1 - kSlack) &&
         band.center <= band.high * (1 + kSlack);
}

}  // namespace zerosim::model
