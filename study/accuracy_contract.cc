#include "study/accuracy_contract.h"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "model/io/table_reader.h"

namespace zerosim::study {
namespace {

bool MetricFromName(const std::string& name, io::Metric* m) {
  for (io::Metric candidate : {io::Metric::kTflopsPerGpu, io::Metric::kSpeedup, io::Metric::kCrossNodeVolumeM,
                               io::Metric::kTokensPerSPerGpu, io::Metric::kPeakReservedGiB}) {
    if (name == io::MetricName(candidate)) {
      *m = candidate;
      return true;
    }
  }
  return false;
}

std::string Id(const std::string& engine, const std::string& group, io::Metric m) {
  return fmt::format("{} / {} / {}", engine, group, io::MetricName(m));
}

// A limit is broken only beyond rounding: the contract states fractions to a few digits.
constexpr double kSlack = 1e-9;

}  // namespace

StatusOr<AccuracyContract> ParseAccuracyContract(const std::string& text, const std::string& path) {
  StatusOr<toml::table> doc = io::ParseToml(text, path);
  if (!doc.ok()) return doc.status();
  Status status = Status::Ok();
  io::TableReader root(&*doc, path, "", &status);
  root.MarkKnown("limit");
  AccuracyContract c;
  c.path = path;
  const toml::node* list = doc->get("limit");
  if (list == nullptr || !list->is_array_of_tables()) {
    root.Fail("limit", "expected [[limit]] tables (one per validation group, metric and engine)");
    return status;
  }
  int i = 0;
  for (const toml::node& node : *list->as_array()) {
    io::TableReader t(node.as_table(), path, fmt::format("limit.{}", i++), &status);
    AccuracyLimit l;
    l.place = fmt::format("{}:{}:{}", path, node.source().begin.line, node.source().begin.column);
    l.group = t.String("group");
    const std::string metric = t.String("metric");
    if (status.ok() && !MetricFromName(metric, &l.metric)) {
      t.Fail("metric", fmt::format("unknown metric \"{}\" (tflops_per_gpu, speedup, cross_node_volume_M, "
                                   "tokens_per_s_per_gpu, peak_reserved_GiB)",
                                   metric));
    }
    l.engine = t.OptionalString("engine").value_or("analytic");
    if (status.ok() && l.engine != "analytic" && l.engine != "sim") {
      t.Fail("engine", fmt::format("unknown engine \"{}\" (analytic, sim)", l.engine));
    }
    if (!t.Has("median_max")) t.Fail("median_max", "missing: every limit bounds the group's median |error|");
    l.median_max = t.NumberOr("median_max", 0, 0, 10);
    l.worst_max = t.Has("worst_max") ? t.NumberOr("worst_max", -1, 0, 10) : -1;
    l.mean_signed_max = t.Has("mean_signed_max") ? t.NumberOr("mean_signed_max", -1, 0, 10) : -1;
    l.reason = t.String("reason");
    if (status.ok() && l.reason.empty()) t.Fail("reason", "empty: a limit states why it has its value");
    if (status.ok() && l.worst_max >= 0 && l.worst_max < l.median_max) {
      t.Fail("worst_max", fmt::format("{} is below median_max {}: no group can meet it", l.worst_max, l.median_max));
    }
    t.Finish();
    if (!status.ok()) return status;
    for (const AccuracyLimit& other : c.limits) {
      if (other.group == l.group && other.metric == l.metric && other.engine == l.engine) {
        t.Fail("group", fmt::format("a second limit for {} (the first at {})", Id(l.engine, l.group, l.metric),
                                    other.place));
        return status;
      }
    }
    c.limits.push_back(std::move(l));
  }
  root.Finish();
  if (!status.ok()) return status;
  return c;
}

ContractCheck CheckAccuracyContract(const AccuracyContract& contract, const std::vector<PointResult>& points,
                                    bool full_run) {
  ContractCheck out;
  const std::vector<GroupStats> stats = GroupStatistics(points);
  out.table = fmt::format("{:<8} {:<66} {:<21} {:>4} {:>15} {:>15} {:>15}  {}\n", "engine", "group", "metric", "n",
                          "median|e| (max)", "worst|e| (max)", "|mean| (max)", "");
  auto limit_text = [](double value, double max) {
    return max < 0 ? fmt::format("{:.1f}% (-)", 100 * value) : fmt::format("{:.1f}% ({:.1f}%)", 100 * value, 100 * max);
  };
  for (const AccuracyLimit& l : contract.limits) {
    const GroupStats* g = nullptr;
    for (const GroupStats& s : stats) {
      if (s.engine == l.engine && s.group == l.group && s.metric == l.metric) g = &s;
    }
    if (g == nullptr) {
      out.table += fmt::format("{:<8} {:<66} {:<21} {:>4} {:>15} {:>15} {:>15}  {}\n", l.engine, l.group,
                               io::MetricName(l.metric), 0, "", "", "", "not run");
      bool engine_ran = false;  // a run of the other engine does not fail this engine's limits
      for (const GroupStats& s : stats) engine_ran = engine_ran || s.engine == l.engine;
      if (full_run && engine_ran) {
        out.failures.push_back(fmt::format("{}: {}: no validation point (a renamed or removed group?)", l.place,
                                           Id(l.engine, l.group, l.metric)));
      }
      continue;
    }
    std::vector<std::string> broken;
    if (g->median_abs > l.median_max + kSlack) {
      broken.push_back(fmt::format("median |error| {:.2f}% > {:.2f}%", 100 * g->median_abs, 100 * l.median_max));
    }
    if (l.worst_max >= 0 && g->worst_abs > l.worst_max + kSlack) {
      broken.push_back(fmt::format("worst |error| {:.2f}% > {:.2f}%", 100 * g->worst_abs, 100 * l.worst_max));
    }
    if (l.mean_signed_max >= 0 && std::abs(g->mean_signed) > l.mean_signed_max + kSlack) {
      broken.push_back(
          fmt::format("|mean signed error| {:.2f}% > {:.2f}%", 100 * std::abs(g->mean_signed), 100 * l.mean_signed_max));
    }
    out.table += fmt::format("{:<8} {:<66} {:<21} {:>4} {:>15} {:>15} {:>15}  {}\n", l.engine, l.group,
                             io::MetricName(l.metric), g->n, limit_text(g->median_abs, l.median_max),
                             limit_text(g->worst_abs, l.worst_max), limit_text(std::abs(g->mean_signed), l.mean_signed_max),
                             broken.empty() ? "PASS" : "FAIL");
    for (const std::string& b : broken) {
      out.failures.push_back(fmt::format("{}: {}: {} (the limit's reason: {})", l.place, Id(l.engine, l.group, l.metric),
                                         b, l.reason));
    }
  }
  // Every group of a limited engine is under contract.
  for (const GroupStats& s : stats) {
    bool engine_limited = false;
    bool limited = false;
    for (const AccuracyLimit& l : contract.limits) {
      engine_limited = engine_limited || l.engine == s.engine;
      limited = limited || (l.engine == s.engine && l.group == s.group && l.metric == s.metric);
    }
    if (engine_limited && !limited) {
      out.failures.push_back(fmt::format("{}: {}: a validation group without a limit (add a [[limit]] with its reason)",
                                         contract.path, Id(s.engine, s.group, s.metric)));
    }
  }
  return out;
}

}  // namespace zerosim::study
