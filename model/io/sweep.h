// Sweeps: a base scenario and axes whose Cartesian product (with constraints) gives the points to
// evaluate, plus the prices that turn throughput into cost. Format: docs/sweeps.md.
//
// Points are numbered 0..n-1 in a fixed order: the axes that shape the schedule (files, sizes, training
// and ZeRO keys) first, then those that only change bandwidths (nic.bandwidth, nic.count, intra.bandwidth,
// fabric.oversubscription), alphabetical within each group, the last axis varying fastest; points failing
// a constraint are dropped. A point is a cluster and the base scenario's
// variants with the axis values applied; a combination that cannot run (an hpZ size that does not divide
// the GPUs per node, NICs that do not divide them) is still a point, marked infeasible with the reason.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/cost.h"
#include "model/io/loaders.h"

namespace zerosim::io {

struct AxisValue {
  std::string text;   // as written, for the output rows ("400Gbps", "true", "8")
  double number = 0;  // numbers, and parsed quantities (SI)
  bool boolean = false;
  int file = -1;      // topology and model axes: index into SweepSpec::topologies / models
};

struct Axis {
  std::string key;
  std::vector<AxisValue> values;
};

struct SweepSpec {
  std::string name;
  std::string description;
  Scenario base;
  std::vector<Axis> axes;  // in enumeration order (see above)
  std::vector<std::pair<TopologyFile, model::Calibration>> topologies;
  std::vector<model::InputFile> topology_calibration_files;  // the calibration file of each of `topologies`
  std::vector<ModelFile> models;
  int total_gpus = 0;      // constraint: 0 = none
  int min_total_gpus = 0;
  int max_total_gpus = 0;
  bool has_price = false;
  model::PriceModel price;
  double train_tokens = 0;
  model::InputFile file;
  std::vector<size_t> product_index;  // for each point, its index in the unconstrained product
};

// A sweep's axes may span at most this many points (its point index takes 8 bytes a point).
inline constexpr size_t kMaxSweepPoints = 10000000;

StatusOr<SweepSpec> LoadSweep(const FileSource& fs, const std::string& path);

struct SweepPoint {
  size_t index = 0;
  std::vector<std::pair<std::string, std::string>> axes;  // key, value text
  model::ClusterSpec cluster;
  model::Calibration calibration;
  std::vector<Variant> variants;
  std::string infeasible;  // non-empty: why the point cannot run
  // The files the point's numbers come from (the base scenario's unless a topology or model axis chose
  // another), for the rows' provenance.
  model::InputFile topology_file;
  model::InputFile model_file;
  model::InputFile calibration_file;
};

size_t PointCount(const SweepSpec& s);
SweepPoint MakePoint(const SweepSpec& s, size_t index);

// `base` with one-parameter what-ifs applied: each setting "KEY=VALUE" is a sweep axis with that single
// value (the same keys, parsing and checks; files relative to the working directory), e.g.
// "nic.bandwidth=200Gbps", "nodes=48", "zero_quantized_gradients=false". The scenario's name records them.
// Errors: an unknown key, a bad value, a key given twice, a combination that cannot run.
StatusOr<Scenario> ApplySettings(const FileSource& fs, const Scenario& base, const std::vector<std::string>& settings);

// The axis keys a sweep may use (docs/sweeps.md).
const std::vector<std::string>& SweepAxisKeys();

}  // namespace zerosim::io
