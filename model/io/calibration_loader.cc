#include <array>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/io/ds_keys.h"
#include "model/io/loaders.h"
#include "model/io/table_reader.h"

namespace zerosim::io {
namespace {

// Plausibility bounds on a calibration (not measurements: they only rule out absurd files). Bandwidths
// between 1 MB/s and 1 PB/s (an H200's HBM is 4.8 TB/s); a kernel launch at most 1 s (real ones take
// microseconds).
constexpr double kMinBps = 1e6;
constexpr double kMaxBps = 1e15;
constexpr double kMaxAlphaS = 1.0;

using nlohmann::json;

// Strict access to one JSON object: required/optional members by name, unknown members reported.
class JsonObject {
 public:
  JsonObject(const json& j, std::string file, std::string path, Status* status)
      : j_(j), file_(std::move(file)), path_(std::move(path)), status_(status) {
    if (!j_.is_object()) Fail("", "expected an object");
  }

  const json* Get(const std::string& key, bool required) {
    known_.insert(key);
    if (!j_.is_object()) return nullptr;
    const auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) Fail(key, "missing");
      return nullptr;
    }
    return &*it;
  }

  std::string String(const std::string& key) {
    const json* v = Get(key, true);
    if (v == nullptr) return "";
    if (!v->is_string()) {
      Fail(key, "expected a string");
      return "";
    }
    return v->get<std::string>();
  }

  double Positive(const std::string& key, bool required, double fallback) {
    const json* v = Get(key, required);
    if (v == nullptr) return fallback;
    if (!v->is_number() || v->get<double>() <= 0) {
      Fail(key, "expected a number greater than zero");
      return fallback;
    }
    return v->get<double>();
  }

  // A number in [lo, hi]: plausibility bounds that keep every duration the replay computes finite (an
  // absurd calibration, 1e300 s per launch or 1e-300 B/s, deadlocked the SimGrid replay).
  double InRange(const std::string& key, bool required, double fallback, double lo, double hi) {
    const json* v = Get(key, required);
    if (v == nullptr) return fallback;
    if (!v->is_number() || !(v->get<double>() >= lo && v->get<double>() <= hi)) {
      Fail(key, fmt::format("expected a number between {:g} and {:g}", lo, hi));
      return fallback;
    }
    return v->get<double>();
  }

  JsonObject Object(const std::string& key) {
    const json* v = Get(key, true);
    static const json kEmpty = json::object();
    return JsonObject(v != nullptr ? *v : kEmpty, file_, Join(key), status_);
  }

  void Fail(const std::string& key, const std::string& message) {
    if (!status_->ok()) return;
    *status_ = Status::Error(fmt::format("{}: key '{}': {}", file_, Join(key), message));
  }

  void Finish() {
    if (!j_.is_object() || !status_->ok()) return;
    for (const auto& [key, value] : j_.items()) {
      if (known_.count(key) > 0) continue;
      std::string hint;
      for (const std::string& k : known_) {
        if (EditDistance(key, k) <= 2) hint = fmt::format(" (did you mean '{}'?)", k);
      }
      Fail(key, "unknown key" + hint);
      return;
    }
  }

  std::string Join(const std::string& key) const {
    if (path_.empty()) return key;
    return key.empty() ? path_ : path_ + "." + key;
  }

 private:
  const json& j_;
  std::string file_;
  std::string path_;
  Status* status_;
  std::set<std::string> known_;
};

// The "compute" section `zerosim calibrate` writes (docs/calibration.md): its points, kept for the model.
void ReadMeasuredCompute(JsonObject* root, const std::string& path, model::Calibration* cal, Status* status) {
  const json* section = root->Get("compute", false);
  if (section == nullptr) return;
  JsonObject c(*section, path, "compute", status);
  if (c.String("source") != "measured" && status->ok()) c.Fail("source", "a compute section holds measurements only");
  cal->measured.provenance = c.String("provenance");
  cal->measured.launch_s = c.Positive("launch_s", true, 0);
  auto each = [&](const char* key, auto read) {
    const json* list = c.Get(key, true);
    if (list == nullptr) return;
    if (!list->is_array()) {
      c.Fail(key, "expected an array");
      return;
    }
    for (size_t i = 0; i < list->size(); ++i) {
      JsonObject e((*list)[i], path, fmt::format("compute.{}[{}]", key, i), status);
      read(&e);
      e.Finish();
    }
  };
  each("gemm", [&](JsonObject* e) {
    e->String("dtype");
    cal->measured.gemm.push_back({e->Positive("m", true, 1), e->Positive("n", true, 1), e->Positive("k", true, 1),
                                  e->Positive("seconds", true, 1)});
  });
  each("attention", [&](JsonObject* e) {
    e->String("dtype");
    e->String("kernel");
    model::MeasuredAttention a;
    a.batch_heads = e->Positive("batch_heads", true, 1);
    a.seq = e->Positive("seq", true, 1);
    a.head_dim = e->Positive("head_dim", true, 1);
    a.seconds = e->Positive("seconds", true, 1);
    if (const json* causal = e->Get("causal", true); causal != nullptr) {
      if (causal->is_boolean()) {
        a.causal = causal->get<bool>();
      } else {
        e->Fail("causal", "expected true or false");
      }
    }
    cal->measured.attention.push_back(a);
  });
  each("copy", [&](JsonObject* e) {
    e->Positive("bytes", true, 1);
    e->Positive("seconds", true, 1);
  });
  c.Finish();
}

// One set of kernel-level compute efficiencies (model/spec/calibration.h ComputeEfficiency): the
// `gemm_efficiency` block, or one entry of `software_generations`.
constexpr double kMinEfficiency = 1e-3;

model::ComputeEfficiency ReadEfficiency(JsonObject& eff, Status* status) {
  model::ComputeEfficiency c;
  // A fraction of peak from 0.001 to 1: the fitted sets hold 0.24 to 0.9; 1e-300 of peak is no measurement
  // and turned compute times into infinities that only the report's invariants caught.
  auto fraction = [&](const char* key) {
    const double v = eff.Positive(key, true, 1);
    if (status->ok() && v > 1) eff.Fail(key, "an efficiency cannot exceed 1");
    if (status->ok() && v < kMinEfficiency) {
      eff.Fail(key, fmt::format("an efficiency below {:g} of peak is no measurement (got {:g})",
                                kMinEfficiency, v));
    }
    return v;
  };
  c.gemm = fraction("gemm");
  c.attention_forward = fraction("attention_forward");
  c.attention_backward = fraction("attention_backward");
  c.kernel_gap_s = eff.InRange("kernel_gap_s", true, 0, 0, kMaxAlphaS);
  c.source = eff.String("source");
  // Optional: the software generation, the kind of the numbers and, for empirical sets, the fit's record.
  if (eff.Get("software", false) != nullptr) c.software = eff.String("software");
  if (eff.Get("kind", false) != nullptr) {
    c.kind = eff.String("kind");
    if (status->ok() && c.kind != "measured" && c.kind != "empirical" && c.kind != "derived") {
      eff.Fail("kind", fmt::format("\"{}\" is none of \"measured\", \"empirical\", \"derived\"", c.kind));
    }
  }
  if (eff.Get("fit", false) != nullptr) c.fit = eff.String("fit");
  if (eff.Get("derived_from", false) != nullptr) c.derived_from = eff.String("derived_from");
  if (eff.Get("attention_kernel", false) != nullptr) c.attention_kernel = eff.String("attention_kernel");
  if (status->ok() && c.kind == "empirical" && c.fit.empty()) {
    eff.Fail("fit", "missing: an empirical set names its data set, fit command and out-of-sample error");
  }
  c.loo_median_abs_error = eff.InRange("loo_median_abs_error", false, 0, 0, 10);
  c.gemm_k_half = eff.InRange("gemm_k_half", false, 0, 0, 1e6);
  c.memory_efficiency = eff.InRange("memory_efficiency", false, 1, 0.01, 1);
  // Optional: the power limit the set was obtained at (gpu_power.h TensorClockFactor), watts.
  c.power_limit_W = eff.InRange("power_limit_W", false, 0, 0, 1e4);
  // Optional: FP8 GEMMs as a fraction of the FP8 peak, with its own source (precision.h fp8_gemms needs it).
  const bool fp8 = eff.Get("fp8_gemm", false) != nullptr;
  const bool fp8_source = eff.Get("fp8_gemm_source", false) != nullptr;
  if (fp8) {
    c.fp8_gemm = fraction("fp8_gemm");
    c.fp8_gemm_source = eff.String("fp8_gemm_source");
  } else if (fp8_source) {
    eff.Fail("fp8_gemm_source", "a source without fp8_gemm");
  }
  // Optional, each set's three keys together: an attention kernel other than the generation's, forward and
  // backward efficiencies and their source: FlashAttention v1 (attention = "flash_v1") and FlashAttention-2
  // beside another generation kernel (attention = "flash2").
  auto kernel_set = [&](const std::string& prefix, double* forward, double* backward, std::string* source) {
    const std::array<std::string, 3> keys = {prefix + "_forward", prefix + "_backward", prefix + "_source"};
    int given = 0;
    for (const std::string& k : keys) given += eff.Get(k.c_str(), false) != nullptr ? 1 : 0;
    if (given == 3) {
      *forward = fraction(keys[0].c_str());
      *backward = fraction(keys[1].c_str());
      *source = eff.String(keys[2].c_str());
      return;
    }
    for (const std::string& k : keys) {
      if (given > 0 && eff.Get(k.c_str(), false) == nullptr) {
        eff.Fail(k.c_str(), fmt::format("missing: {}, {} and {} come together", keys[0], keys[1], keys[2]));
        break;
      }
    }
  };
  kernel_set("attention_v1", &c.attention_v1_forward, &c.attention_v1_backward, &c.attention_v1_source);
  kernel_set("attention_fa2", &c.attention_fa2_forward, &c.attention_fa2_backward, &c.attention_fa2_source);
  eff.Finish();
  return c;
}

}  // namespace

StatusOr<model::Calibration> ParseCalibration(const std::string& text, const std::string& path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return Status::Error(fmt::format("{}: invalid JSON at byte {}: {}", path, e.byte, e.what()));
  } catch (const json::exception& e) {
    // e.g. a number too large for a double (found by fuzz/loaders_fuzz.cc).
    return Status::Error(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  // nlohmann keeps the last of a key given twice: the first would be read by nobody and change nothing
  // (issue 39, "no silently dead input"), so a key given twice is refused at its JSON path.
  {
    nlohmann::ordered_json unused;
    if (Status st = ParseJsonWithoutDuplicates(text, path, &unused, "a calibration file states each value once");
        !st.ok()) {
      return st;
    }
  }
  Status status;
  model::Calibration cal;
  cal.path = path;
  JsonObject root(doc, path, "", &status);
  const std::string format = root.String("format");
  if (status.ok() && format != "zerosim-calibration-1") {
    root.Fail("format", fmt::format("unsupported format \"{}\" (expected \"zerosim-calibration-1\")", format));
  }
  cal.gpu = root.String("gpu");
  cal.source = root.String("source");
  if (status.ok() && cal.source != "measured" && cal.source != "empirical" && cal.source != "derived") {
    root.Fail("source", fmt::format("\"{}\" is none of \"measured\", \"empirical\", \"derived\"", cal.source));
  }
  cal.provenance = root.String("provenance");
  cal.copy_Bps = root.InRange("copy_bandwidth_Bps", true, 1, kMinBps, kMaxBps);

  // Kernel-level compute efficiencies (model/spec/calibration.h ComputeEfficiency). The block keeps its
  // historical name, gemm_efficiency: it holds every tensor-core kernel class. It is the file's default
  // software generation; `software_generations` (optional) holds others, by name.
  JsonObject eff = root.Object("gemm_efficiency");
  cal.compute = ReadEfficiency(eff, &status);
  cal.compute_sets.push_back(cal.compute);
  if (const json* gens = root.Get("software_generations", false); gens != nullptr) {
    static const json kNone = json::object();
    if (!gens->is_object()) root.Fail("software_generations", "expected an object of named efficiency sets");
    for (const auto& [name, value] : (gens->is_object() ? *gens : kNone).items()) {
      JsonObject g(value, path, "software_generations." + name, &status);
      model::ComputeEfficiency set = ReadEfficiency(g, &status);
      if (status.ok() && set.software != name) {
        g.Fail("software", fmt::format("\"{}\" differs from its entry's name \"{}\"", set.software, name));
      }
      for (const model::ComputeEfficiency& other : cal.compute_sets) {
        if (status.ok() && other.software == name) g.Fail("software", "a second set of the same name");
      }
      cal.compute_sets.push_back(set);
    }
  }

  ReadMeasuredCompute(&root, path, &cal, &status);

  JsonObject kernels = root.Object("kernels");
  for (int k = 0; k < model::kNumKernels; ++k) {
    const std::string name = model::KernelName(static_cast<model::Kernel>(k));
    JsonObject kj = kernels.Object(name);
    model::KernelCalibration& kc = cal.kernels[static_cast<size_t>(k)];
    if (const json* pts = kj.Get("points", false)) {
      if (!pts->is_array()) kj.Fail("points", "expected an array of [bytes, seconds] pairs");
      for (const json& p : pts->is_array() ? *pts : json::array()) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number() || p[0].get<double>() <= 0 ||
            p[1].get<double>() <= 0) {
          kj.Fail("points", "expected [bytes, seconds] pairs of positive numbers");
          break;
        }
        kc.points.push_back({p[0].get<double>(), p[1].get<double>()});
      }
    }
    const bool fit_from_points = kc.points.size() >= 2;
    kc.fit.alpha_s = kj.InRange("alpha_s", !fit_from_points, 0, 0, kMaxAlphaS);
    kc.fit.beta_Bps = kj.InRange("beta_Bps", !fit_from_points, 1, kMinBps, kMaxBps);
    if (fit_from_points && status.ok()) {
      kc.fit = model::FitKernel(kc.points);
      if (kc.fit.beta_Bps <= 0) kj.Fail("points", "the points do not give a positive bandwidth");
    }
    kj.Finish();
  }
  kernels.Finish();
  root.Finish();
  if (!status.ok()) return status;
  return cal;
}

StatusOr<model::Calibration> LoadCalibration(const FileSource& fs, const std::string& path) {
  StatusOr<std::string> text = fs.Read(path);
  if (!text.ok()) return text.status();
  return ParseCalibration(*text, path);
}

}  // namespace zerosim::io
