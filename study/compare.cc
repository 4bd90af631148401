#include "study/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/io/file_source.h"
#include "model/io/report_fields.h"
#include "model/io/report_json.h"
#include "model/io/report_table.h"
#include "model/units.h"
#include "study/number_text.h"
#include "study/scenario_runner.h"
#include "study/sweep_grid.h"

namespace zerosim::study {

namespace {

using nlohmann::ordered_json;

// "key" -> JSON text of every leaf of `j`, keys joined with dots, array items as [i].
void Flatten(const ordered_json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>* out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) Flatten(v, prefix.empty() ? k : prefix + "." + k, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) Flatten(j[i], fmt::format("{}[{}]", prefix, i), out);
  } else {
    out->emplace_back(prefix, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

std::vector<InputDifference> Differences(const ordered_json& a, const ordered_json& b) {
  std::vector<std::pair<std::string, std::string>> fa, fb;
  Flatten(a, "", &fa);
  Flatten(b, "", &fb);
  std::map<std::string, std::string> mb(fb.begin(), fb.end());
  std::map<std::string, std::string> ma(fa.begin(), fa.end());
  std::vector<InputDifference> out;
  for (const auto& [k, v] : fa) {
    auto it = mb.find(k);
    if (it == mb.end()) {
      out.push_back({k, v, "(none)"});
    } else if (it->second != v) {
      out.push_back({k, v, it->second});
    }
  }
  for (const auto& [k, v] : fb) {
    if (ma.count(k) == 0) out.push_back({k, "(none)", v});
  }
  return out;
}

// The calibration's values, as the scenario ran with them: the file's kind, the selected software generation's
// efficiencies and kernel choice, the quantization kernels' fits, what a measured compute section holds. The
// sources' texts are left out: they say where the values come from and differ whenever the GPUs do.
ordered_json CalibrationValues(const model::Calibration& cal, const ordered_json& file) {
  const model::ComputeEfficiency& e = cal.compute;
  ordered_json compute = {{"software", e.software},
                          {"kind", e.kind},
                          {"derived_from", e.derived_from},
                          {"loo_median_abs_error", e.loo_median_abs_error},
                          {"gemm", e.gemm},
                          {"gemm_k_half", e.gemm_k_half},
                          {"fp8_gemm", e.fp8_gemm},
                          {"attention_kernel", e.attention_kernel},
                          {"attention_forward", e.attention_forward},
                          {"attention_backward", e.attention_backward},
                          {"attention_v1_forward", e.attention_v1_forward},
                          {"attention_v1_backward", e.attention_v1_backward},
                          {"attention_fa2_forward", e.attention_fa2_forward},
                          {"attention_fa2_backward", e.attention_fa2_backward},
                          {"kernel_gap_s", e.kernel_gap_s},
                          {"memory_efficiency", e.memory_efficiency}};
  ordered_json kernels;
  for (int k = 0; k < model::kNumKernels; ++k) {
    const model::KernelFit& f = cal.kernels[static_cast<size_t>(k)].fit;
    kernels[model::KernelName(static_cast<model::Kernel>(k))] = {{"alpha_s", f.alpha_s}, {"beta_Bps", f.beta_Bps}};
  }
  return {{"gpu", cal.gpu},
          {"source", cal.source},
          {"file", file},
          {"copy_bandwidth_Bps", cal.copy_Bps},
          {"compute", compute},
          {"kernels", kernels},
          {"measured_compute",
           {{"gemm_points", cal.measured.gemm.size()},
            {"attention_points", cal.measured.attention.size()},
            {"launch_s", cal.measured.launch_s}}}};
}

// What the scenario fixes for all its variants: the cluster, the scenario's model files and the calibration
// (the scenario file itself left out: two files always differ).
ordered_json ScenarioInputs(const model::Report& r, const model::Calibration& cal) {
  const ordered_json full = io::ReportToJson(r);
  ordered_json j;
  j["cluster"] = full["scenario"]["cluster"];
  const ordered_json& p = full["provenance"];
  j["calibration"] = CalibrationValues(cal, p["calibration"]);
  j["topology_file"] = p["topology"];
  j["model_file"] = p["model"];
  return j;
}

// What a variant fixes: its model (with the sequence length and the attention kernel it runs), its ZeRO
// settings.
ordered_json VariantInputs(const model::VariantReport& v) {
  const ordered_json full = io::VariantToJson(v);
  return {{"model", full["model"]},
          {"attention", model::AttentionImplName(v.model.attention)},
          {"zero", full["zero"]},
          {"seq_len", full["seq_len"]},
          {"tokens_per_gpu", full["tokens_per_gpu"]}};
}

std::vector<TimeCause> Causes(const model::VariantReport& a, const model::VariantReport& b) {
  // The parts from the field list (CausePlace, model/io/report_fields.h): compute by kind, the optimizer,
  // side-stream GPU work, exposed communication by cause. Both variants ran: every part is a number.
  std::vector<TimeCause> c;
  for (const io::ReportField& f : io::CauseFields()) {
    c.push_back({f.cause.part, std::get<double>(f.get({&a, nullptr, {}})),
                 std::get<double>(f.get({&b, nullptr, {}}))});
  }
  // What the parts do not account for (compute_s beside its kinds; exposed_comm_s beside its causes when
  // waiting_for_data_s is clamped at 0): shown so that the parts always sum to the iteration time.
  double sum_a = 0, sum_b = 0;
  for (const TimeCause& t : c) {
    sum_a += t.a_s;
    sum_b += t.b_s;
  }
  c.push_back({"other", a.iteration_time_s - sum_a, b.iteration_time_s - sum_b});
  std::stable_sort(c.begin(), c.end(), [](const TimeCause& x, const TimeCause& y) {
    return std::abs(x.b_s - x.a_s) > std::abs(y.b_s - y.a_s);
  });
  return c;
}

}  // namespace

Comparison CompareReports(std::string a_label, model::Report a, const model::Calibration& a_cal,
                          std::string b_label, model::Report b, const model::Calibration& b_cal) {
  Comparison c;
  c.a_label = std::move(a_label);
  c.b_label = std::move(b_label);
  c.a = std::move(a);
  c.b = std::move(b);
  c.inputs = Differences(ScenarioInputs(c.a, a_cal), ScenarioInputs(c.b, b_cal));
  std::vector<bool> matched(c.b.variants.size(), false);
  for (size_t i = 0; i < c.a.variants.size(); ++i) {
    const model::VariantReport& va = c.a.variants[i];
    VariantComparison vc{va.name, va.engine, static_cast<int>(i), -1, {}, {}};
    for (size_t k = 0; k < c.b.variants.size(); ++k) {
      if (!matched[k] && c.b.variants[k].name == va.name && c.b.variants[k].engine == va.engine) {
        vc.b = static_cast<int>(k);
        matched[k] = true;
        break;
      }
    }
    if (vc.b >= 0) {
      const model::VariantReport& vb = c.b.variants[static_cast<size_t>(vc.b)];
      vc.inputs = Differences(VariantInputs(va), VariantInputs(vb));
      if (model::Ran(va) && model::Ran(vb)) vc.causes = Causes(va, vb);
    }
    c.variants.push_back(std::move(vc));
  }
  for (size_t k = 0; k < c.b.variants.size(); ++k) {
    if (!matched[k])
      c.variants.push_back({c.b.variants[k].name, c.b.variants[k].engine, -1, static_cast<int>(k), {}, {}});
  }
  return c;
}

namespace {

struct FieldPair {
  const io::ReportField* field;
  io::FieldValue a;  // monostate when the variant is missing on that side or did not run
  io::FieldValue b;
};

std::vector<FieldPair> Pairs(const Comparison& c, const VariantComparison& v) {
  std::vector<FieldPair> out;
  for (const io::ReportField& f : io::RowFields()) {
    FieldPair p{&f, std::monostate{}, std::monostate{}};
    if (v.a >= 0)
      p.a = io::FieldOf(f, {&c.a.variants[static_cast<size_t>(v.a)], &c.a.cluster, c.a.scenario_name});
    if (v.b >= 0)
      p.b = io::FieldOf(f, {&c.b.variants[static_cast<size_t>(v.b)], &c.b.cluster, c.b.scenario_name});
    out.push_back(std::move(p));
  }
  return out;
}

std::optional<double> Number(const io::FieldValue& v) {
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const long long* i = std::get_if<long long>(&v)) return static_cast<double>(*i);
  return std::nullopt;
}

// B - A for two numbers, monostate otherwise.
io::FieldValue Difference(const FieldPair& p) {
  const std::optional<double> a = Number(p.a), b = Number(p.b);
  if (!a || !b) return std::monostate{};
  return *b - *a;
}

std::string Label(const VariantComparison& v) { return fmt::format("{} ({})", v.name, v.engine); }

// A headline field in the units a reader reads (issue 38 item 5: compare printed raw bytes): bytes in GB (memory
// per GPU in GiB, as `run` prints it), bytes per second in GB/s, tokens per second as grouped whole numbers; the
// rows (JSON lines, CSV) keep SI.
struct HumanUnit {
  const char* unit;
  double divisor;
  bool grouped;
};
HumanUnit Human(const io::ReportField& f) {
  const std::string unit = f.unit, name = f.name;
  if (unit == "B") {
    return name.find("memory") != std::string::npos || name.find("hbm") != std::string::npos
               ? HumanUnit{"GiB", kGiB, false}
               : HumanUnit{"GB", kGB, false};
  }
  if (unit == "B/s") return {"GB/s", kGB, false};
  if (unit == "1/s") return {"1/s", 1, true};
  return {f.unit, 1, false};
}

std::string HumanText(const io::FieldValue& v, const HumanUnit& h) {
  const std::optional<double> x = Number(v);
  if (!x) return io::FieldText(v);
  if (h.grouped) return GroupedNumber(*x);
  return io::FieldText(*x / h.divisor);
}

// "name: N nodes x G GPUs = P GPUs" of a report's cluster.
std::string ClusterSize(const model::Report& r) {
  return fmt::format("{}: {} nodes x {} GPUs = {} GPUs", r.cluster.name, r.cluster.nodes, r.cluster.gpus_per_node,
                     GroupedNumber(static_cast<double>(r.cluster.total_gpus())));
}

std::string Table(const Comparison& c) {
  std::string out = fmt::format("A: {} ({})\n   cluster {}\nB: {} ({})\n   cluster {}\n", c.a_label, c.a.scenario_name,
                                ClusterSize(c.a), c.b_label, c.b.scenario_name, ClusterSize(c.b));
  auto inputs = [&](const std::vector<InputDifference>& d, const char* title) {
    if (d.empty()) return;
    out += fmt::format("\n{} (A -> B):\n", title);
    for (const InputDifference& x : d) out += fmt::format("  {:<44} {} -> {}\n", x.key, x.a, x.b);
  };
  inputs(c.inputs, "inputs that differ");
  if (c.inputs.empty()) out += "\nthe scenarios' clusters, models and calibration values are the same\n";
  for (const VariantComparison& v : c.variants) {
    out += fmt::format("\n{:<44} {:>8} {:>14} {:>14} {:>14} {:>8}\n", Label(v), "unit", "A", "B", "B - A",
                       "B/A");
    if (v.a < 0 || v.b < 0) out += fmt::format("  only in {}\n", v.a < 0 ? "B" : "A");
    for (const FieldPair& p : Pairs(c, v)) {
      // The table shows the headline fields (ReportField::headline); the rows (JSON lines, CSV) every field.
      if (!p.field->headline) continue;
      const std::optional<double> a = Number(p.a), b = Number(p.b);
      const std::string ratio = a && b && *a != 0 ? fmt::format("{:.3f}", *b / *a) : "";
      const HumanUnit h = Human(*p.field);
      out += fmt::format("  {:<42} {:>8} {:>14} {:>14} {:>14} {:>8}\n", p.field->name, h.unit, HumanText(p.a, h),
                         HumanText(p.b, h), HumanText(Difference(p), h), ratio);
    }
    // A side that does not fit has no numbers ("-" above): its reason instead.
    for (const auto& [side, report, index] :
         {std::tuple{"A", &c.a, v.a}, std::tuple{"B", &c.b, v.b}}) {
      if (index < 0) continue;
      const model::VariantReport& r = report->variants[static_cast<size_t>(index)];
      if (!r.feasible) out += fmt::format("  {} is infeasible: {}\n", side, r.infeasible_reason);
    }
    inputs(v.inputs, "  its own inputs that differ");
    if (!v.causes.empty()) {
      const model::VariantReport& va = c.a.variants[static_cast<size_t>(v.a)];
      const model::VariantReport& vb = c.b.variants[static_cast<size_t>(v.b)];
      const double d = vb.iteration_time_s - va.iteration_time_s;
      out += fmt::format(
          "  why the iteration time moved {:+.4g} s ({:+.1f}%): its parts, largest change first\n", d,
          100 * d / va.iteration_time_s);
      for (const TimeCause& t : v.causes) {
        // Changes below 1e-9 of the iteration are rounding in the parts' sums, not causes.
        if (std::abs(t.b_s - t.a_s) <= 1e-9 * va.iteration_time_s) continue;
        out += fmt::format("    {:<40} {:>12.4g} s -> {:>10.4g} s {:>+12.4g} s\n", t.part, t.a_s, t.b_s,
                           t.b_s - t.a_s);
      }
    }
  }
  return out;
}

ordered_json ValueJson(const io::FieldValue& v) { return ordered_json::parse(io::FieldJson(v)); }

ordered_json DifferencesJson(const std::vector<InputDifference>& d) {
  ordered_json out = ordered_json::array();
  for (const InputDifference& x : d) out.push_back({{"key", x.key}, {"a", x.a}, {"b", x.b}});
  return out;
}

std::string Json(const Comparison& c) {
  ordered_json j;
  j["format"] = "zerosim-compare-1";
  j["a"] = {{"label", c.a_label},
            {"scenario", c.a.scenario_name},
            {"provenance", io::ProvenanceToJson(c.a.provenance)}};
  j["b"] = {{"label", c.b_label},
            {"scenario", c.b.scenario_name},
            {"provenance", io::ProvenanceToJson(c.b.provenance)}};
  j["input_differences"] = DifferencesJson(c.inputs);
  ordered_json variants = ordered_json::array();
  for (const VariantComparison& v : c.variants) {
    ordered_json jv;
    jv["name"] = v.name;
    jv["engine"] = v.engine;
    jv["in"] = v.a < 0 ? "b" : v.b < 0 ? "a" : "both";
    jv["input_differences"] = DifferencesJson(v.inputs);
    ordered_json fields = ordered_json::array();
    for (const FieldPair& p : Pairs(c, v)) {
      fields.push_back({{"name", p.field->name},
                        {"unit", p.field->unit},
                        {"a", ValueJson(p.a)},
                        {"b", ValueJson(p.b)},
                        {"difference", ValueJson(Difference(p))}});
    }
    jv["fields"] = fields;
    ordered_json causes = ordered_json::array();
    for (const TimeCause& t : v.causes) {
      causes.push_back({{"part", t.part}, {"a_s", t.a_s}, {"b_s", t.b_s}, {"difference_s", t.b_s - t.a_s}});
    }
    jv["causes"] = causes;
    variants.push_back(jv);
  }
  j["variants"] = variants;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// One row per variant and field: variant, engine, field, unit, a, b, difference.
std::string Rows(const Comparison& c, bool csv) {
  std::string out = csv ? "variant,engine,field,unit,a,b,difference\r\n" : "";
  for (const VariantComparison& v : c.variants) {
    for (const FieldPair& p : Pairs(c, v)) {
      const io::FieldValue d = Difference(p);
      if (csv) {
        out += fmt::format("{},{},{},{},{},{},{}\r\n", io::FieldCsv(v.name), io::FieldCsv(v.engine),
                           io::FieldCsv(std::string(p.field->name)), io::FieldCsv(std::string(p.field->unit)),
                           io::FieldCsv(p.a), io::FieldCsv(p.b), io::FieldCsv(d));
      } else {
        out += fmt::format(
            "{{\"variant\":{},\"engine\":{},\"field\":{},\"unit\":{},\"a\":{},\"b\":{},\"difference\":{}}}\n",
            io::FieldJson(v.name), io::FieldJson(v.engine), io::FieldJson(std::string(p.field->name)),
            io::FieldJson(std::string(p.field->unit)), io::FieldJson(p.a), io::FieldJson(p.b),
            io::FieldJson(d));
      }
    }
  }
  return out;
}

}  // namespace

std::string RenderComparison(const Comparison& c, OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return Table(c);
    case OutputFormat::kJson:
      return Json(c);
    case OutputFormat::kJsonl:
      return Rows(c, false);
    case OutputFormat::kCsv:
      return Rows(c, true);
  }
  return "";
}

StatusOr<io::Scenario> LoadComparedScenario(const std::string& path, const std::string& base,
                                            const std::vector<std::string>& settings) {
  const io::DiskFileSource fs;
  // With what-ifs the configuration is checked as it will run, after them (ApplySettings).
  StatusOr<io::Scenario> s = io::LoadScenario(fs, path, {.check_configuration = settings.empty()});
  if (!s.ok()) {
    const StatusOr<io::TopologyFile> t = io::LoadTopology(fs, path);
    if (!t.ok()) {
      return Status::Error(fmt::format("{} is neither a scenario ({}) nor a topology ({})", path,
                                       s.status().message(), t.status().message()));
    }
    // The base runs on the named topology: it is checked there (ApplySettings), not on its own. A base that
    // runs on part of its topology's cluster (its `nodes` key) runs on as many nodes of this one (issue 38 item
    // 5: compare ran it on the topologies' whole clusters).
    StatusOr<io::Scenario> b = LoadScenarioOrDefault(base, {.check_configuration = false});
    if (!b.ok()) return b.status();
    const bool part = !b->topology_cluster_name.empty() && b->cluster.name != b->topology_cluster_name;
    std::vector<std::string> on{"topology=" + path};
    if (part) on.push_back(fmt::format("nodes={}", b->cluster.nodes));
    s = ApplySettings(fs, *b, on);
    if (!s.ok() && part) {
      return Status::Error(fmt::format("--scenario {} runs on {} nodes (its `nodes`); on {}: {}", base,
                                       b->cluster.nodes, path, s.status().message()));
    }
    if (s.ok() && part) s.value().cluster.name = io::PartClusterName(t->cluster.name, b->cluster.nodes);
    if (!s.ok() && base.empty()) {
      // Say which scenario it was: the user named two clusters and no scenario.
      return Status::Error(fmt::format(
          "no --scenario given, so the embedded default scenario ('{}') runs on both clusters; on {}: {}; give "
          "the scenario to run on them with --scenario FILE",
          b->name, path, s.status().message()));
    }
    if (!s.ok()) return s.status();
    s.value().name = fmt::format("{} on {}", b->name, s.value().cluster.name);
  }
  if (!settings.empty()) s = ApplySettings(fs, *s, settings);
  return s;
}

}  // namespace zerosim::study
