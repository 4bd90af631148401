#include "property/property_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include "model/analytic/analytic.h"
#include "model/cost/nccl_channels.h"
#include "model/io/band_loader.h"
#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/io/report_json.h"
#include "model/report/evaluate.h"
#include "model/spec/feasibility.h"
#include "property/property_draw.h"
#include "sim/sim_evaluate.h"
#include "study/bands.h"

namespace zerosim::testing {
namespace {

constexpr const char* kNames[kPropertyCount] = {"evaluates",       "link bound",   "bytes per tier",
                                                "other invariant", "NIC monotone", "NVLink monotone",
                                                "engines agree",   "rerun",        "band",
                                                "engines contend", "channel steps"};

class Run {
 public:
  explicit Run(const PropertyOptions& o) : o_(o) {}

  void Case(int index) {
    const DrawnCase d = DrawCase(o_.seed, index);
    ++c_.drawn;
    const io::MemoryFileSource fs(d.files);
    StatusOr<io::Scenario> loaded = io::LoadScenario(fs, "s.toml", {.check_configuration = false});
    if (!loaded.ok()) {
      // The draw writes valid syntax and keys: a refusal is a configuration the loader judges (a range).
      ++c_.refused;
      return;
    }
    const io::Scenario& s = *loaded;
    const io::Variant& v = s.variants.front();
    if (!io::ValidateVariant(s, v).empty()) {
      ++c_.refused;
      return;
    }
    const model::VariantReport r = Analytic(s, v, s.cluster);
    if (!r.feasible) {  // does not fit in memory: a result, not a violation
      ++c_.refused;
      return;
    }
    ++c_.evaluated;
    CheckInvariants(d.label + " (analytic)", r);
    CheckMonotone(d, s, v, r);
    CheckBand(d.label, s, r);
    Check(kRerun, io::VariantToJson(r).dump() == io::VariantToJson(Analytic(s, v, s.cluster)).dump(), d.label,
          "a second evaluation differs");
    const int gpus = s.cluster.total_gpus();
    if (c_.simulated < o_.sim_cases && gpus <= o_.sim_max_gpus) Simulate(d, s, v, r);
  }

  PropertyCounts counts() const { return c_; }

 private:
  model::VariantReport Analytic(const io::Scenario& s, const io::Variant& v, const model::ClusterSpec& c) {
    return model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, c, s.calibration, v.parallel});
  }

  void Check(Property p, bool ok, const std::string& label, const std::string& what) {
    ++c_.checked[p];
    if (ok) return;
    ++c_.violated[p];
    if (static_cast<int>(c_.examples[p].size()) < o_.examples) {
      c_.examples[p].push_back(what.empty() ? label : label + ": " + what);
    }
  }

  // The band a report of this variant prints (study/bands.h): it holds the headline beside it.
  void CheckBand(const std::string& label, const io::Scenario& s, model::VariantReport r) {
    const Status st = study::AttachBand(io::ShippedBands(), s.calibration, s.cluster.gpu.name, &r);
    const model::Band& b = r.band;
    const bool ordered = std::isfinite(b.low) && std::isfinite(b.high) && b.low > 0 && b.low <= b.high;
    Check(kBand, st.ok() && ordered && model::HeadlineInsideBand(b), label,
          st.ok() ? fmt::format("band [{}, {}] of '{}', centre {}", b.low, b.high, b.group, b.center)
                  : st.message());
  }

  // The report's invariants (model/report/invariants.h), one property per kind of violation.
  void CheckInvariants(const std::string& label, const model::VariantReport& r) {
    std::string link, bytes, other;
    size_t from = 0;
    const std::string& text = r.invariant_violation;
    while (from < text.size()) {
      size_t to = text.find("; ", from);
      if (to == std::string::npos) to = text.size();
      const std::string one = text.substr(from, to - from);
      std::string& into = one.find("links' busy time") != std::string::npos    ? link
                          : one.find(" bytes: schedule ") != std::string::npos ? bytes
                                                                               : other;
      into += (into.empty() ? "" : "; ") + one;
      from = to + 2;
    }
    Check(kLinkBound, link.empty(), label, link);
    Check(kBytesPerTier, bytes.empty(), label, bytes);
    Check(kOtherInvariant, other.empty(), label, other);
  }

  // Twice the NIC bandwidth, twice the NICs, twice the NVLink bandwidth: never slower beyond the tolerance.
  void CheckMonotone(const DrawnCase& d, const io::Scenario& s, const io::Variant& v,
                     const model::VariantReport& base) {
    struct Change {
      Property property;
      const char* what;
      std::function<void(model::ClusterSpec*)> apply;
    };
    const model::ClusterSpec& c0 = s.cluster;
    const std::vector<Change> changes = {
        {kNicMonotone, "NIC bandwidth x2", [](model::ClusterSpec* c) { c->nic.bandwidth_Bps *= 2; }},
        {kNicMonotone, "NICs x2", [](model::ClusterSpec* c) { c->nic.count *= 2; }},
        {kNvlinkMonotone, "NVLink bandwidth x2", [](model::ClusterSpec* c) { c->intra.bandwidth_Bps *= 2; }},
    };
    // The base cluster's channels, held on both sides of the asserted comparisons.
    model::ClusterSpec held = c0;
    if (held.nccl.channels <= 0) held.nccl.channels = model::NcclChannels(c0);
    const model::VariantReport held_base = Analytic(s, v, held);
    for (const Change& change : changes) {
      model::ClusterSpec c = c0;
      change.apply(&c);
      if (!io::ValidateVariant(s, v, c, s.calibration).empty()) continue;  // e.g. more NICs than GPUs
      model::ClusterSpec c_held = held;
      change.apply(&c_held);
      for (const bool own_channels : {false, true}) {
        const model::VariantReport& r0 = own_channels ? base : held_base;
        const model::VariantReport r = Analytic(s, v, own_channels ? c : c_held);
        if (!r.feasible || !r0.feasible) continue;
        const double t0 = r0.iteration_time_s;
        const double t1 = r.iteration_time_s;
        Check(own_channels ? kChannelSteps : change.property, t1 <= t0 * (1 + o_.monotone_tolerance), d.label,
              fmt::format("{}{}: {:.6g} s -> {:.6g} s ({:+.3f}%)", change.what,
                          own_channels ? " (NCCL's own channels)" : "", t0, t1, 100 * (t1 / t0 - 1)));
      }
    }
  }

  // The SimGrid replay of the same variant: its invariants, the same bytes per tier as the analytic engine,
  // and on a single switch the same time within the tolerance.
  void Simulate(const DrawnCase& d, const io::Scenario& s, const io::Variant& v,
                const model::VariantReport& a) {
    ++c_.simulated;
    sim::SimRun run;
    StatusOr<model::VariantReport> r = sim::EvaluateSimVariant(
        v.name, {v.model, v.zero, s.cluster, s.calibration, v.parallel}, sim::SimOptions{}, &run);
    Check(kEvaluates, r.ok(), d.label + " (sim)", r.ok() ? "" : r.status().message());
    if (!r.ok()) return;
    CheckInvariants(d.label + " (sim)", *r);
    std::string differ;
    for (const auto& [tier, x, y] : {std::tuple{"cross-node", &a.bytes.cross_node, &r->bytes.cross_node},
                                     std::tuple{"intra-node", &a.bytes.intra_node, &r->bytes.intra_node}}) {
      if (std::abs(x->total() - y->total()) > 1e-6 * std::max(x->total(), y->total())) {
        differ += fmt::format("{}{} bytes: analytic {:.9g} vs sim {:.9g}", differ.empty() ? "" : "; ", tier,
                              x->total(), y->total());
      }
    }
    Check(kBytesPerTier, differ.empty(), d.label + " (engines)", differ);
    if (!d.single_switch) return;
    const double diff = r->iteration_time_s / a.iteration_time_s - 1;
    // Collectives of two NCCL streams at once (the variant's own queues contend for the NVLink ports, NICs
    // and SMs): the engines share them differently (max-min in the replay, one pass in start order in the
    // analytic engine, analytic.h), so such a case is held to kEnginesAgreeContending's bound instead.
    const double contended = run.schedule.ops.empty() ? 0 : ContendedSeconds(run.schedule, s);
    if (contended > 0) {
      Check(kEnginesAgreeContending, std::abs(diff) <= o_.contending_engine_tolerance, d.label,
            fmt::format("analytic {:.6g} s, sim {:.6g} s ({:+.2f}%); streams overlap {:.3g} s", a.iteration_time_s,
                        r->iteration_time_s, 100 * diff, contended));
      c_.contending_differences.push_back(diff);
      return;
    }
    c_.engine_differences.push_back(diff);
    if (std::abs(diff) > std::abs(c_.worst_engine_difference)) {
      c_.worst_engine_difference = diff;
      c_.worst_engine_case = d.label;
    }
    Check(kEnginesAgree, std::abs(diff) <= o_.engine_tolerance, d.label,
          fmt::format("analytic {:.6g} s, sim {:.6g} s ({:+.2f}%)", a.iteration_time_s, r->iteration_time_s,
                      100 * diff));
  }

  // Seconds during which collectives of two or more NCCL queues run at once, on the analytic engine's
  // timeline of `schedule` (0: every collective has the links and the SMs NCCL gives it to itself).
  static double ContendedSeconds(const model::Schedule& schedule, const io::Scenario& s) {
    const model::Timing t = model::EvaluateAnalytic(schedule, s.cluster, s.calibration, /*timeline=*/true);
    std::vector<std::tuple<double, int, int>> events;  // time, +1 start / -1 end, queue
    for (size_t i = 0; i < schedule.ops.size(); ++i) {
      const model::Op& op = schedule.ops[i];
      if (op.kind != model::OpKind::kCollective || !(t.finish_s[i] > t.start_s[i])) continue;
      events.emplace_back(t.start_s[i], 1, static_cast<int>(op.queue));
      events.emplace_back(t.finish_s[i], -1, static_cast<int>(op.queue));
    }
    std::sort(events.begin(), events.end());  // at one instant ends (-1) before starts
    std::array<int, model::kNumQueues> active{};
    int queues = 0;
    double contended = 0;
    double last = 0;
    for (const auto& [time, delta, queue] : events) {
      if (queues >= 2) contended += time - last;
      last = time;
      int& a = active[static_cast<size_t>(queue)];
      if (delta > 0 && a++ == 0) ++queues;
      if (delta < 0 && --a == 0) --queues;
    }
    return contended;
  }

  PropertyOptions o_;
  PropertyCounts c_;
};

}  // namespace

const char* PropertyName(Property p) { return kNames[p]; }

bool Asserted(Property p) { return p != kChannelSteps; }

int PropertyCounts::total_violations() const {
  int n = 0;
  for (int p = 0; p < kPropertyCount; ++p) n += Asserted(static_cast<Property>(p)) ? violated[p] : 0;
  return n;
}

PropertyCounts RunProperties(const PropertyOptions& o) {
  Run run(o);
  for (int i = o.first_case; i < o.first_case + o.cases; ++i) run.Case(i);
  return run.counts();
}

std::string FormatCounts(const PropertyCounts& c) {
  std::string out = fmt::format(
      "{} cases drawn, {} refused or infeasible, {} evaluated (analytic), {} also replayed (sim)\n", c.drawn,
      c.refused, c.evaluated, c.simulated);
  out += fmt::format("{:<16} {:>8} {:>10}\n", "property", "checked", "violated");
  for (int p = 0; p < kPropertyCount; ++p) {
    out += fmt::format(
        "{:<16} {:>8} {:>10}{}\n", kNames[p], c.checked[p], c.violated[p],
        Asserted(static_cast<Property>(p)) ? "" : "  (NCCL's own behaviour: counted, not asserted)");
  }
  if (!c.engine_differences.empty()) {
    std::vector<double> d;
    for (double x : c.engine_differences) d.push_back(std::abs(x));
    std::sort(d.begin(), d.end());
    const auto above = [&d](double x) { return d.end() - std::upper_bound(d.begin(), d.end(), x); };
    out += fmt::format(
        "sim vs analytic on a single switch: median |difference| {:.2f}%, 95th percentile {:.2f}%, {} of {} "
        "above "
        "1%\n",
        100 * d[d.size() / 2], 100 * d[d.size() * 95 / 100], above(0.01), d.size());
  }
  if (!c.contending_differences.empty()) {
    double worst = 0;
    for (double x : c.contending_differences) worst = std::max(worst, std::abs(x));
    out += fmt::format("sim vs analytic on a single switch where NCCL streams overlap: {} cases, largest |difference| "
                       "{:.2f}%\n",
                       c.contending_differences.size(), 100 * worst);
  }
  if (!c.worst_engine_case.empty()) {
    out += fmt::format("largest sim vs analytic difference on a single switch: {:+.2f}% ({})\n",
                       100 * c.worst_engine_difference, c.worst_engine_case);
  }
  for (int p = 0; p < kPropertyCount; ++p) {
    for (const std::string& e : c.examples[p]) out += fmt::format("{}: {}\n", kNames[p], e);
  }
  return out;
}

}  // namespace zerosim::testing
