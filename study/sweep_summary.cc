#include "study/sweep_summary.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace zerosim::study {
namespace {

struct Best {
  std::string cluster;
  std::string variant;
  double tokens_per_s = -1;
  double tflops_per_gpu = 0;
  double usd_per_million_tokens = -1;  // -1: no price
  int rows = 0;
  int infeasible = 0;
};

// The point's cluster: its axis values, ZeRO axes left out (they choose the variant, not the cluster). The
// file axes (`topology`, `model`: docs/sweeps.md) show their file's stem, which names the file without the
// directories that made every label alike.
std::string ClusterOf(const nlohmann::ordered_json& axes) {
  std::string s;
  for (const auto& [key, value] : axes.items()) {
    if (key.rfind("zero_", 0) == 0) continue;
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (key == "topology" || key == "model") text = std::filesystem::path(text).stem().string();
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", key, text);
  }
  return s.empty() ? "(base)" : s;
}

// Column widths fit the longest shown label, within [min, max] characters.
size_t Width(const std::vector<std::string>& texts, size_t min, size_t max) {
  size_t w = min;
  for (const std::string& t : texts) w = std::max(w, t.size());
  return std::min(w, max);
}

}  // namespace

StatusOr<std::string> SummarizeSweepRows(const std::string& jsonl, size_t max_clusters) {
  std::map<std::string, Best> by_cluster;
  std::map<std::string, int> reasons;
  size_t rows = 0, infeasible = 0, pos = 0;
  while (pos < jsonl.size()) {
    size_t nl = jsonl.find('\n', pos);
    if (nl == std::string::npos) nl = jsonl.size();
    const std::string line = jsonl.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    try {
      const nlohmann::ordered_json row = nlohmann::ordered_json::parse(line);  // axes in the sweep's order
      const std::string cluster = ClusterOf(row.at("axes"));
      Best& b = by_cluster[cluster];
      b.cluster = cluster;
      ++b.rows;
      ++rows;
      if (!row.at("feasible").get<bool>()) {
        ++b.infeasible;
        ++infeasible;
        ++reasons[row.at("infeasible_reason").get<std::string>()];
        continue;
      }
      const double tokens = row.at("tokens_per_s").get<double>();
      if (tokens > b.tokens_per_s) {
        b.tokens_per_s = tokens;
        b.variant = row.at("variant").get<std::string>();
        b.tflops_per_gpu = row.at("tflops_per_gpu").get<double>();
        b.usd_per_million_tokens =
            row.contains("cost") ? row.at("cost").at("usd_per_million_tokens").get<double>() : -1.0;
      }
    } catch (const std::exception& e) {
      return Status::Error(fmt::format("not a sweep row at byte {}: {}", pos - line.size() - 1, e.what()));
    }
  }
  std::vector<Best> ranked;
  for (const auto& [cluster, b] : by_cluster) {
    if (b.tokens_per_s >= 0) ranked.push_back(b);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Best& a, const Best& b) { return a.tokens_per_s > b.tokens_per_s; });
  std::string out =
      fmt::format("summary: {} rows, {} clusters, {} infeasible rows\n", rows, by_cluster.size(), infeasible);
  if (!ranked.empty()) {
    const std::string cluster_title = "cluster (best variant; fastest first)";
    std::vector<std::string> clusters, variants;
    for (size_t i = 0; i < ranked.size() && i < max_clusters; ++i) {
      clusters.push_back(ranked[i].cluster);
      variants.push_back(ranked[i].variant);
    }
    const size_t cw = Width(clusters, cluster_title.size(), 96), vw = Width(variants, 7, 32);
    out += fmt::format("  {:<{}} {:<{}} {:>12} {:>8} {:>10}\n", cluster_title, cw, "variant", vw, "tokens/s",
                       "TFLOPs", "USD/Mtok");
    for (size_t i = 0; i < clusters.size(); ++i) {
      const Best& b = ranked[i];
      out += fmt::format("  {:<{}} {:<{}} {:>12.0f} {:>8.1f} {:>10}\n", b.cluster.substr(0, cw), cw,
                         b.variant.substr(0, vw), vw, b.tokens_per_s, b.tflops_per_gpu,
                         b.usd_per_million_tokens >= 0 ? fmt::format("{:.3f}", b.usd_per_million_tokens) : "-");
    }
    if (ranked.size() > max_clusters)
      out += fmt::format("  ... and {} more clusters\n", ranked.size() - max_clusters);
  }
  for (const auto& [reason, count] : reasons) out += fmt::format("  infeasible x{}: {}\n", count, reason);
  return out;
}

}  // namespace zerosim::study
