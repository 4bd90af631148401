#include "sim/chrome_trace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "model/enum_names.h"

namespace zerosim::sim {
namespace {

using model::Op;
using model::OpKind;

std::string Escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(ch));
    } else {
      out += ch;
    }
  }
  return out;
}

const char* Category(const Op& op) {
  // OpKind's order.
  constexpr std::array<const char*, 6> kCategories = {"host",   "compute",    "quantization",
                                                      "memory", "collective", "wait"};
  return model::NameOf(kCategories, op.kind, "op");
}

std::string Args(const Op& op, int index) {
  std::string a = fmt::format("\"op\":{},\"phase\":\"{}\"", index, model::PhaseName(op.phase));
  if (op.kind == OpKind::kCollective) {
    a += fmt::format(",\"group\":\"{}\",\"group_size\":{},\"buffer_bytes\":{},\"purpose\":\"{}\"",
                     model::GroupKindName(op.coll.group), op.coll.group_size, op.coll.buffer_bytes,
                     model::PurposeName(op.purpose));
  }
  return a;
}

// Simulated seconds as whole nanoseconds: every event's endpoints are rounded once, and its duration is
// the difference of the rounded endpoints, so two ops that touch in simulated time touch in the trace
// (separately rounded start and duration could overlap by 1 ns, which breaks Perfetto's nesting per thread).
long long Ns(double s) { return std::llround(s * 1e9); }
// Nanoseconds as the trace's microseconds, exactly (three decimals).
std::string Us(long long ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); }

// What an op is called in the trace: DescribeOp, and for a parameter gather whose parameters it fetches
// (the module it serves, model::Op::module) and whether it runs ahead of that module (a prefetch).
std::string TraceName(const model::Schedule& s, int index) {
  const Op& op = s.ops[static_cast<size_t>(index)];
  if (op.kind == OpKind::kCollective &&
      (op.purpose == model::Purpose::kForwardAllGather || op.purpose == model::Purpose::kBackwardAllGather) &&
      op.module >= 0) {
    return fmt::format("fetch {}'s parameters: {}({}) [{}]",
                       s.graph.modules[static_cast<size_t>(op.module)].name,
                       model::CollectiveKindName(op.coll.kind), model::GroupKindName(op.coll.group),
                       model::PhaseName(op.phase));
  }
  if (op.kind == OpKind::kCollective && op.purpose == model::Purpose::kGradientReduce) {
    // A reduction serves one module, or a bucket of several (reduce_bucket_size;
    // model/builders/gradient_reducer.h).
    return fmt::format("reduce {}: {}({})",
                       op.module >= 0 ? s.graph.modules[static_cast<size_t>(op.module)].name + "'s gradients"
                                      : std::string("a gradient bucket"),
                       model::CollectiveKindName(op.coll.kind), model::GroupKindName(op.coll.group));
  }
  return model::DescribeOp(s, index);
}

// Ops that occupy the GPU's SMs (the compute stream's work and the side-stream kernels); collectives hold
// SMs too but are counted apart.
bool OnGpu(const Op& op) {
  return op.kind == OpKind::kCompute || op.kind == OpKind::kKernel || op.kind == OpKind::kMemory;
}

struct Slice {
  int pid = 0;
  int tid = 0;
  long long start_ns = 0;
  long long finish_ns = 0;
  int op = 0;
};

}  // namespace

std::string ChromeTraceJson(const std::vector<TracedRun>& runs) {
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& event) {
    if (!first) out += ",\n";
    out += event;
    first = false;
  };
  long long next_flow = 1;
  for (size_t v = 0; v < runs.size(); ++v) {
    const TracedRun& run = runs[v];
    std::set<int> ranks;
    for (const TraceEvent& e : run.result->trace) ranks.insert(e.rank);
    std::set<std::pair<int, int>> threads;
    // The slices per thread, in start order; a start rounded before the previous op's end on the same queue
    // is moved to that end (a queue runs one op at a time).
    std::map<std::pair<int, int>, std::vector<Slice>> by_thread;
    for (const TraceEvent& e : run.result->trace) {
      const Op& op = run.schedule->ops[static_cast<size_t>(e.op)];
      const int pid = static_cast<int>(v) * 1'000'000 + e.rank;
      const int tid = static_cast<int>(op.queue);
      threads.insert({pid, tid});
      by_thread[{pid, tid}].push_back({pid, tid, Ns(e.start_s), Ns(e.finish_s), e.op});
    }
    std::map<std::pair<int, int>, const Slice*> slice_of;  // (pid, op) -> its slice
    for (auto& [thread, slices] : by_thread) {
      std::stable_sort(slices.begin(), slices.end(),
                       [](const Slice& a, const Slice& b) { return a.start_ns < b.start_ns; });
      long long end = std::numeric_limits<long long>::min();
      for (Slice& sl : slices) {
        sl.start_ns = std::max(sl.start_ns, end);
        sl.finish_ns = std::max(sl.finish_ns, sl.start_ns);
        if (sl.finish_ns > sl.start_ns) end = sl.finish_ns;
        slice_of[{sl.pid, sl.op}] = &sl;
      }
    }
    for (const auto& [thread, slices] : by_thread) {
      for (const Slice& sl : slices) {
        if (sl.finish_ns <= sl.start_ns) continue;
        const Op& op = run.schedule->ops[static_cast<size_t>(sl.op)];
        emit(
            fmt::format("{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},"
                        "\"dur\":{},\"args\":{{{}}}}}",
                        Escape(TraceName(*run.schedule, sl.op)), Category(op), sl.pid, sl.tid,
                        Us(sl.start_ns), Us(sl.finish_ns - sl.start_ns), Args(op, sl.op)));
      }
    }
    // Dependencies across queues as flow events (an arrow from the op waited for to the op that waited).
    for (const auto& [thread, slices] : by_thread) {
      for (const Slice& sl : slices) {
        if (sl.finish_ns <= sl.start_ns) continue;
        const Op& op = run.schedule->ops[static_cast<size_t>(sl.op)];
        for (int d = 0; d < op.num_deps; ++d) {
          auto it = slice_of.find({sl.pid, op.deps[static_cast<size_t>(d)]});
          if (it == slice_of.end()) continue;
          const Slice& dep = *it->second;
          if (dep.tid == sl.tid || dep.finish_ns <= dep.start_ns) continue;
          const long long id = next_flow++;
          emit(
              fmt::format("{{\"name\":\"dependency\",\"cat\":\"dependency\",\"ph\":\"s\",\"id\":{},"
                          "\"pid\":{},\"tid\":{},\"ts\":{}}}",
                          id, dep.pid, dep.tid, Us(dep.start_ns)));
          emit(
              fmt::format("{{\"name\":\"dependency\",\"cat\":\"dependency\",\"ph\":\"f\",\"bp\":\"e\","
                          "\"id\":{},\"pid\":{},\"tid\":{},\"ts\":{}}}",
                          id, sl.pid, sl.tid, Us(sl.start_ns)));
        }
      }
    }
    // Counter tracks per rank: the GPU's load (ops holding its SMs at once, compute and side-stream
    // kernels) and the collectives in flight with their payload rate (each collective's buffer bytes over
    // its duration, summed: a rank's share of link use, not a per-link measurement).
    for (int rank : ranks) {
      const int pid = static_cast<int>(v) * 1'000'000 + rank;
      std::map<long long, std::array<double, 3>> change;  // ns -> {gpu ops, collectives, payload Bps}
      for (const auto& [thread, slices] : by_thread) {
        if (thread.first != pid) continue;
        for (const Slice& sl : slices) {
          if (sl.finish_ns <= sl.start_ns) continue;
          const Op& op = run.schedule->ops[static_cast<size_t>(sl.op)];
          if (OnGpu(op)) {
            change[sl.start_ns][0] += 1;
            change[sl.finish_ns][0] -= 1;
          } else if (op.kind == OpKind::kCollective) {
            const double rate =
                op.coll.buffer_bytes / (static_cast<double>(sl.finish_ns - sl.start_ns) * 1e-9);
            change[sl.start_ns][1] += 1;
            change[sl.finish_ns][1] -= 1;
            change[sl.start_ns][2] += rate;
            change[sl.finish_ns][2] -= rate;
          }
        }
      }
      std::array<double, 3> level{};
      for (const auto& [ns, delta] : change) {
        for (size_t k = 0; k < level.size(); ++k) level[k] += delta[k];
        emit(fmt::format(
            "{{\"name\":\"GPU load\",\"ph\":\"C\",\"pid\":{},\"ts\":{},\"args\":{{\"ops on SMs\":{}}}}}", pid,
            Us(ns), std::lround(level[0])));
        emit(
            fmt::format("{{\"name\":\"communication\",\"ph\":\"C\",\"pid\":{},\"ts\":{},\"args\":{{"
                        "\"collectives in flight\":{},\"payload GB/s\":{:.6g}}}}}",
                        pid, Us(ns), std::lround(level[1]), std::max(0.0, level[2]) / 1e9));
      }
    }
    for (int rank : ranks) {
      const int pid = static_cast<int>(v) * 1'000'000 + rank;
      emit(fmt::format(
          "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":\"{} rank {}\"}}}}", pid,
          Escape(run.name), rank));
      emit(fmt::format(
          "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"sort_index\":{}}}}}", pid,
          pid));
    }
    for (const auto& [pid, queue] : threads) {
      emit(fmt::format(
          "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}", pid,
          queue, model::QueueName(static_cast<model::Queue>(queue))));
      emit(
          fmt::format("{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_"
                      "index\":{}}}}}",
                      pid, queue, queue));
    }
  }
  out += "\n]}\n";
  return out;
}

}  // namespace zerosim::sim
