// Loaders for ZeroSim's input files. Formats and every key: docs/inputs.md. Each loader is strict:
// unknown keys, missing keys, wrong units and impossible values are errors naming file, line and key.
//
//   topologies/*.toml            -> ClusterSpec (+ the GPU's calibration file)
//   scenarios/models/*.toml      -> ModelSpec (seq_len comes from the scenario)
//   kernels/calibration/*.json   -> Calibration
//   scenarios/**/*.toml          -> Scenario: a topology, a model, training settings, a base ZeRO config
//                                   and the variants to compare
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/io/file_source.h"
#include "model/report/report.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/configuration.h"
#include "model/spec/feasibility.h"
#include "model/spec/model_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/spec/perturbations.h"
#include "model/spec/rlhf_spec.h"
#include "model/spec/zero_config.h"
#include "model/status.h"

namespace zerosim::io {

struct TopologyFile {
  model::ClusterSpec cluster;
  std::string calibration_path;   // resolved against the topology file
  std::string calibration_place;  // "file:line:col: [gpu] calibration", for errors of the calibration file
  model::InputFile file;
};
StatusOr<TopologyFile> LoadTopology(const FileSource& fs, const std::string& path);

struct ModelFile {
  model::ModelSpec model;  // seq_len = 0 until a scenario sets it
  std::string source;      // where the shape comes from
  model::InputFile file;
};
StatusOr<ModelFile> LoadModel(const FileSource& fs, const std::string& path);

StatusOr<model::Calibration> LoadCalibration(const FileSource& fs, const std::string& path);
// The same from text (the loader's core; `path` is used in messages and provenance).
StatusOr<model::Calibration> ParseCalibration(const std::string& text, const std::string& path);

struct Variant {
  std::string name;
  model::ModelSpec model;  // the scenario's (or the variant's own) model with its training settings
  model::ZeroConfig zero;
  // `[parallel]` with the variant's own keys over it (model/io/parallel_keys.h): tensor and pipeline
  // parallelism beside the data parallelism of `zero`. Checked with it (model::Validate).
  model::ParallelLayout parallel;
};

// A published number a scenario must reproduce (`zerosim validate`).
enum class Metric {
  kTflopsPerGpu,      // "tflops_per_gpu"
  kSpeedup,           // "speedup": baseline's iteration time over the variant's
  kCrossNodeVolumeM,  // "cross_node_volume_M": cross-node bytes per node per iteration, in units of M
                      // (the model's fp16 size)
  kTokensPerSPerGpu,  // "tokens_per_s_per_gpu": training tokens per second per GPU (needs no FLOPs formula)
  kPeakReservedGiB,   // "peak_reserved_GiB": the caching allocator's peak reserved memory per GPU in GiB
                      // (torch.cuda.max_memory_reserved(); model/report/memory.h reserved_bytes)
};
const char* MetricName(Metric m);

struct Expectation {
  std::string variant;
  std::string baseline;  // speedup only: the variant it is relative to
  Metric metric = Metric::kTflopsPerGpu;
  double value = 0;      // published
  double tolerance = 0;  // allowed relative error
  std::string source;    // the figure or table it comes from
  // Optional: the configuration apart from the cluster size (model, batch, sequence); points of one group with
  // equal configs form a scaling check (most against fewest GPUs).
  std::string config;
  // Optional, RLHF scenarios: the phase whose per-GPU throughput the speedup compares ("generation", "training",
  // "experience", "sft"); the metric must be "speedup".
  std::string phase;
  int line = 0;          // in the scenario file
};

struct Scenario {
  std::string name;
  std::string description;
  // Optional: the validation group its expectations are summarised in (e.g. "FSDP A100 (llm-foundry)"); the
  // scenario's directory name when absent.
  std::string group;
  model::ClusterSpec cluster;
  // The topology file's own cluster: its name and node count (`cluster` may run on part of it, the scenario's
  // `nodes`; `--set nodes` takes the same range, and relabels a part: PartClusterName).
  std::string topology_cluster_name;
  int topology_nodes = 0;
  model::Calibration calibration;  // with the software generation `software` selected
  // `[runtime] software`: the calibration's software generation the scenario runs (empty: the file's default);
  // a sweep that swaps the topology selects it again in the new topology's calibration.
  std::string software;
  std::string model_source;
  std::vector<Variant> variants;
  std::vector<Expectation> expectations;
  model::Perturbations perturbations;  // [perturbations] (perturbation_loader.h): the sim engine only
  model::InputFile scenario_file;
  model::InputFile topology_file;
  model::InputFile model_file;
  model::InputFile calibration_file;
  // `deepspeed_config = "..."` (model/io/ds_config.h): the file, and the JSON paths of its keys ZeroSim does
  // not model, for the report's provenance. Empty without one.
  model::InputFile deepspeed_config_file;
  std::vector<std::string> ignored_config_keys;
  // `[rlhf]` (model/io/rlhf_loader.h): the scenario is DeepSpeed-Chat's RLHF; every variant is evaluated by phase.
  std::optional<model::RlhfSpec> rlhf;
};
struct LoadOptions {
  // true: the configuration (model, ZeRO settings, cluster, calibration: model::Validate) is checked
  // as written, its problems are file:line errors. false: only the syntax, the keys and their ranges are;
  // for a caller that applies what-ifs first (`--set`, a sweep's axes, `--ds-config`, `--model`) and then
  // checks the configuration as it will run (issue 20 item 21: hpZ 16 with `--set gpus_per_node=16`).
  bool check_configuration = true;
};
StatusOr<Scenario> LoadScenario(const FileSource& fs, const std::string& path, const LoadOptions& options = {});

// The name of a cluster that runs on `nodes` of a topology's cluster named `topology_name`:
// "<topology_name>, <nodes> of its nodes" (a scenario's `nodes`, and `--set nodes` over it).
std::string PartClusterName(const std::string& topology_name, int nodes);
// The error for `nodes` beyond the `topology_nodes` of the topology's cluster `topology_name` (the scenario's
// `nodes` key and `--set nodes` alike); empty when it is within them.
std::string NodesBeyondTopology(int nodes, int topology_nodes, const std::string& topology_name);

// The provenance fields a scenario fixes (files, hashes, calibration); version and engine are added by
// the caller.
model::Provenance ScenarioProvenance(const Scenario& s);

// Variant `v` as it runs in `s` (or on `cluster` with `calibration`, a sweep point's): its model, settings
// and layout with the scenario's perturbations and RLHF phases. A view of its arguments, which must outlive
// it.
model::Configuration ConfigurationOf(const Scenario& s, const Variant& v);
model::Configuration ConfigurationOf(const Scenario& s, const Variant& v, const model::ClusterSpec& cluster,
                                     const model::Calibration& calibration);

// model::Validate on variant `v` as it runs in `s` (or on `cluster` with `calibration`, a sweep point's):
// with the scenario's perturbations and RLHF phases.
std::vector<model::Problem> ValidateVariant(const Scenario& s, const Variant& v);
std::vector<model::Problem> ValidateVariant(const Scenario& s, const Variant& v,
                                            const model::ClusterSpec& cluster,
                                            const model::Calibration& calibration);

}  // namespace zerosim::io
