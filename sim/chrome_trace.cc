#include "sim/chrome_trace.h"

#include <set>
#include <utility>

#include <fmt/format.h>

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
  switch (op.kind) {
    case OpKind::kCompute:
      return "compute";
    case OpKind::kKernel:
      return "quantization";
    case OpKind::kMemory:
      return "memory";
    case OpKind::kCollective:
      return "collective";
    case OpKind::kHost:
      return "host";
    case OpKind::kWait:
      return "wait";
  }
  return "op";
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

}  // namespace

std::string ChromeTraceJson(const std::vector<TracedRun>& runs) {
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& event) {
    if (!first) out += ",\n";
    out += event;
    first = false;
  };
  for (size_t v = 0; v < runs.size(); ++v) {
    const TracedRun& run = runs[v];
    std::set<int> ranks;
    for (const TraceEvent& e : run.result->trace) ranks.insert(e.rank);
    std::set<std::pair<int, int>> threads;
    for (const TraceEvent& e : run.result->trace) {
      const Op& op = run.schedule->ops[static_cast<size_t>(e.op)];
      const int pid = static_cast<int>(v) * 1'000'000 + e.rank;
      threads.insert({pid, static_cast<int>(op.queue)});
      if (e.finish_s <= e.start_s) continue;
      emit(fmt::format(
          "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{:.3f},"
          "\"dur\":{:.3f},\"args\":{{{}}}}}",
          Escape(model::DescribeOp(*run.schedule, e.op)), Category(op), pid, static_cast<int>(op.queue),
          e.start_s * 1e6, (e.finish_s - e.start_s) * 1e6, Args(op, e.op)));
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
