#include <array>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "model/enum_names.h"
#include "model/io/ds_config.h"
#include "model/io/hf_config.h"
#include "model/io/loaders.h"
#include "model/io/parallel_keys.h"
#include "model/io/perturbation_loader.h"
#include "model/io/rlhf_loader.h"
#include "model/io/table_reader.h"
#include "model/io/zero_keys.h"
#include "model/spec/feasibility.h"
#include "model/spec/gpu_power.h"
#include "model/spec/validate.h"

namespace zerosim::io {
namespace {

// A problem keyed by its entry's path in the scenario file ("perturbations.slow_node.0.node",
// "rlhf.answer_len": tables and array indices, then the key), reported at that key of that table. False
// when the path names no table of `doc` (the problem's key is a plain one).
bool FailAtEntry(const toml::table& doc, const std::string& path, const model::Problem& p, Status* status) {
  const size_t last = p.key.rfind('.');
  if (last == std::string::npos) return false;
  const toml::node* at = &doc;
  size_t begin = 0;
  while (begin < last && at != nullptr) {
    const size_t end = p.key.find('.', begin);
    const std::string part = p.key.substr(begin, end - begin);
    if (const toml::array* list = at->as_array()) {
      const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
      at = index ? list->get(static_cast<size_t>(std::stoul(part))) : nullptr;
    } else if (const toml::table* table = at->as_table()) {
      at = table->get(part);
    } else {
      at = nullptr;
    }
    begin = end + 1;
  }
  if (at == nullptr || !at->is_table()) return false;
  TableReader(at->as_table(), path, p.key.substr(0, last), status).Fail(p.key.substr(last + 1), p.message);
  return true;
}

// The keys of model::CheckModel's problems: sizes a model file gives.
bool IsModelSizeKey(const std::string& key) {
  for (const char* k : {"layers", "hidden", "heads", "ffn_hidden", "vocab", "max_position_embeddings"}) {
    if (key == k) return true;
  }
  return false;
}

bool HasVariant(const Scenario& s, const std::string& name) {
  for (const Variant& v : s.variants) {
    if (v.name == name) return true;
  }
  return false;
}

// [[expect]] tables: published numbers to reproduce.
void ReadExpectations(TableReader* root, const toml::table& doc, const std::string& path, Scenario& s,
                      Status* status) {
  root->MarkKnown("expect");
  const toml::node* list = doc.get("expect");
  if (list == nullptr) return;
  if (!list->is_array_of_tables()) {
    root->Fail("expect", "expected [[expect]] tables");
    return;
  }
  int i = 0;
  for (const toml::node& e : *list->as_array()) {
    TableReader et(e.as_table(), path, fmt::format("expect.{}", i++), status);
    Expectation x;
    x.line = static_cast<int>(e.source().begin.line);
    x.variant = et.String("variant");
    const std::string metric = et.String("metric");
    x.value = et.NumberOr("value", 0, 1e-12, 1e12);
    if (!et.Has("value")) et.Count("value", 0);  // report it missing
    x.tolerance = et.NumberOr("tolerance", 0, 0, 10);
    if (!et.Has("tolerance")) et.Count("tolerance", 0);
    x.source = et.String("source");
    if (metric == "tflops_per_gpu") {
      x.metric = Metric::kTflopsPerGpu;
    } else if (metric == "speedup") {
      x.metric = Metric::kSpeedup;
      x.baseline = et.String("baseline");
    } else if (metric == "cross_node_volume_M") {
      x.metric = Metric::kCrossNodeVolumeM;
    } else if (metric == "tokens_per_s_per_gpu") {
      x.metric = Metric::kTokensPerSPerGpu;
    } else if (metric == "peak_reserved_GiB") {
      x.metric = Metric::kPeakReservedGiB;
    } else if (status->ok()) {
      et.Fail("metric", fmt::format(
                            "unknown metric \"{}\" (tflops_per_gpu, speedup, cross_node_volume_M, tokens_per_s_per_gpu, "
                            "peak_reserved_GiB)",
                            metric));
    }
    x.config = et.OptionalString("config").value_or("");
    x.phase = et.OptionalString("phase").value_or("");
    if (!x.phase.empty() && status->ok()) {
      if (!s.rlhf) {
        et.Fail("phase", "phase applies to RLHF scenarios only (an [rlhf] section)");
      } else if (x.phase != "generation" && x.phase != "experience" && x.phase != "training" && x.phase != "sft") {
        et.Fail("phase", fmt::format("unknown phase \"{}\" (generation, experience, training, sft)", x.phase));
      } else if (x.metric != Metric::kSpeedup) {
        et.Fail("phase", "a phase expectation compares throughputs: metric must be \"speedup\"");
      }
    }
    if (status->ok() && !HasVariant(s, x.variant)) et.Fail("variant", fmt::format("no variant named \"{}\"", x.variant));
    if (status->ok() && !x.baseline.empty() && !HasVariant(s, x.baseline)) {
      et.Fail("baseline", fmt::format("no variant named \"{}\"", x.baseline));
    }
    et.Finish();
    s.expectations.push_back(std::move(x));
  }
}

}  // namespace

const char* MetricName(Metric m) {
  constexpr std::array<const char*, 5> kNames = {"tflops_per_gpu", "speedup", "cross_node_volume_M",
                                                 "tokens_per_s_per_gpu", "peak_reserved_GiB"};
  return model::NameOf(kNames, m);
}

StatusOr<Scenario> LoadScenario(const FileSource& fs, const std::string& path, const LoadOptions& options) {
  StatusOr<TomlFile> doc = ReadTomlFile(fs, path);
  if (!doc.ok()) return doc.status();

  Status status;
  Scenario s;
  s.scenario_file = doc->file;
  TableReader root(&doc.value().table, path, "", &status);
  s.name = root.String("name");
  s.description = root.OptionalString("description").value_or("");
  s.group = root.OptionalString("group").value_or("");
  const std::string topology_rel = root.FileName("topology");
  const std::string model_rel = root.FileName("model");
  if (!status.ok()) return status;

  // The referenced files: their own errors name their own paths, after the key that named them.
  StatusOr<TopologyFile> topo = LoadTopology(fs, ResolvePath(path, topology_rel));
  if (!topo.ok()) return root.Referred("topology", topo.status());
  // `model = "hf:config.json"` names a Hugging Face config instead of a model TOML (model/io/hf_config.h).
  const bool hf = model_rel.rfind(kHfModelPrefix, 0) == 0;
  StatusOr<ModelFile> model = hf ? LoadHfConfig(fs, ResolvePath(path, model_rel.substr(3)))
                                 : LoadModel(fs, ResolvePath(path, model_rel));
  if (!model.ok()) return root.Referred("model", model.status());
  StatusOr<model::Calibration> cal = LoadCalibration(fs, topo->calibration_path);
  if (!cal.ok()) {
    return root.Referred("topology", Status::Error(fmt::format("{}: {}", topo->calibration_place,
                                                                cal.status().message())));
  }
  s.cluster = topo->cluster;
  s.topology_cluster_name = topo->cluster.name;
  s.topology_nodes = topo->cluster.nodes;
  // `nodes`: a run on part of the topology's cluster (the same nodes, NICs, fabric and fitted NCCL
  // efficiencies), so that one topology file holds each cluster's facts once.
  if (root.Has("nodes")) {
    s.cluster.nodes = static_cast<int>(root.Int("nodes", 1, model::kMaxNodes));
    if (const std::string beyond =
            NodesBeyondTopology(s.cluster.nodes, topo->cluster.nodes, topo->cluster.name);
        !beyond.empty()) {
      root.Fail("nodes", beyond);
    }
    s.cluster.name = PartClusterName(topo->cluster.name, s.cluster.nodes);
    for (const model::Problem& p : model::CheckCluster(s.cluster)) {
      root.Fail("nodes", fmt::format("{} nodes of '{}': {}", s.cluster.nodes, topo->cluster.name, p.message));
    }
    if (!status.ok()) return status;
  }
  s.calibration = *cal;
  // The calibration's device copy (read + write bytes counted) cannot beat the GPU's memory bandwidth: a file that
  // claims so describes another GPU (issue 20 item 23: [gpu] hbm_bandwidth was parsed and used nowhere).
  if (s.calibration.copy_Bps > s.cluster.gpu.hbm_Bps * (1 + 1e-9)) {
    root.Fail("topology", fmt::format("{}: the calibration {} copies at {:.4g} GB/s, more than the [gpu] hbm_bandwidth "
                                      "{:.4g} GB/s of its GPU: the two describe different GPUs",
                                      topology_rel, topo->calibration_path, s.calibration.copy_Bps / 1e9,
                                      s.cluster.gpu.hbm_Bps / 1e9));
    return status;
  }
  s.model_source = model->source;
  s.topology_file = topo->file;
  s.model_file = model->file;
  s.calibration_file = {topo->calibration_path, HashBytes(*fs.Read(topo->calibration_path))};

  // [training]: seq_len and the micro-batch are required here; variants may override them.
  model::ModelSpec base_model = model->model;
  model::ZeroConfig base_zero;
  RuntimeKeys runtime_keys;
  ApplyRuntime(runtime_keys, &base_zero);
  if (std::optional<TableReader> runtime = root.OptionalTable("runtime")) {
    runtime_keys = ReadRuntimeKeys(&*runtime, &base_zero);
    s.software = runtime_keys.software;
    if (status.ok() && !model::SelectSoftware(&s.calibration, s.software)) {
      runtime->Fail("software", fmt::format("the calibration {} holds no software generation \"{}\" (it holds: {})",
                                            topo->calibration_path, s.software, model::SoftwareNames(s.calibration)));
    }
    runtime->Finish();
    // framework = "fsdp" makes FULL_SHARD the scenario's default strategy (DeepSpeed's is zero3).
    if (runtime_keys.framework == model::Framework::kFsdp)
      base_zero.strategy = model::Strategy::kFsdpFullShard;
  }
  // deepspeed_config = "ds_config.json": DeepSpeed's own config sets the training and ZeRO keys (and the
  // dtype); [training] and [zero] keys, where given, override it.
  const std::optional<std::string> ds_rel = root.OptionalFileName("deepspeed_config");
  std::optional<DsConfig> ds_config;  // its train_batch_size is checked against each variant
  if (ds_rel && status.ok()) {
    StatusOr<DsConfig> ds = LoadDsConfig(fs, ResolvePath(path, *ds_rel), base_zero);
    if (!ds.ok()) return root.Referred("deepspeed_config", ds.status());
    ds_config = *ds;
    base_zero = ds->zero;
    if (ds->dtype) base_model.dtype = *ds->dtype;
    s.deepspeed_config_file = ds->file;
    s.ignored_config_keys = ds->ignored;
  }
  TableReader training = root.Table("training");
  if (!training.Has("seq_len")) training.Int("seq_len", 1);
  if (!ds_rel && !training.Has("tokens_per_gpu") && !training.Has("train_micro_batch_size_per_gpu")) {
    training.Fail("tokens_per_gpu", "missing: give tokens_per_gpu or train_micro_batch_size_per_gpu");
  }
  if (!ds_rel && !training.Has("activation_checkpointing") && !training.Has("recompute")) {
    training.Bool("activation_checkpointing");
  }
  ReadTrainingKeys(&training, &base_model, &base_zero);
  training.Finish();

  std::optional<TableReader> zero;
  if (!ds_rel || root.Has("zero")) {
    zero.emplace(root.Table("zero"));
    if (!ds_rel && !zero->Has("stage") && !zero->Has("strategy") && !model::IsFsdp(base_zero.strategy)) {
      zero->Int("stage", 3);
    }
    base_zero = ReadZeroKeys(&*zero, base_zero);
    zero->Finish();
  }
  ApplyRuntime(runtime_keys, &base_zero);
  // [parallel]: tensor and pipeline parallelism (model/spec/parallel_layout.h); variants may override its
  // keys.
  model::ParallelLayout base_parallel;
  std::optional<TableReader> parallel = root.OptionalTable("parallel");
  if (parallel) {
    base_parallel = ReadParallelKeys(&*parallel, base_parallel);
    parallel->Finish();
  }
  // The tables a problem's key is looked for in, the variant's first (ReportProblems).
  auto tables = [&](TableReader* variant) {
    std::vector<TableReader*> t;
    if (variant != nullptr) t.push_back(variant);
    t.push_back(&training);
    if (zero) t.push_back(&*zero);
    if (parallel) t.push_back(&*parallel);
    return t;
  };
  // Read before the variants: each variant is validated with them (model::Validate).
  s.rlhf = ReadRlhf(&root, fs, path, base_model, &status);
  s.perturbations = ReadPerturbations(&root, doc->table, path, &status);
  // The one check of each variant as written (model/spec/validate.h), its problems reported at the key that
  // set them (ReportProblems: the variant's table, then [training], [zero], [parallel]; the model's sizes at
  // `model`; a perturbation's or [rlhf]'s at its entry; a deepspeed_config's at `deepspeed_config`). That
  // the engines do not model t > 1 or p > 1 yet is the evaluation's answer (kNotModelled), not an error.
  auto check = [&](const Variant& var, TableReader* vt) {
    if (!status.ok() || !options.check_configuration) return;
    std::vector<model::Problem> problems = ValidateVariant(s, var);
    std::vector<model::Problem> rest;
    for (model::Problem& p : problems) {
      if (p.kind == model::ProblemKind::kNotModelled) continue;
      // Name the calibration file: the key that chose it is the topology's.
      if (p.kind == model::ProblemKind::kCalibration)
        p.message += fmt::format(" ({})", topo->calibration_path);
      if (!FailAtEntry(doc->table, path, p, &status)) rest.push_back(std::move(p));
    }
    // A key no table gives: a size of the model file, or a setting the deepspeed_config gave.
    const bool model_size = rest.empty() || IsModelSizeKey(rest.front().key);
    TableReader* fallback = vt->Has("model") ? vt : &root;
    // A size of the scenario's model file is named with the file ("model: m.toml: hidden: ...").
    if (!vt->Has("model") && !ds_rel) {
      for (model::Problem& p : rest) {
        if (IsModelSizeKey(p.key)) p.key = fmt::format("{}: {}", model_rel, p.key);
      }
    }
    ReportProblems(rest, tables(vt), fallback, ds_rel && !model_size ? "deepspeed_config" : "model");
  };

  const toml::node* variants = doc->table.get("variant");
  root.MarkKnown("variant");
  if (variants == nullptr || !variants->is_array_of_tables() || variants->as_array()->empty()) {
    if (status.ok()) {
      root.Fail("variant", "a scenario needs at least one [[variant]] table (e.g. name = \"ZeRO-3\")");
    }
  } else {
    std::set<std::string> names;
    for (const toml::node& v : *variants->as_array()) {
      TableReader vt(v.as_table(), path, fmt::format("variant.{}", names.size()), &status);
      Variant var;
      var.name = vt.String("name");
      var.model = base_model;
      if (std::optional<std::string> own = vt.OptionalFileName("model"); own && status.ok()) {
        // A variant may use another model; the scenario's training settings still apply.
        StatusOr<ModelFile> m = LoadModel(fs, ResolvePath(path, *own));
        if (!m.ok()) return vt.Referred("model", m.status());
        var.model = m->model;
        var.model.seq_len = base_model.seq_len;
        var.model.attention = base_model.attention;  // [training] attention is a training setting too
      }
      var.zero = ReadZeroKeys(&vt, base_zero);
      ApplyRuntime(runtime_keys, &var.zero);
      ReadTrainingKeys(&vt, &var.model, &var.zero);
      var.parallel = ReadParallelKeys(&vt, base_parallel);
      check(var, &vt);
      if (ds_config && status.ok()) {
        if (Status st = CheckDsTrainBatch(*ds_config, var.zero, var.parallel, s.cluster); !st.ok()) {
          return root.Referred("deepspeed_config", st);
        }
      }
      if (!names.insert(var.name).second) vt.Fail("name", fmt::format("two variants are named \"{}\"", var.name));
      vt.Finish();
      s.variants.push_back(std::move(var));
    }
  }
  ReadExpectations(&root, doc->table, path, s, &status);
  root.Finish();
  if (!status.ok()) return status;
  return s;
}

std::string PartClusterName(const std::string& topology_name, int nodes) {
  return fmt::format("{}, {} of its nodes", topology_name, nodes);
}

std::string NodesBeyondTopology(int nodes, int topology_nodes, const std::string& topology_name) {
  if (nodes <= topology_nodes) return "";
  return fmt::format(
      "{} nodes: more than the {} nodes of '{}' (a scenario's nodes run on part of its topology's "
      "cluster; a sweep's nodes axis scales it)",
      nodes, topology_nodes, topology_name);
}

model::Configuration ConfigurationOf(const Scenario& s, const Variant& v) {
  return ConfigurationOf(s, v, s.cluster, s.calibration);
}

model::Configuration ConfigurationOf(const Scenario& s, const Variant& v, const model::ClusterSpec& cluster,
                                     const model::Calibration& calibration) {
  return {.model = v.model,
          .zero = v.zero,
          .cluster = cluster,
          .calibration = calibration,
          .layout = v.parallel,
          .perturbations = &s.perturbations,
          .rlhf = s.rlhf ? &*s.rlhf : nullptr};
}

std::vector<model::Problem> ValidateVariant(const Scenario& s, const Variant& v) {
  return model::Validate(ConfigurationOf(s, v));
}

std::vector<model::Problem> ValidateVariant(const Scenario& s, const Variant& v,
                                            const model::ClusterSpec& cluster,
                                            const model::Calibration& calibration) {
  return model::Validate(ConfigurationOf(s, v, cluster, calibration));
}

model::Provenance ScenarioProvenance(const Scenario& s) {
  model::Provenance p;
  p.scenario = s.scenario_file;
  p.topology = s.topology_file;
  p.model = s.model_file;
  p.calibration = s.calibration_file;
  p.calibration_gpu = s.calibration.gpu;
  p.calibration_source = s.calibration.source;
  p.calibration_provenance = s.calibration.provenance;
  p.gemm_efficiency_source = s.calibration.compute.source;
  p.fp8_gemm_efficiency_source = s.calibration.compute.fp8_gemm_source;
  p.power_model = model::PowerModelText(s.cluster.gpu, s.calibration.compute.power_limit_W);
  p.deepspeed_config = s.deepspeed_config_file;
  p.ignored_config_keys = s.ignored_config_keys;
  return p;
}

}  // namespace zerosim::io
