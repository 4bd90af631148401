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

// A limit's bounds and reason (median_max required, worst_max and mean_signed_max optional: -1 when absent).
void ReadBounds(io::TableReader* t, double* median_max, double* worst_max, double* mean_signed_max,
                std::string* reason, const Status* status) {
  if (!t->Has("median_max")) t->Fail("median_max", "missing: every limit bounds the group's median |error|");
  *median_max = t->NumberOr("median_max", 0, 0, 10);
  *worst_max = t->Has("worst_max") ? t->NumberOr("worst_max", -1, 0, 10) : -1;
  *mean_signed_max = t->Has("mean_signed_max") ? t->NumberOr("mean_signed_max", -1, 0, 10) : -1;
  *reason = t->String("reason");
  if (status->ok() && reason->empty()) t->Fail("reason", "empty: a limit states why it has its value");
  if (status->ok() && *worst_max >= 0 && *worst_max < *median_max) {
    t->Fail("worst_max", fmt::format("{} is below median_max {}: no group can meet it", *worst_max, *median_max));
  }
}

// What of `median_abs`, `worst_abs` and `mean_signed` breaks the bounds, one text each.
std::vector<std::string> Broken(double median_abs, double worst_abs, double mean_signed, double median_max,
                                double worst_max, double mean_signed_max) {
  std::vector<std::string> broken;
  if (median_abs > median_max + kSlack) {
    broken.push_back(fmt::format("median |error| {:.2f}% > {:.2f}%", 100 * median_abs, 100 * median_max));
  }
  if (worst_max >= 0 && worst_abs > worst_max + kSlack) {
    broken.push_back(fmt::format("worst |error| {:.2f}% > {:.2f}%", 100 * worst_abs, 100 * worst_max));
  }
  if (mean_signed_max >= 0 && std::abs(mean_signed) > mean_signed_max + kSlack) {
    broken.push_back(
        fmt::format("|mean signed error| {:.2f}% > {:.2f}%", 100 * std::abs(mean_signed), 100 * mean_signed_max));
  }
  return broken;
}

std::string LimitText(double value, double max) {
  return max < 0 ? fmt::format("{:.1f}% (-)", 100 * value) : fmt::format("{:.1f}% ({:.1f}%)", 100 * value, 100 * max);
}

}  // namespace

StatusOr<AccuracyContract> ParseAccuracyContract(const std::string& text, const std::string& path) {
  StatusOr<toml::table> doc = io::ParseToml(text, path);
  if (!doc.ok()) return doc.status();
  Status status = Status::Ok();
  io::TableReader root(&*doc, path, "", &status);
  root.MarkKnown("limit");
  root.MarkKnown("nccl_limit");
  AccuracyContract c;
  c.path = path;
  const toml::node* list = doc->get("limit");
  if (list == nullptr || !list->is_array_of_tables()) {
    root.Fail("limit", "expected [[limit]] tables (one per validation group, metric and engine)");
    return status;
  }
  if (const toml::node* nccl = doc->get("nccl_limit"); nccl != nullptr) {
    if (!nccl->is_array_of_tables()) {
      root.Fail("nccl_limit", "expected [[nccl_limit]] tables (one per source of the NCCL points)");
      return status;
    }
    int k = 0;
    for (const toml::node& node : *nccl->as_array()) {
      io::TableReader t(node.as_table(), path, fmt::format("nccl_limit.{}", k++), &status);
      NcclLimit l;
      l.place = fmt::format("{}:{}:{}", path, node.source().begin.line, node.source().begin.column);
      l.source = t.String("source");
      ReadBounds(&t, &l.median_max, &l.worst_max, &l.mean_signed_max, &l.reason, &status);
      t.Finish();
      if (!status.ok()) return status;
      for (const NcclLimit& other : c.nccl_limits) {
        if (other.source == l.source) {
          t.Fail("source", fmt::format("a second limit for NCCL source \"{}\" (the first at {})", l.source, other.place));
          return status;
        }
      }
      c.nccl_limits.push_back(std::move(l));
    }
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
    ReadBounds(&t, &l.median_max, &l.worst_max, &l.mean_signed_max, &l.reason, &status);
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
    const std::vector<std::string> broken =
        Broken(g->median_abs, g->worst_abs, g->mean_signed, l.median_max, l.worst_max, l.mean_signed_max);
    out.table += fmt::format("{:<8} {:<66} {:<21} {:>4} {:>15} {:>15} {:>15}  {}\n", l.engine, l.group,
                             io::MetricName(l.metric), g->n, LimitText(g->median_abs, l.median_max),
                             LimitText(g->worst_abs, l.worst_max), LimitText(std::abs(g->mean_signed), l.mean_signed_max),
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

ContractCheck CheckNcclContract(const AccuracyContract& contract, const std::vector<NcclSummary>& sources) {
  ContractCheck out;
  out.table = fmt::format("{:<62} {:>4} {:>15} {:>15} {:>15}  {}\n", "NCCL source", "n", "median|e| (max)",
                          "worst|e| (max)", "|mean| (max)", "");
  for (const NcclLimit& l : contract.nccl_limits) {
    const NcclSummary* m = nullptr;
    for (const NcclSummary& s : sources) {
      if (s.source == l.source) m = &s;
    }
    if (m == nullptr) {
      out.failures.push_back(
          fmt::format("{}: NCCL source \"{}\": no such source among the points (renamed or removed?)", l.place, l.source));
      continue;
    }
    const std::vector<std::string> broken =
        Broken(m->median_abs, m->worst_abs, m->mean_signed, l.median_max, l.worst_max, l.mean_signed_max);
    out.table += fmt::format("{:<62} {:>4} {:>15} {:>15} {:>15}  {}\n", l.source, m->n,
                             LimitText(m->median_abs, l.median_max), LimitText(m->worst_abs, l.worst_max),
                             LimitText(std::abs(m->mean_signed), l.mean_signed_max), broken.empty() ? "PASS" : "FAIL");
    for (const std::string& b : broken) {
      out.failures.push_back(
          fmt::format("{}: NCCL source \"{}\": {} (the limit's reason: {})", l.place, l.source, b, l.reason));
    }
  }
  for (const NcclSummary& s : sources) {
    bool limited = false;
    for (const NcclLimit& l : contract.nccl_limits) limited = limited || l.source == s.source;
    if (!limited) {
      out.failures.push_back(fmt::format("{}: NCCL source \"{}\": no [[nccl_limit]] (add one with its reason)",
                                         contract.path, s.source));
    }
  }
  return out;
}

}  // namespace zerosim::study
