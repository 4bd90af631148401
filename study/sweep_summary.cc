#include "study/sweep_summary.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "study/csv_record.h"

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
std::string ClusterOf(const std::vector<std::pair<std::string, std::string>>& axes) {
  std::string s;
  for (const auto& [key, value] : axes) {
    if (key.rfind("zero_", 0) == 0) continue;
    std::string text = value;
    if (key == "topology" || key == "model") text = std::filesystem::path(text).stem().string();
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", key, text);
  }
  return s.empty() ? "(base)" : s;
}

// `text` as a whole decimal number.
bool Number(const std::string& text, double* out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

// What the summary reads of one row, whichever format it came in.
struct SummaryRow {
  std::vector<std::pair<std::string, std::string>> axes;  // in the sweep's order, values as text
  std::string variant;
  bool feasible = false;
  std::string infeasible_reason;
  double tokens_per_s = 0;
  double tflops_per_gpu = 0;
  double usd_per_million_tokens = -1;  // -1: no price
};

// Rows tallied per cluster: the best feasible variant and the infeasible rows by reason.
class Tally {
 public:
  void Add(const SummaryRow& row) {
    const std::string cluster = ClusterOf(row.axes);
    Best& b = by_cluster_[cluster];
    b.cluster = cluster;
    ++b.rows;
    ++rows_;
    if (!row.feasible) {
      ++b.infeasible;
      ++infeasible_;
      ++reasons_[row.infeasible_reason];
      return;
    }
    if (row.tokens_per_s > b.tokens_per_s) {
      b.tokens_per_s = row.tokens_per_s;
      b.variant = row.variant;
      b.tflops_per_gpu = row.tflops_per_gpu;
      b.usd_per_million_tokens = row.usd_per_million_tokens;
    }
  }
  std::string Table(size_t max_clusters) const;

 private:
  std::map<std::string, Best> by_cluster_;
  std::map<std::string, int> reasons_;
  size_t rows_ = 0, infeasible_ = 0;
};

// Column widths fit the longest shown label, within [min, max] characters.
size_t Width(const std::vector<std::string>& texts, size_t min, size_t max) {
  size_t w = min;
  for (const std::string& t : texts) w = std::max(w, t.size());
  return std::min(w, max);
}

}  // namespace

StatusOr<std::string> SummarizeSweepRows(const std::string& jsonl, size_t max_clusters) {
  Tally tally;
  size_t pos = 0;
  while (pos < jsonl.size()) {
    size_t nl = jsonl.find('\n', pos);
    if (nl == std::string::npos) nl = jsonl.size();
    const std::string line = jsonl.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    try {
      const nlohmann::ordered_json row = nlohmann::ordered_json::parse(line);  // axes in the sweep's order
      SummaryRow r;
      for (const auto& [key, value] : row.at("axes").items()) {
        r.axes.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
      }
      r.variant = row.at("variant").get<std::string>();
      r.feasible = row.at("feasible").get<bool>();
      if (!r.feasible) {
        r.infeasible_reason = row.at("infeasible_reason").get<std::string>();
      } else {
        r.tokens_per_s = row.at("tokens_per_s").get<double>();
        r.tflops_per_gpu = row.at("tflops_per_gpu").get<double>();
        if (row.contains("cost"))
          r.usd_per_million_tokens = row.at("cost").at("usd_per_million_tokens").get<double>();
      }
      tally.Add(r);
    } catch (const std::exception& e) {
      return Status::Error(fmt::format("not a sweep row at byte {}: {}", pos - line.size() - 1, e.what()));
    }
  }
  return tally.Table(max_clusters);
}

StatusOr<std::string> SummarizeSweepCsv(const std::string& csv, size_t max_clusters) {
  const auto header = CsvRecord(csv, 0);
  if (!header) return Status::Error("no CSV header record");
  const std::vector<std::string>& names = header->first;
  std::map<std::string, size_t> column;
  std::vector<std::pair<std::string, size_t>> axes;  // axis key, column
  for (size_t i = 0; i < names.size(); ++i) {
    column[names[i]] = i;
    if (names[i].rfind("axes.", 0) == 0) axes.emplace_back(names[i].substr(5), i);
  }
  for (const char* want : {"variant", "feasible", "infeasible_reason", "tokens_per_s", "tflops_per_gpu"}) {
    if (column.count(want) == 0) return Status::Error(fmt::format("the CSV header has no column '{}'", want));
  }
  const auto price = column.find("cost.usd_per_million_tokens");
  Tally tally;
  size_t pos = header->second, record = 1;
  while (pos < csv.size()) {
    const auto cells = CsvRecord(csv, pos);
    ++record;
    if (!cells || cells->first.size() != names.size()) {
      return Status::Error(
          fmt::format("CSV record {} at byte {} is not a sweep row of the header's {} columns", record, pos,
                      names.size()));
    }
    const std::vector<std::string>& c = cells->first;
    SummaryRow r;
    for (const auto& [key, i] : axes) r.axes.emplace_back(key, c[i]);
    r.variant = c[column["variant"]];
    r.feasible = c[column["feasible"]] == "true";
    r.infeasible_reason = c[column["infeasible_reason"]];
    if (r.feasible) {
      const bool priced = price != column.end() && !c[price->second].empty();
      if (!Number(c[column["tokens_per_s"]], &r.tokens_per_s) ||
          !Number(c[column["tflops_per_gpu"]], &r.tflops_per_gpu) ||
          (priced && !Number(c[price->second], &r.usd_per_million_tokens))) {
        return Status::Error(
            fmt::format("CSV record {} at byte {}: tokens_per_s, tflops_per_gpu or the price is not a number",
                        record, pos));
      }
    }
    tally.Add(r);
    pos = cells->second;
  }
  return tally.Table(max_clusters);
}

std::string Tally::Table(size_t max_clusters) const {
  std::vector<Best> ranked;
  for (const auto& [cluster, b] : by_cluster_) {
    if (b.tokens_per_s >= 0) ranked.push_back(b);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Best& a, const Best& b) { return a.tokens_per_s > b.tokens_per_s; });
  std::string out = fmt::format("summary: {} rows, {} clusters, {} infeasible rows\n", rows_,
                                by_cluster_.size(), infeasible_);
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
      out +=
          fmt::format("  {:<{}} {:<{}} {:>12.0f} {:>8.1f} {:>10}\n", b.cluster.substr(0, cw), cw,
                      b.variant.substr(0, vw), vw, b.tokens_per_s, b.tflops_per_gpu,
                      b.usd_per_million_tokens >= 0 ? fmt::format("{:.3f}", b.usd_per_million_tokens) : "-");
    }
    if (ranked.size() > max_clusters)
      out += fmt::format("  ... and {} more clusters\n", ranked.size() - max_clusters);
  }
  for (const auto& [reason, count] : reasons_) out += fmt::format("  infeasible x{}: {}\n", count, reason);
  return out;
}

}  // namespace zerosim::study
