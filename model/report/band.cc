#include "model/report/band.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace zerosim::model {

std::string GpuFamily(const std::string& gpu_name) {
  std::string family;
  for (char c : gpu_name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) break;
    family += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return family;
}

std::string BandKey(const std::string& gpu_family, const std::string& framework, bool tensor_parallel,
                    double exposed_comm_s, double iteration_time_s) {
  const bool compute = iteration_time_s > 0 && exposed_comm_s < kComputeBoundExposedShare * iteration_time_s;
  return gpu_family + " " + framework + (tensor_parallel ? " tp" : "") + (compute ? " compute" : " comm");
}

namespace {

const BandGroup* Find(const BandTable& t, const std::string& key) {
  for (const BandGroup& g : t.groups) {
    if (g.key == key) return &g;
  }
  return nullptr;
}

}  // namespace

Band BandFor(const BandTable& table, const std::string& key, const std::string& derived_from) {
  Band b;
  b.key = key;
  if (const BandGroup* g = Find(table, key)) {
    b.group = g->key;
    b.n = g->n;
    b.low = g->low;
    b.high = g->high;
    b.validated = true;
    return b;
  }
  if (!derived_from.empty()) {
    const std::string rest = key.substr(key.find(' '));
    if (const BandGroup* g = Find(table, derived_from + rest)) {
      b.group = g->key;
      b.n = g->n;
      b.low = g->low / table.derived_widening;
      b.high = g->high * table.derived_widening;
      b.note = "compute derived from " + derived_from + ": that group's band widened";
      return b;
    }
  }
  // Outside every validated group: the widest band of the table.
  b.note = "outside every validated group: the widest band";
  if (table.groups.empty()) {
    b.low = 0.5;
    b.high = 2.0;
    b.note = "no validated group: a factor of two either way";
    return b;
  }
  b.low = table.groups.front().low;
  b.high = table.groups.front().high;
  for (const BandGroup& g : table.groups) {
    b.low = std::min(b.low, g.low);
    b.high = std::max(b.high, g.high);
  }
  return b;
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

}  // namespace zerosim::model
