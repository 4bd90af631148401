// Sweep files: a base scenario and axes whose Cartesian product (with constraints) gives the points to
// evaluate, plus the prices that turn throughput into cost. Format: docs/sweeps.md. This is the parser
// only: it reads and checks the file (every axis value with the same ranges the loaders use) into a
// SweepSpec; expanding the grid into points, materialising a point and judging its feasibility are the
// study's (study/sweep_grid.h).
//
// Axes are kept in enumeration order: the axes that shape the schedule (files, sizes, training and ZeRO
// keys) first, then those that only change bandwidths (nic.bandwidth, nic.count, intra.bandwidth,
// fabric.oversubscription), alphabetical within each group.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/io/loaders.h"
#include "model/spec/cost.h"
#include "model/spec/goodput.h"

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
  std::string
      where;  // "file:line:column" of the axis in the sweep file, for messages ("" for a --set setting)
};

struct SweepSpec {
  std::string name;
  std::string description;
  Scenario base;
  std::vector<Axis> axes;  // in enumeration order (see above)
  std::vector<std::pair<TopologyFile, model::Calibration>> topologies;
  std::vector<model::InputFile> topology_calibration_files;  // the calibration file of each of `topologies`
  std::vector<ModelFile> models;
  std::string constraints_where;  // "file:line:column" of [constraints], for messages
  int total_gpus = 0;      // constraint: 0 = none
  int min_total_gpus = 0;
  int max_total_gpus = 0;
  bool has_price = false;
  // [cost] (model/io/prices.h): what every GPU shares (basis, amortization, PUE, NIC and port prices), and the
  // resolved price of each GPU the sweep's clusters use, by [gpu] name (PriceOf picks a cluster's).
  model::PriceModel price;
  std::map<std::string, model::PriceModel> price_by_gpu;
  model::InputFile price_table_file;  // the price table [cost] `prices` names (empty path: none)
  // [goodput] (model/spec/goodput.h): interruptions, restart and checkpoint writes, for plan's effective days and
  // cost; the published defaults when the sweep has no [goodput].
  model::GoodputOptions goodput;
  double train_tokens = 0;
  model::InputFile file;
  // For each point, its index in the unconstrained product: empty after ParseSweep, filled by
  // study::ExpandSweep (study/sweep_grid.h).
  std::vector<size_t> product_index;
};

// A sweep's axes may span at most this many points (its point index takes 8 bytes a point).
inline constexpr size_t kMaxSweepPoints = 10000000;

// The prices of cluster `c` of sweep `s`: its GPU's (price_by_gpu), else the sweep's common ones.
const model::PriceModel& PriceOf(const SweepSpec& s, const model::ClusterSpec& c);

// Reads and checks the sweep file `path` and the files it names (base scenario, topology and model axes).
// Errors name the file, line and key. The grid is not expanded (product_index stays empty).
StatusOr<SweepSpec> ParseSweep(const FileSource& fs, const std::string& path);

// The one-parameter what-ifs "KEY=VALUE" (each a sweep axis with that single value: the same keys, parsing
// and checks; files relative to the working directory) as a sweep over `base` with one-value axes; its
// grid is not expanded. Errors: an unknown key, a bad value, a key given twice.
StatusOr<SweepSpec> ParseSettings(const FileSource& fs, const Scenario& base, const std::vector<std::string>& settings);

// Where an axis's value goes: a field of the cluster, or a field of every variant (one of the two). The
// axes and their targets are one list (sweep.cc AxisRules): a new axis is one entry there.
using ClusterSetter = std::function<void(const AxisValue& v, model::ClusterSpec* c)>;
using VariantSetter = std::function<void(const AxisValue& v, Variant* var)>;
struct AxisTarget {
  ClusterSetter cluster = nullptr;
  VariantSetter variant = nullptr;
};

// The target of axis `key`; empty for `topology` and `model` (they name files) and `tokens_per_gpu` (it
// depends on the sequence length), which study/sweep_grid.cc applies itself, and for unknown keys.
// A reference into the axes' one list (no copy of its setters per point).
const AxisTarget& AxisTargetOf(const std::string& key);

// The axis keys a sweep may use (docs/sweeps.md).
const std::vector<std::string>& SweepAxisKeys();

}  // namespace zerosim::io
