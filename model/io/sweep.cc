#include "model/io/sweep.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "model/feasibility.h"
#include "model/io/table_reader.h"

namespace zerosim::io {
namespace {

enum class Kind { kFile, kInt, kBandwidth, kNumber, kBool, kCount };

// An axis: its kind and the range its values must lie in, the same as the loaders' for that key
// (topology_loader.cc, zero_keys.cc, model/feasibility.h), so that an axis accepts exactly the values a
// scenario file accepts.
struct AxisRule {
  Kind kind;
  double min = 0;
  double max = 0;
};

const std::map<std::string, AxisRule>& AxisRules() {
  constexpr double kCountMax = TableReader::kCountMax;
  static const std::map<std::string, AxisRule> rules = {
      {"topology", {Kind::kFile}},
      {"model", {Kind::kFile}},
      {"nodes", {Kind::kInt, 1, model::kMaxNodes}},
      {"gpus_per_node", {Kind::kInt, 1, model::kMaxGpusPerNode}},
      {"nic.count", {Kind::kInt, 1, model::kMaxGpusPerNode}},
      {"nic.bandwidth", {Kind::kBandwidth}},
      {"intra.bandwidth", {Kind::kBandwidth}},
      {"fabric.oversubscription", {Kind::kNumber, 1, 1e6}},
      {"fabric.nodes_per_leaf", {Kind::kInt, 1, model::kMaxNodes}},
      {"tokens_per_gpu", {Kind::kInt, 1, static_cast<double>(model::kMaxSequence * model::kMaxMicroBatch)}},
      {"seq_len", {Kind::kInt, 1, model::kMaxSequence}},
      {"zero_quantized_weights", {Kind::kBool}},
      {"zero_hpz_partition_size", {Kind::kInt, 1, model::kMaxGpusPerNode}},
      {"zero_quantized_gradients", {Kind::kBool}},
      {"reduce_bucket_size", {Kind::kCount, 1, kCountMax}},
      {"stage3_prefetch_bucket_size", {Kind::kCount, 0, kCountMax}},
      {"stage3_max_live_parameters", {Kind::kCount, 0, kCountMax}},
  };
  return rules;
}

std::string Where(const std::string& file, const toml::node& n) {
  return fmt::format("{}:{}:{}", file, n.source().begin.line, n.source().begin.column);
}

// Parses one axis value; returns an error message or "".
std::string ParseValue(const toml::node& n, const AxisRule& rule, AxisValue* v) {
  switch (rule.kind) {
    case Kind::kFile:
      if (!n.is_string()) return "expected a file path (string)";
      v->text = n.as_string()->get();
      return "";
    case Kind::kInt: {
      if (!n.is_integer()) return "expected a whole number";
      const int64_t i = n.as_integer()->get();
      if (static_cast<double>(i) < rule.min || static_cast<double>(i) > rule.max) {
        return fmt::format("must be between {:.0f} and {:.0f}, got {}", rule.min, rule.max, i);
      }
      v->number = static_cast<double>(i);
      v->text = std::to_string(i);
      return "";
    }
    case Kind::kBandwidth: {
      if (!n.is_string()) return "expected a bandwidth string like \"400Gbps\"";
      v->text = n.as_string()->get();
      StatusOr<double> q = ParseQuantity(v->text, Dimension::kBandwidth);
      if (!q.ok()) return q.status().message();
      if (*q <= 0) return "must be greater than zero";
      v->number = *q;
      return "";
    }
    case Kind::kNumber:
    case Kind::kCount:
      if (!n.is_number()) return "expected a number";
      v->number = n.is_integer() ? static_cast<double>(n.as_integer()->get()) : n.as_floating_point()->get();
      if (rule.kind == Kind::kCount && !(std::isfinite(v->number) && v->number == std::floor(v->number))) {
        return fmt::format("expected a whole number of elements, got {}", v->number);
      }
      if (!(v->number >= rule.min && v->number <= rule.max)) {
        return fmt::format("must be between {:g} and {:g}, got {:g}", rule.min, rule.max, v->number);
      }
      v->text = fmt::format("{:g}", v->number);
      return "";
    case Kind::kBool:
      if (!n.is_boolean()) return "expected true or false";
      v->boolean = n.as_boolean()->get();
      v->text = v->boolean ? "true" : "false";
      return "";
  }
  return "";
}

// One value of axis `key` (from `file`, whose directory file axes are relative to): parsed and checked,
// a topology or model file loaded into `s`.
StatusOr<AxisValue> ReadAxisValue(const FileSource& fs, const std::string& file, const std::string& key,
                                  const AxisRule& rule, const toml::node& item, SweepSpec* s) {
  AxisValue v;
  const std::string error = ParseValue(item, rule, &v);
  if (!error.empty()) return Status::Error(fmt::format("{}: [axes] {}: {}", Where(file, item), key, error));
  if (key == "topology") {
    StatusOr<TopologyFile> t = LoadTopology(fs, ResolvePath(file, v.text));
    if (!t.ok()) return t.status();
    StatusOr<model::Calibration> cal = LoadCalibration(fs, t->calibration_path);
    if (!cal.ok()) return cal.status();
    v.file = static_cast<int>(s->topologies.size());
    const StatusOr<std::string> cal_text = fs.Read(t->calibration_path);  // read once more for its hash
    s->topology_calibration_files.push_back({t->calibration_path, cal_text.ok() ? HashBytes(*cal_text) : ""});
    s->topologies.emplace_back(std::move(t).value(), std::move(cal).value());
  } else if (key == "model") {
    StatusOr<ModelFile> m = LoadModel(fs, ResolvePath(file, v.text));
    if (!m.ok()) return m.status();
    v.file = static_cast<int>(s->models.size());
    s->models.push_back(std::move(m).value());
  }
  return v;
}

void ReadPrices(TableReader* cost, SweepSpec* s, Status* status) {
  model::PriceModel& p = s->price;
  p.gpu_hour_usd = cost->NumberOr("gpu_hour_usd", 0, 0, 1e9);
  const bool owned = cost->Has("capex_per_gpu_usd");
  if ((p.gpu_hour_usd > 0) == owned && status->ok()) {
    cost->Fail(owned ? "capex_per_gpu_usd" : "gpu_hour_usd",
               "give either gpu_hour_usd (rent) or capex_per_gpu_usd with its amortization (own), not both");
  }
  if (!owned) return;
  p.capex_per_gpu_usd = cost->NumberOr("capex_per_gpu_usd", 0, 0, 1e12);
  p.amortization_s = cost->Quantity("amortization", Dimension::kTime, true);
  p.power_per_gpu_w = cost->NumberOr("power_per_gpu_w", 0, 0, 1e6);
  p.pue = cost->NumberOr("pue", 1, 1, 10);
  p.energy_usd_per_kwh = cost->NumberOr("energy_usd_per_kwh", 0, 0, 1e3);
  // The price tables are keyed by bandwidth ("400Gbps"); LoadSweep reads them from the raw TOML.
  for (const char* table : {"nic_usd", "switch_port_usd"}) {
    cost->MarkKnown(table);
    if (!cost->Has(table)) cost->Fail(table, fmt::format("missing [cost.{}] (prices by NIC bandwidth)", table));
  }
}

}  // namespace

const std::vector<std::string>& SweepAxisKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& [name, rule] : AxisRules()) k.push_back(name);
    return k;
  }();
  return keys;
}

StatusOr<SweepSpec> LoadSweep(const FileSource& fs, const std::string& path) {
  StatusOr<TomlFile> doc = ReadTomlFile(fs, path);
  if (!doc.ok()) return doc.status();

  Status status;
  SweepSpec s;
  s.file = doc->file;
  TableReader root(&doc.value().table, path, "", &status);
  s.name = root.String("name");
  s.description = root.OptionalString("description").value_or("");
  const std::string base = root.String("base");
  s.train_tokens = root.CountOr("train_tokens", 0, 0);
  if (!status.ok()) return status;
  StatusOr<Scenario> sc = LoadScenario(fs, ResolvePath(path, base));
  if (!sc.ok()) return sc.status();
  s.base = std::move(sc).value();

  // [axes]
  root.MarkKnown("axes");
  const toml::table* axes = doc->table.get_as<toml::table>("axes");
  if (axes == nullptr) {
    root.Fail("axes", "a sweep needs an [axes] table (e.g. \"nic.bandwidth\" = [\"200Gbps\", \"400Gbps\"])");
    return status;
  }
  for (const auto& [k, node] : *axes) {
    const std::string key(k.str());
    const auto rule = AxisRules().find(key);
    if (rule == AxisRules().end()) {
      std::string hint;
      for (const std::string& cand : SweepAxisKeys()) {
        if (EditDistance(key, cand) <= 2) hint = fmt::format(" (did you mean '{}'?)", cand);
      }
      return Status::Error(fmt::format("{}: [axes] {}: unknown axis{}; axes: {}", Where(path, node), key, hint,
                                       fmt::join(SweepAxisKeys(), ", ")));
    }
    if (!node.is_array() || node.as_array()->empty()) {
      return Status::Error(fmt::format("{}: [axes] {}: expected a non-empty list of values", Where(path, node), key));
    }
    Axis axis{key, {}};
    for (const toml::node& item : *node.as_array()) {
      StatusOr<AxisValue> v = ReadAxisValue(fs, path, key, rule->second, item, &s);
      if (!v.ok()) return v.status();
      axis.values.push_back(std::move(v).value());
    }
    s.axes.push_back(std::move(axis));
  }

  // Axes that shape the schedule vary slowest, so that consecutive points share a schedule; the axes that
  // only change bandwidths vary fastest. Alphabetical within each group.
  std::stable_partition(s.axes.begin(), s.axes.end(), [](const Axis& a) {
    return a.key != "nic.bandwidth" && a.key != "nic.count" && a.key != "intra.bandwidth" &&
           a.key != "fabric.oversubscription";
  });

  // [constraints]
  if (std::optional<TableReader> c = root.OptionalTable("constraints")) {
    s.total_gpus = static_cast<int>(c->IntOr("total_gpus", 0, 1, model::kMaxGpus));
    s.min_total_gpus = static_cast<int>(c->IntOr("min_total_gpus", 0, 1, model::kMaxGpus));
    s.max_total_gpus = static_cast<int>(c->IntOr("max_total_gpus", 0, 1, model::kMaxGpus));
    c->Finish();
  }

  // [cost]
  if (std::optional<TableReader> cost = root.OptionalTable("cost")) {
    s.has_price = true;
    ReadPrices(&*cost, &s, &status);
    const toml::table* raw = doc->table.get_as<toml::table>("cost");
    for (const char* table : {"nic_usd", "switch_port_usd"}) {
      const toml::table* t = raw != nullptr ? raw->get_as<toml::table>(table) : nullptr;
      if (t == nullptr || s.price.rented()) continue;
      auto& target = std::string(table) == "nic_usd" ? s.price.nic_usd_by_Bps : s.price.switch_port_usd_by_Bps;
      for (const auto& [k, node] : *t) {
        StatusOr<double> bw = ParseQuantity(k.str(), Dimension::kBandwidth);
        if (!bw.ok()) {
          return Status::Error(fmt::format("{}: [cost.{}] {}: the key must be a bandwidth: {}", Where(path, node), table,
                                           k.str(), bw.status().message()));
        }
        const double usd =
            !node.is_number()  ? -1
            : node.is_integer() ? static_cast<double>(node.as_integer()->get())
                                : node.as_floating_point()->get();
        if (!(usd >= 0 && usd <= 1e12)) {
          return Status::Error(fmt::format("{}: [cost.{}] {}: expected a price in USD between 0 and 1e12",
                                           Where(path, node), table, k.str()));
        }
        target[*bw] = usd;
      }
    }
    cost->Finish();
  }
  root.Finish();
  if (!status.ok()) return status;

  // Enumerate the product and keep the points that satisfy the constraints.
  size_t product = 1;
  for (const Axis& a : s.axes) {
    if (a.values.size() > kMaxSweepPoints / product) {
      return Status::Error(fmt::format("{}: [axes]: the axes' product has more than {:.0e} points (at axis '{}'); "
                                       "split the sweep into several files",
                                       path, static_cast<double>(kMaxSweepPoints), a.key));
    }
    product *= a.values.size();
  }
  for (size_t i = 0; i < product; ++i) {
    s.product_index.push_back(i);
    const SweepPoint p = MakePoint(s, s.product_index.size() - 1);
    const int gpus = p.cluster.total_gpus();
    const bool keep = (s.total_gpus == 0 || gpus == s.total_gpus) && (s.min_total_gpus == 0 || gpus >= s.min_total_gpus) &&
                      (s.max_total_gpus == 0 || gpus <= s.max_total_gpus);
    if (!keep) s.product_index.pop_back();
  }
  if (s.product_index.empty()) {
    return Status::Error(fmt::format("{}: no point of the sweep satisfies its [constraints]", path));
  }

  // Owned clusters need a price for every NIC bandwidth they use.
  if (s.has_price && !s.price.rented()) {
    for (size_t i = 0; i < s.product_index.size(); ++i) {
      const double bw = MakePoint(s, i).cluster.nic.bandwidth_Bps;
      for (const auto* table : {&s.price.nic_usd_by_Bps, &s.price.switch_port_usd_by_Bps}) {
        if (table->count(bw) == 0) {
          return Status::Error(fmt::format("{}: [cost] has no NIC or switch-port price for {:g} Gbps NICs (add e.g. "
                                           "\"{:g}Gbps\" = ... to [cost.nic_usd] and [cost.switch_port_usd])",
                                           path, bw * 8 / 1e9, bw * 8 / 1e9));
        }
      }
    }
  }
  return s;
}

size_t PointCount(const SweepSpec& s) { return s.product_index.size(); }

SweepPoint MakePoint(const SweepSpec& s, size_t index) {
  SweepPoint p;
  p.index = index;
  p.cluster = s.base.cluster;
  p.calibration = s.base.calibration;
  p.variants = s.base.variants;
  p.topology_file = s.base.topology_file;
  p.model_file = s.base.model_file;
  p.calibration_file = s.base.calibration_file;
  // Decode the mixed-radix product index, last axis fastest.
  size_t rest = s.product_index[index];
  std::vector<const AxisValue*> chosen(s.axes.size());
  for (size_t a = s.axes.size(); a-- > 0;) {
    const size_t n = s.axes[a].values.size();
    chosen[a] = &s.axes[a].values[rest % n];
    rest /= n;
  }
  for (size_t a = 0; a < s.axes.size(); ++a) p.axes.emplace_back(s.axes[a].key, chosen[a]->text);
  auto value = [&](const char* key) -> const AxisValue* {
    for (size_t a = 0; a < s.axes.size(); ++a) {
      if (s.axes[a].key == key) return chosen[a];
    }
    return nullptr;
  };
  // Whole files first, then the fields that override them.
  if (const AxisValue* v = value("topology")) {
    p.cluster = s.topologies[static_cast<size_t>(v->file)].first.cluster;
    p.calibration = s.topologies[static_cast<size_t>(v->file)].second;
    p.topology_file = s.topologies[static_cast<size_t>(v->file)].first.file;
    p.calibration_file = s.topology_calibration_files[static_cast<size_t>(v->file)];
  }
  if (const AxisValue* v = value("model")) {
    p.model_file = s.models[static_cast<size_t>(v->file)].file;
    for (Variant& var : p.variants) {
      const int seq = var.model.seq_len;
      var.model = s.models[static_cast<size_t>(v->file)].model;
      var.model.seq_len = seq;
    }
  }
  if (const AxisValue* v = value("nodes")) p.cluster.nodes = static_cast<int>(v->number);
  if (const AxisValue* v = value("gpus_per_node")) p.cluster.gpus_per_node = static_cast<int>(v->number);
  if (const AxisValue* v = value("nic.count")) p.cluster.nic.count = static_cast<int>(v->number);
  if (const AxisValue* v = value("nic.bandwidth")) p.cluster.nic.bandwidth_Bps = v->number;
  if (const AxisValue* v = value("intra.bandwidth")) p.cluster.intra.bandwidth_Bps = v->number;
  if (const AxisValue* v = value("fabric.oversubscription")) p.cluster.fabric.oversubscription = v->number;
  if (const AxisValue* v = value("fabric.nodes_per_leaf")) p.cluster.fabric.nodes_per_leaf = static_cast<int>(v->number);
  for (Variant& var : p.variants) {
    if (const AxisValue* v = value("seq_len")) var.model.seq_len = static_cast<int>(v->number);
    if (const AxisValue* v = value("tokens_per_gpu")) {
      const int64_t tokens = static_cast<int64_t>(v->number);  // at most 2^44 (AxisRules)
      const int64_t seq = std::max(1, var.model.seq_len);
      if (tokens % seq != 0 && p.infeasible.empty()) {
        p.infeasible = fmt::format("{} tokens per GPU is not a whole number of {}-token sequences", tokens, seq);
      }
      const int64_t micro = std::max<int64_t>(1, tokens / seq);
      if (micro > model::kMaxMicroBatch && p.infeasible.empty()) {
        p.infeasible = fmt::format("{} tokens per GPU are {} sequences of {} tokens, more than ZeroSim's limit of {}",
                                   tokens, micro, seq, model::kMaxMicroBatch);
      }
      var.zero.train_micro_batch_size_per_gpu = static_cast<int>(std::min<int64_t>(micro, model::kMaxMicroBatch));
    }
    if (const AxisValue* v = value("zero_quantized_weights")) var.zero.zero_quantized_weights = v->boolean;
    if (const AxisValue* v = value("zero_hpz_partition_size")) var.zero.zero_hpz_partition_size = static_cast<int>(v->number);
    if (const AxisValue* v = value("zero_quantized_gradients")) var.zero.zero_quantized_gradients = v->boolean;
    if (const AxisValue* v = value("reduce_bucket_size")) var.zero.reduce_bucket_size = v->number;
    if (const AxisValue* v = value("stage3_prefetch_bucket_size")) var.zero.stage3_prefetch_bucket_size = v->number;
    if (const AxisValue* v = value("stage3_max_live_parameters")) var.zero.stage3_max_live_parameters = v->number;
  }

  // Combinations that cannot run are results, with the reason: the one feasibility check
  // (model/feasibility.h), the same the loaders report as errors.
  for (const Variant& var : p.variants) {
    if (!p.infeasible.empty()) break;
    p.infeasible = model::DescribeProblems(model::CheckConfiguration(var.model, var.zero, p.cluster));
  }
  return p;
}

StatusOr<Scenario> ApplySettings(const FileSource& fs, const Scenario& base, const std::vector<std::string>& settings) {
  SweepSpec s;
  s.name = base.name;
  s.base = base;
  for (const std::string& setting : settings) {
    const size_t eq = setting.find('=');
    const std::string key = setting.substr(0, eq);
    const auto rule = AxisRules().find(key);
    if (eq == std::string::npos || rule == AxisRules().end()) {
      std::string hint;
      for (const std::string& cand : SweepAxisKeys()) {
        if (EditDistance(key, cand) <= 2) hint = fmt::format(" (did you mean '{}'?)", cand);
      }
      return Status::Error(fmt::format("--set {}: expected KEY=VALUE with KEY one of the sweep axes{}: {}", setting, hint,
                                       fmt::join(SweepAxisKeys(), ", ")));
    }
    for (const Axis& a : s.axes) {
      if (a.key == key) return Status::Error(fmt::format("--set {}: {} is set twice", setting, key));
    }
    // The value as a TOML value (numbers, booleans, quoted strings), or else as a bare string ("200Gbps").
    const std::string text = setting.substr(eq + 1);
    toml::table doc;
    StatusOr<toml::table> parsed = ParseToml("v = " + text, "--set");
    if (parsed.ok() && parsed->get("v") != nullptr) {
      doc = std::move(parsed).value();
    } else {
      doc.insert("v", text);
    }
    StatusOr<AxisValue> v = ReadAxisValue(fs, "--set", key, rule->second, *doc.get("v"), &s);
    if (!v.ok()) return Status::Error(fmt::format("--set {}: {}", setting, v.status().message()));
    s.axes.push_back(Axis{key, {std::move(v).value()}});
  }
  s.product_index = {0};
  const SweepPoint p = MakePoint(s, 0);
  Scenario out = base;
  out.cluster = p.cluster;
  out.calibration = p.calibration;
  out.variants = p.variants;
  // A `topology` or `model` setting names other files: the provenance says which.
  out.topology_file = p.topology_file;
  out.model_file = p.model_file;
  out.calibration_file = p.calibration_file;
  if (!settings.empty()) out.name = fmt::format("{} (--set {})", base.name, fmt::join(settings, " "));
  if (!p.infeasible.empty()) {
    return Status::Error(fmt::format("--set {}: {}", fmt::join(settings, " "), p.infeasible));
  }
  return out;
}

}  // namespace zerosim::io
