#include <set>

#include <fmt/format.h>

#include "model/io/loaders.h"
#include "model/io/table_reader.h"
#include "model/io/zero_keys.h"

namespace zerosim::io {

StatusOr<Scenario> LoadScenario(const FileSource& fs, const std::string& path) {
  StatusOr<std::string> text = fs.Read(path);
  if (!text.ok()) return text.status();
  StatusOr<toml::table> doc = ParseToml(*text, path);
  if (!doc.ok()) return doc.status();

  Status status;
  Scenario s;
  s.scenario_file = {path, HashBytes(*text)};
  TableReader root(&doc.value(), path, "", &status);
  s.name = root.String("name");
  s.description = root.OptionalString("description").value_or("");
  const std::string topology_rel = root.String("topology");
  const std::string model_rel = root.String("model");
  if (!status.ok()) return status;

  // The referenced files: their own errors name their own paths.
  StatusOr<TopologyFile> topo = LoadTopology(fs, ResolvePath(path, topology_rel));
  if (!topo.ok()) return topo.status();
  StatusOr<ModelFile> model = LoadModel(fs, ResolvePath(path, model_rel));
  if (!model.ok()) return model.status();
  StatusOr<model::Calibration> cal = LoadCalibration(fs, topo->calibration_path);
  if (!cal.ok()) return cal.status();
  s.cluster = topo->cluster;
  s.calibration = *cal;
  s.model_source = model->source;
  s.topology_file = topo->file;
  s.model_file = model->file;
  s.calibration_file = {topo->calibration_path, HashBytes(*fs.Read(topo->calibration_path))};

  // [training]: seq_len and the micro-batch are required here; variants may override them.
  model::ModelSpec base_model = model->model;
  model::ZeroConfig base_zero;
  TableReader training = root.Table("training");
  if (!training.Has("seq_len")) training.Int("seq_len", 1);
  if (!training.Has("tokens_per_gpu") && !training.Has("train_micro_batch_size_per_gpu")) {
    training.Fail("tokens_per_gpu", "missing: give tokens_per_gpu or train_micro_batch_size_per_gpu");
  }
  if (!training.Has("activation_checkpointing")) training.Bool("activation_checkpointing");
  ReadTrainingKeys(&training, &base_model, &base_zero);
  CheckTraining(&training, base_model);
  training.Finish();

  TableReader zero = root.Table("zero");
  if (!zero.Has("stage")) zero.Int("stage", 3);
  base_zero = ReadZeroKeys(&zero, base_zero, s.cluster);
  zero.Finish();

  const toml::node* variants = doc->get("variant");
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
      var.zero = ReadZeroKeys(&vt, base_zero, s.cluster);
      ReadTrainingKeys(&vt, &var.model, &var.zero);
      CheckTraining(&vt, var.model);
      if (!names.insert(var.name).second) vt.Fail("name", fmt::format("two variants are named \"{}\"", var.name));
      vt.Finish();
      s.variants.push_back(std::move(var));
    }
  }
  root.Finish();
  if (!status.ok()) return status;
  return s;
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
  p.gemm_efficiency_source = s.calibration.gemm.source;
  return p;
}

}  // namespace zerosim::io
