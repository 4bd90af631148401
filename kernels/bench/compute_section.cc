#include "kernels/bench/compute_section.h"

#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace zerosim::kernels::bench {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string Num(double v) { return ordered_json(v).dump(); }
std::string Str(const std::string& s) { return ordered_json(s).dump(); }

// Strict reading of one JSON object at `key` (e.g. "compute.gemm[3]"): the first error wins.
class Reader {
 public:
  Reader(const json& j, std::string path, std::string key, Status* status)
      : j_(j), path_(std::move(path)), key_(std::move(key)), status_(status) {
    if (!j_.is_object()) Fail("", "expected an object");
  }

  const json* Get(const std::string& name) {
    known_.insert(name);
    if (!j_.is_object()) return nullptr;
    const auto it = j_.find(name);
    if (it == j_.end()) {
      Fail(name, "missing");
      return nullptr;
    }
    return &*it;
  }
  std::string String(const std::string& name) {
    const json* v = Get(name);
    if (v != nullptr && !v->is_string()) Fail(name, "expected a string");
    return v != nullptr && v->is_string() ? v->get<std::string>() : "";
  }
  double Seconds(const std::string& name) {
    const json* v = Get(name);
    if (v == nullptr) return 0;
    if (!v->is_number() || !(v->get<double>() > 0) || !std::isfinite(v->get<double>())) {
      Fail(name, "expected a finite number greater than zero");
      return 0;
    }
    return v->get<double>();
  }
  int64_t Dimension(const std::string& name) {
    const json* v = Get(name);
    if (v == nullptr) return 0;
    if (!v->is_number_integer() || v->get<int64_t>() <= 0) {
      Fail(name, "expected an integer greater than zero");
      return 0;
    }
    return v->get<int64_t>();
  }
  bool Bool(const std::string& name) {
    const json* v = Get(name);
    if (v != nullptr && !v->is_boolean()) Fail(name, "expected true or false");
    return v != nullptr && v->is_boolean() && v->get<bool>();
  }
  ValueType Dtype() {
    const std::string d = String("dtype");
    if (d != "bf16" && d != "fp16" && status_->ok())
      Fail("dtype", "expected \"bf16\" or \"fp16\", not \"" + d + "\"");
    return d == "fp16" ? ValueType::kFp16 : ValueType::kBf16;
  }
  // The array at `name` ("" when missing or not an array, with the error set).
  const json& Array(const std::string& name) {
    static const json kEmpty = json::array();
    const json* v = Get(name);
    if (v != nullptr && !v->is_array()) Fail(name, "expected an array of objects");
    return v != nullptr && v->is_array() ? *v : kEmpty;
  }
  std::string Key(const std::string& name) const { return name.empty() ? key_ : key_ + "." + name; }

  void Fail(const std::string& name, const std::string& message) {
    if (status_->ok()) *status_ = Status::Error(fmt::format("{}: key '{}': {}", path_, Key(name), message));
  }
  void Finish() {
    if (!j_.is_object()) return;
    for (const auto& item : j_.items()) {
      if (known_.count(item.key()) == 0) {
        Fail(item.key(), "unknown key");
        return;
      }
    }
  }

 private:
  const json& j_;
  std::string path_;
  std::string key_;
  Status* status_;
  std::set<std::string> known_;
};

}  // namespace

std::string ComputeSectionText(const ComputeSection& c, const std::string& indent) {
  const std::string in1 = indent + "  ";
  const std::string in2 = indent + "    ";
  std::string out = "{\n";
  out += in1 + "\"source\": " + Str(c.source) + ",\n";
  out += in1 + "\"provenance\": " + Str(c.provenance) + ",\n";
  // One array of one-line objects: "[\n    {...},\n    {...}\n  ]" (an empty array stays "[]").
  auto array = [&](const char* name, size_t count, auto line) {
    out += in1 + "\"" + name + "\": [";
    for (size_t i = 0; i < count; ++i) out += (i == 0 ? "\n" : ",\n") + in2 + line(i);
    out += count > 0 ? "\n" + in1 + "],\n" : "],\n";
  };
  array("gemm", c.gemm.size(), [&](size_t i) {
    const GemmPoint& p = c.gemm[i];
    return fmt::format(R"({{"dtype": "{}", "m": {}, "n": {}, "k": {}, "seconds": {}}})",
                       ValueTypeName(p.type), p.shape.m, p.shape.n, p.shape.k, Num(p.seconds));
  });
  array("attention", c.attention.size(), [&](size_t i) {
    const AttentionPoint& p = c.attention[i];
    return fmt::format(
        R"({{"dtype": "{}", "batch_heads": {}, "seq": {}, "head_dim": {}, "causal": {}, "seconds": {}, )"
        R"("kernel": {}}})",
        ValueTypeName(p.type), p.shape.batch_heads, p.shape.seq, p.shape.head_dim,
        p.causal ? "true" : "false", Num(p.seconds), Str(p.kernel));
  });
  array("copy", c.copy.size(), [&](size_t i) {
    return fmt::format(R"({{"bytes": {}, "seconds": {}}})", c.copy[i].bytes, Num(c.copy[i].seconds));
  });
  out += in1 + "\"launch_s\": " + Num(c.launch_s) + "\n";
  out += indent + "}";
  return out;
}

StatusOr<ComputeSection> ParseComputeSection(const std::string& file_text, const std::string& path) {
  const json doc = json::parse(file_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Error(path + ": invalid JSON");
  if (!doc.is_object() || !doc.contains("compute")) {
    return Status::Error(path + ": no \"compute\" section");
  }
  Status status;
  ComputeSection c;
  Reader root(doc["compute"], path, "compute", &status);
  c.source = root.String("source");
  if (status.ok() && c.source != "measured") {
    root.Fail("source", "\"" + c.source + "\": a compute section holds measurements only (\"measured\")");
  }
  c.provenance = root.String("provenance");
  int i = 0;
  for (const json& j : root.Array("gemm")) {
    Reader r(j, path, fmt::format("compute.gemm[{}]", i++), &status);
    GemmPoint p;
    p.type = r.Dtype();
    p.shape = {r.Dimension("m"), r.Dimension("n"), r.Dimension("k")};
    p.seconds = r.Seconds("seconds");
    r.Finish();
    c.gemm.push_back(p);
  }
  i = 0;
  for (const json& j : root.Array("attention")) {
    Reader r(j, path, fmt::format("compute.attention[{}]", i++), &status);
    AttentionPoint p;
    p.type = r.Dtype();
    p.shape = {r.Dimension("batch_heads"), r.Dimension("seq"), r.Dimension("head_dim")};
    p.causal = r.Bool("causal");
    p.seconds = r.Seconds("seconds");
    p.kernel = r.String("kernel");
    r.Finish();
    c.attention.push_back(p);
  }
  i = 0;
  for (const json& j : root.Array("copy")) {
    Reader r(j, path, fmt::format("compute.copy[{}]", i++), &status);
    CopyPoint p;
    p.bytes = r.Dimension("bytes");
    p.seconds = r.Seconds("seconds");
    r.Finish();
    c.copy.push_back(p);
  }
  c.launch_s = root.Seconds("launch_s");
  root.Finish();
  if (!status.ok()) return status;
  return c;
}

}  // namespace zerosim::kernels::bench
