#include "property/property_explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>
#include <vector>

#include "model/analytic/analytic.h"
#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/report/evaluate.h"
#include "property/property_draw.h"
#include "sim/sim_evaluate.h"

namespace zerosim::testing {
namespace {

const char* KindName(model::OpKind k) {
  static constexpr const char* kNames[] = {"host", "compute", "kernel", "memory", "collective", "wait"};
  return kNames[static_cast<int>(k)];
}

}  // namespace

std::string ExplainCase(uint64_t seed, int index) {
  const DrawnCase d = DrawCase(seed, index);
  const io::MemoryFileSource fs(d.files);
  StatusOr<io::Scenario> loaded = io::LoadScenario(fs, "s.toml", {.check_configuration = false});
  if (!loaded.ok()) return loaded.status().message();
  const io::Scenario& s = *loaded;
  const io::Variant& v = s.variants.front();
  std::string out = d.label + "\n";
  if (v.parallel.pipeline > 1) return out + "a pipeline: its stages are replayed apart (not explained here)\n";
  sim::SimRun run;
  StatusOr<model::VariantReport> r = sim::EvaluateSimVariant(
      v.name, {v.model, v.zero, s.cluster, s.calibration, v.parallel}, sim::SimOptions{}, &run);
  if (!r.ok()) return out + r.status().message();
  const model::Schedule& sch = run.schedule;
  const model::Timing a = model::EvaluateAnalytic(sch, s.cluster, s.calibration, /*timeline=*/true);
  const model::Timing& b = run.result.timing;
  out += fmt::format("iteration: analytic {:.6g} s, sim {:.6g} s ({:+.2f}%)\n", a.iteration_s, b.iteration_s,
                     100 * (b.iteration_s / a.iteration_s - 1));
  out += fmt::format("compute busy: analytic {:.6g}, sim {:.6g}; interference {:.6g} / {:.6g}; queue blocking "
                     "{:.6g} / {:.6g}\n",
                     a.compute_busy_s, b.compute_busy_s, a.interference_s, b.interference_s, a.queue_blocking_s,
                     b.queue_blocking_s);
  if (b.start_s.size() != sch.ops.size() || a.start_s.size() != sch.ops.size()) {
    return out + "no per-op times from one of the engines\n";
  }
  // Summed durations per (queue, kind, purpose).
  std::map<std::tuple<int, int, int>, std::array<double, 3>> sums;
  for (size_t i = 0; i < sch.ops.size(); ++i) {
    const model::Op& op = sch.ops[i];
    auto& e = sums[{static_cast<int>(op.queue), static_cast<int>(op.kind), static_cast<int>(op.purpose)}];
    e[0] += a.finish_s[i] - a.start_s[i];
    e[1] += b.finish_s[i] - b.start_s[i];
    e[2] += 1;
  }
  out += fmt::format("{:<18} {:<11} {:<14} {:>6} {:>12} {:>12} {:>8}\n", "queue", "kind", "purpose", "ops",
                     "analytic s", "sim s", "sim/an");
  for (const auto& [key, e] : sums) {
    const auto [q, k, p] = key;
    out += fmt::format("{:<18} {:<11} {:<14} {:>6} {:>12.6g} {:>12.6g} {:>+7.2f}%\n",
                       model::QueueName(static_cast<model::Queue>(q)), KindName(static_cast<model::OpKind>(k)),
                       model::PurposeName(static_cast<model::Purpose>(p)), static_cast<int>(e[2]), e[0], e[1],
                       e[0] > 0 ? 100 * (e[1] / e[0] - 1) : 0.0);
  }
  // The ops where sim's finish minus analytic's grows most over the previous op of the same queue.
  struct Jump {
    double grow;
    size_t op;
  };
  std::vector<Jump> jumps;
  std::map<int, double> last_gap;
  for (size_t i = 0; i < sch.ops.size(); ++i) {
    const int q = static_cast<int>(sch.ops[i].queue);
    const double gap = b.finish_s[i] - a.finish_s[i];
    jumps.push_back({gap - last_gap[q], i});
    last_gap[q] = gap;
  }
  std::sort(jumps.begin(), jumps.end(),
            [](const Jump& x, const Jump& y) { return std::abs(x.grow) > std::abs(y.grow); });
  out += "largest growths of (sim finish - analytic finish) along a queue:\n";
  for (size_t j = 0; j < std::min<size_t>(12, jumps.size()); ++j) {
    const size_t i = jumps[j].op;
    const model::Op& op = sch.ops[i];
    out += fmt::format(
        "  op {:>5} {:<16} {:<10} {:<13} step {} module {:>3}: {:+.6g} s (analytic {:.6g}..{:.6g}, sim "
        "{:.6g}..{:.6g})\n",
        i, model::QueueName(op.queue), KindName(op.kind), model::PurposeName(op.purpose), op.micro_step, op.module,
        jumps[j].grow, a.start_s[i], a.finish_s[i], b.start_s[i], b.finish_s[i]);
  }
  if (std::getenv("ZEROSIM_EXPLAIN_OPS") != nullptr) {
    for (size_t i = 0; i < sch.ops.size(); ++i) {
      const model::Op& op = sch.ops[i];
      if (op.kind == model::OpKind::kWait) continue;
      out += fmt::format("  {:>5} {:<16} {:<60} an {:.6f}..{:.6f} ({:.6f})  sim {:.6f}..{:.6f} ({:.6f})\n", i,
                         model::QueueName(op.queue), model::DescribeOp(sch, static_cast<int>(i)).substr(0, 60),
                         a.start_s[i], a.finish_s[i], a.finish_s[i] - a.start_s[i], b.start_s[i], b.finish_s[i],
                         b.finish_s[i] - b.start_s[i]);
    }
  }
  return out;
}

}  // namespace zerosim::testing
