#include "model/io/sweep.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "model/io/parallel_keys.h"
#include "model/io/prices.h"
#include "model/io/table_reader.h"
#include "model/io/zero_keys.h"
#include "model/spec/feasibility.h"
#include "model/spec/strategy.h"

namespace zerosim::io {
namespace {

enum class Kind { kFile, kInt, kBandwidth, kPower, kNumber, kBool, kCount, kLauncher };

// An axis: its kind, the range its values must lie in (the same as the loaders' for that key:
// topology_loader.cc, zero_keys.cc, model/spec/feasibility.h, so that an axis accepts exactly the values a
// scenario file accepts), and where its value goes (AxisTarget, sweep.h). One entry per axis: a new axis
// (or `--set` key) is one line here, its documentation in docs/sweeps.md.
struct AxisRule {
  Kind kind;
  double min = 0;
  double max = 0;
  AxisTarget target;
};

int Int(const AxisValue& v) { return static_cast<int>(v.number); }

AxisTarget Cluster(ClusterSetter f) { return {f, nullptr}; }
AxisTarget EachVariant(VariantSetter f) { return {nullptr, f}; }

// An axis for each key of `keys` (input_key.h), its value set into the part of every variant `of` names.
template <typename Target>
void AddKeyAxes(const std::vector<InputKey<Target>>& keys, Target* (*of)(Variant*),
                std::map<std::string, AxisRule>* rules) {
  for (const InputKey<Target>& k : keys) {
    const Kind kind = k.type == KeyType::kBool    ? Kind::kBool
                      : k.type == KeyType::kInt   ? Kind::kInt
                      : k.type == KeyType::kCount ? Kind::kCount
                                                  : Kind::kNumber;
    auto* set = k.set;
    rules->emplace(
        k.key, AxisRule{kind, k.min, k.max, EachVariant([set, of, kind](const AxisValue& v, Variant* var) {
                          set(of(var), kind == Kind::kBool ? (v.boolean ? 1.0 : 0.0) : v.number);
                        })});
  }
}

const std::map<std::string, AxisRule>& AxisRules() {
  using model::ClusterSpec;
  // topology and model read files, tokens_per_gpu depends on the sequence: the study applies them
  // (study/sweep_grid.cc MakePoint), so they have no target here.
  static const std::map<std::string, AxisRule> rules = [] {
    std::map<std::string, AxisRule> r = {
        {"topology", {Kind::kFile, 0, 0, {}}},
        {"model", {Kind::kFile, 0, 0, {}}},
        {"nodes", {Kind::kInt, 1, model::kMaxNodes, Cluster([](const AxisValue& v, ClusterSpec* c) {
                     c->nodes = Int(v);
                   })}},
        {"gpus_per_node",
         {Kind::kInt, 1, model::kMaxGpusPerNode,
          Cluster([](const AxisValue& v, ClusterSpec* c) { c->gpus_per_node = Int(v); })}},
        {"nic.count", {Kind::kInt, 1, model::kMaxGpusPerNode, Cluster([](const AxisValue& v, ClusterSpec* c) {
                         c->nic.count = Int(v);
                       })}},
        {"nic.bandwidth", {Kind::kBandwidth, 0, 0, Cluster([](const AxisValue& v, ClusterSpec* c) {
                             c->nic.bandwidth_Bps = v.number;
                           })}},
        {"intra.bandwidth", {Kind::kBandwidth, 0, 0, Cluster([](const AxisValue& v, ClusterSpec* c) {
                               c->intra.bandwidth_Bps = v.number;
                             })}},
        // A board power limit (model/spec/gpu_power.h; CheckCluster refuses one outside the part's range).
        {"gpu.power_limit", {Kind::kPower, 0, 0, Cluster([](const AxisValue& v, ClusterSpec* c) {
                               c->gpu.power_limit_W = v.number;
                             })}},
        {"fabric.oversubscription", {Kind::kNumber, 1, 1e6, Cluster([](const AxisValue& v, ClusterSpec* c) {
                                       c->fabric.oversubscription = v.number;
                                     })}},
        {"fabric.nodes_per_leaf",
         {Kind::kInt, 1, model::kMaxNodes,
          Cluster([](const AxisValue& v, ClusterSpec* c) { c->fabric.nodes_per_leaf = Int(v); })}},
        {"tokens_per_gpu",
         {Kind::kInt, 1, static_cast<double>(model::kMaxSequence * model::kMaxMicroBatch), {}}},
        {"seq_len", {Kind::kInt, 1, model::kMaxSequence, EachVariant([](const AxisValue& v, Variant* var) {
                       var->model.seq_len = Int(v);
                     })}},
        // The micro-batches per iteration ([training], zero_keys.cc).
        {"gradient_accumulation_steps",
         {Kind::kInt, 1, static_cast<double>(model::kMaxGradientAccumulation),
          EachVariant(
              [](const AxisValue& v, Variant* var) { var->zero.gradient_accumulation_steps = Int(v); })}},
        // [runtime] launcher (zero_keys.cc: the same names), with the hardware queue count it implies unless
        // the scenario states cuda_device_max_connections (ApplyRuntime).
        {"launcher", {Kind::kLauncher, 0, 0, EachVariant([](const AxisValue& v, Variant* var) {
                        const auto l = static_cast<model::Launcher>(Int(v));
                        var->zero.runtime.launcher = l;
                        if (!var->zero.runtime.cuda_device_max_connections_stated) {
                          var->zero.runtime.cuda_device_max_connections = model::LauncherHardwareQueues(l);
                        }
                      })}},
        // [runtime] memory_reserve's range (zero_keys.cc).
        {"memory_reserve", {Kind::kNumber, 0, 0.49, EachVariant([](const AxisValue& v, Variant* var) {
                              var->zero.runtime.memory_reserve = v.number;
                            })}},
    };
    // The layout's and the ZeRO settings' plain keys (model/io/input_key.h: the loaders' names, types and
    // ranges).
    AddKeyAxes(
        ParallelKeys(), +[](Variant* var) { return &var->parallel; }, &r);
    AddKeyAxes(
        ZeroKeys(), +[](Variant* var) { return &var->zero; }, &r);
    return r;
  }();
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
      return v->text.empty() ? "an empty string names no file: give a path (relative to the sweep file)" : "";
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
    case Kind::kPower: {
      if (!n.is_string()) return "expected a power string like \"500W\"";
      v->text = n.as_string()->get();
      StatusOr<double> q = ParseQuantity(v->text, Dimension::kPower);
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
    case Kind::kLauncher: {
      if (!n.is_string()) return fmt::format("expected a launcher name (modelled: {})", model::LauncherNames());
      v->text = n.as_string()->get();
      const std::optional<model::Launcher> l = model::ParseLauncher(v->text);
      if (!l) return fmt::format("unknown launcher \"{}\" (modelled: {})", v->text, model::LauncherNames());
      v->number = static_cast<double>(static_cast<int>(*l));
      return "";
    }
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
  // A file's errors after the place of the axis value that named it.
  auto referred = [&](const std::string& message) {
    return Status::Error(fmt::format("{}: [axes] {}: {}", Where(file, item), key, message));
  };
  if (key == "topology") {
    StatusOr<TopologyFile> t = LoadTopology(fs, ResolvePath(file, v.text));
    if (!t.ok()) return referred(t.status().message());
    StatusOr<model::Calibration> cal = LoadCalibration(fs, t->calibration_path);
    if (!cal.ok()) return referred(fmt::format("{}: {}", t->calibration_place, cal.status().message()));
    // The base scenario's software generation (loaded before the axes), in this topology's calibration.
    if (!model::SelectSoftware(&cal.value(), s->base.software)) {
      return Status::Error(fmt::format("{}: [axes] {}: {}: the calibration {} holds no software generation \"{}\" "
                                       "(the base scenario's [runtime] software; it holds: {})",
                                       Where(file, item), key, v.text, t->calibration_path, s->base.software,
                                       model::SoftwareNames(*cal)));
    }
    v.file = static_cast<int>(s->topologies.size());
    const StatusOr<std::string> cal_text = fs.Read(t->calibration_path);  // read once more for its hash
    s->topology_calibration_files.push_back({t->calibration_path, cal_text.ok() ? HashBytes(*cal_text) : ""});
    s->topologies.emplace_back(std::move(t).value(), std::move(cal).value());
  } else if (key == "model") {
    StatusOr<ModelFile> m = LoadModel(fs, ResolvePath(file, v.text));
    if (!m.ok()) return referred(m.status().message());
    v.file = static_cast<int>(s->models.size());
    s->models.push_back(std::move(m).value());
  }
  return v;
}

}  // namespace

const model::PriceModel& PriceOf(const SweepSpec& s, const model::ClusterSpec& c) {
  const auto it = s.price_by_gpu.find(c.gpu.name);
  return it == s.price_by_gpu.end() ? s.price : it->second;
}

const AxisTarget& AxisTargetOf(const std::string& key) {
  static const AxisTarget kNone;
  const auto rule = AxisRules().find(key);
  return rule == AxisRules().end() ? kNone : rule->second.target;
}

const std::vector<std::string>& SweepAxisKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& [name, rule] : AxisRules()) k.push_back(name);
    return k;
  }();
  return keys;
}

StatusOr<SweepSpec> ParseSweep(const FileSource& fs, const std::string& path) {
  StatusOr<TomlFile> doc = ReadTomlFile(fs, path);
  if (!doc.ok()) return doc.status();

  Status status;
  SweepSpec s;
  s.file = doc->file;
  TableReader root(&doc.value().table, path, "", &status);
  s.name = root.String("name");
  s.description = root.OptionalString("description").value_or("");
  const std::string base = root.FileName("base");
  s.train_tokens = root.CountOr("train_tokens", 0, 0);
  if (!status.ok()) return status;
  // The base is checked point by point as each will run (study/sweep_grid.h MakePoint), not on its own
  // topology: an axis may make it runnable (hpZ 16 with gpus_per_node = 16).
  StatusOr<Scenario> sc = LoadScenario(fs, ResolvePath(path, base), {.check_configuration = false});
  if (!sc.ok()) return root.Referred("base", sc.status());
  s.base = std::move(sc).value();
  // A sweep or a plan times each point's training iteration (study/sweep_point.cc, study/plan_search.cc): an
  // RLHF base ([rlhf], evaluated by phase: model/report/rlhf_evaluate.h) would be timed as plain training, its
  // phases dropped without a word (issue 39). Refused at the base's [rlhf] until sweeps evaluate by phase.
  if (s.base.rlhf) {
    const std::string base_path = ResolvePath(path, base);
    StatusOr<TomlFile> b = ReadTomlFile(fs, base_path);
    const toml::node* at = b.ok() ? b->table.get("rlhf") : nullptr;
    return Status::Error(fmt::format(
        "{}: [rlhf]: sweeps and plans time training iterations, not RLHF phases: run an RLHF scenario with "
        "`zerosim run` (base of sweep {})",
        at != nullptr ? Where(base_path, *at) : base_path, path));
  }

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
    Axis axis{key, {}, Where(path, node)};
    for (const toml::node& item : *node.as_array()) {
      StatusOr<AxisValue> v = ReadAxisValue(fs, path, key, rule->second, item, &s);
      if (!v.ok()) return v.status();
      // A value given twice would run its points twice (and count them twice in a plan's ranking).
      for (const AxisValue& before : axis.values) {
        const bool same = rule->second.kind == Kind::kFile
                              ? before.text == v->text
                              : before.number == v->number && before.boolean == v->boolean;
        if (same) {
          return Status::Error(fmt::format("{}: [axes] {}: {} is given twice (as {}): each value once",
                                           Where(path, item), key, v->text, before.text));
        }
      }
      axis.values.push_back(std::move(v).value());
    }
    s.axes.push_back(std::move(axis));
  }

  // Axes that shape the schedule vary slowest, so that consecutive points share a schedule; the axes that
  // only change bandwidths vary fastest. Alphabetical within each group.
  std::stable_partition(s.axes.begin(), s.axes.end(), [](const Axis& a) {
    return a.key != "nic.bandwidth" && a.key != "nic.count" && a.key != "intra.bandwidth" &&
           a.key != "fabric.oversubscription" && a.key != "gpu.power_limit";
  });

  // [constraints]
  if (const toml::node* c = doc->table.get("constraints"); c != nullptr) {
    s.constraints_where = Where(path, *c);
  }
  if (std::optional<TableReader> c = root.OptionalTable("constraints")) {
    s.total_gpus = static_cast<int>(c->IntOr("total_gpus", 0, 1, model::kMaxGpus));
    s.min_total_gpus = static_cast<int>(c->IntOr("min_total_gpus", 0, 1, model::kMaxGpus));
    s.max_total_gpus = static_cast<int>(c->IntOr("max_total_gpus", 0, 1, model::kMaxGpus));
    c->Finish();
  }

  // [cost] (model/io/prices.h): a price for the GPU of every cluster the sweep can make (the base's and each
  // topology axis value's).
  if (std::optional<TableReader> cost = root.OptionalTable("cost")) {
    s.has_price = true;
    std::vector<PricedGpu> gpus{{s.base.cluster.gpu.name, s.base.topology_file.path}};
    for (const auto& [t, cal] : s.topologies) gpus.push_back({t.cluster.gpu.name, t.file.path});
    const toml::table* raw = doc->table.get_as<toml::table>("cost");
    StatusOr<SweepPrices> prices = ReadSweepPrices(fs, path, &*cost, *raw, gpus, &status);
    if (!prices.ok()) return prices.status();
    s.price = prices->common;
    s.price_by_gpu = std::move(prices->by_gpu);
    s.price_table_file = prices->table_file;
    cost->Finish();
  }
  // [goodput] (model/spec/goodput.h): each key defaults to its published value.
  if (std::optional<TableReader> g = root.OptionalTable("goodput")) {
    model::GoodputOptions& o = s.goodput;
    o.enabled = g->BoolOr("enabled", o.enabled);
    o.interruptions_per_gpu_hour = g->NumberOr("interruptions_per_gpu_hour", o.interruptions_per_gpu_hour, 0, 1);
    o.restart_s = g->QuantityOr("restart", Dimension::kTime, o.restart_s, false);
    o.checkpoint_write_Bps_per_gpu =
        g->QuantityOr("checkpoint_write_bandwidth", Dimension::kBandwidth, o.checkpoint_write_Bps_per_gpu, true);
    g->Finish();
  }
  root.Finish();
  if (!status.ok()) return status;
  return s;
}

StatusOr<SweepSpec> ParseSettings(const FileSource& fs, const Scenario& base, const std::vector<std::string>& settings) {
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
    s.axes.push_back(Axis{key, {std::move(v).value()}, ""});
  }
  return s;
}

}  // namespace zerosim::io
