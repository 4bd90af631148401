// The band on every answer: how far a throughput or time can be trusted, from the out-of-sample residuals of
// the validation points the variant resembles (DESIGN.md, "Time"). A band key is GPU family x framework
// [x tp] x regime (compute- or communication-bound); its parents drop the last word ("A100 deepspeed comm" ->
// "A100 deepspeed" -> "A100" -> "", every point). `zerosim validate --write-bands` computes a group for every
// key and every parent from the points' out-of-sample ratios (a calibration-set point's simulated value is its
// leave-one-model-size-out prediction, study/loo_record.h; every other point is validation evidence the model
// was never fitted on) into kernels/calibration/bands.json, compiled into the binary.
//
// Factors multiply a throughput: the published value of a group's points lay between `low` and `high` times
// the simulated one for the central 90% of them (5th and 95th percentiles of published / simulated). A time
// is divided by them (the band of the iteration time is [t / high, t / low]).
//
// The headline: where a band excludes 1 the model is biased there (every published point of the group lies on
// one side of it) and the value a user reads is the calibrated expectation, the model's value times the
// group's median ratio (`Band::center`); elsewhere it is the model's own value (center 1). Either way the
// headline lies inside its band (HeadlineInsideBand checks it for every row).
#pragma once

#include <string>
#include <vector>

namespace zerosim::model {

// Below this share of the iteration exposed, a variant is compute-bound; above, communication-bound.
inline constexpr double kComputeBoundExposedShare = 0.15;

struct BandGroup {
  std::string key;      // "A100 fsdp compute", a parent "A100 fsdp", or "" (every point)
  int n = 0;            // out-of-sample points behind it
  double low = 1;       // published / simulated, 5th percentile
  double high = 1;      // 95th percentile
  std::string sources;  // the validation groups its points come from
  double median = 1;    // published / simulated, median
};

struct BandTable {
  std::vector<BandGroup> groups;
  // Off the calibrated ground (a GPU whose compute is derived from another family's fit, or a family no point
  // validates): the band widened by this factor on each side (low / widen, high x widen). Written by
  // `validate --write-bands` as the spread between software generations of one GPU (BandTable's writer says
  // how it was measured).
  double derived_widening = 1.1;
  // A key with fewer out-of-sample points than this takes its parent's band (DESIGN.md: no narrow band from a
  // handful of points).
  int min_points = 10;
};

// The band a variant gets.
struct Band {
  std::string group;  // the group it was taken from ("" when none applies; "all" stands for every point)
  std::string key;    // the variant's own key
  int n = 0;
  double low = 1;
  double high = 1;
  bool validated = false;  // its own key is a group of at least min_points points, on calibrated ground
  std::string note;        // how it was chosen, when not its own group
  // The headline's factor on the model's value: the group's median ratio where the band excludes 1, else 1.
  double center = 1;
};

// "A100", "H100", "V100", ...: the GPU's family, the first letters-and-digits of its name ("A100-SXM4-80GB").
std::string GpuFamily(const std::string& gpu_name);

// "<family> <software> <framework> <compute|comm>", or "<family> <software> <framework> tp <compute|comm>" for a
// variant with tensor parallelism (`tensor_parallel`): Megatron-style runs are their own groups, never mixed with
// the data-parallel runs of the same framework. `software` is the calibration's software generation
// (Calibration::compute.software, e.g. "megatron-core-2025"; kUnstatedSoftware when empty): the model's bias is a
// property of the stack it was fitted on, so a 2023-stack run's band never centres on a 2025 stack's residuals
// while each has its own points (a key with too few falls back to "<family> <software>", then "<family>").
std::string BandKey(const std::string& gpu_family, const std::string& software, const std::string& framework,
                    bool tensor_parallel, double exposed_comm_s, double iteration_time_s);

// The software word of a key whose calibration names no generation.
inline constexpr const char* kUnstatedSoftware = "unstated-software";

// The key with its last word dropped ("A100 pytorch-2.1 fsdp compute" -> "A100 pytorch-2.1 fsdp", "A100" -> "");
// "" for "".
std::string ParentBandKey(const std::string& key);

// The band for `key`: the first of the key and its parents whose group holds at least table.min_points points.
// For a GPU whose compute is derived from another family's fit (`derived_from`, e.g. "H100" for an H200) the
// key's own group is used only when it has enough points; otherwise, for a compute-bound key, the source
// family's chain (its compute residuals transfer, its networks' do not), else the key's own parents, widened by
// BandTable::derived_widening either way. A family no group knows gets every point's band, widened. A band that
// excludes 1 centres the headline on the group's median ratio (Band::center).
Band BandFor(const BandTable& table, const std::string& key, const std::string& derived_from = "");

// The groups of every key of `ratios` (published / simulated per point, with each point's validation group
// name) and of every parent of those keys: one entry per distinct key ("" for every point).
struct BandPoint {
  std::string key;
  std::string source;  // the validation group it belongs to
  double ratio = 1;    // published / simulated, out of sample
};
std::vector<BandGroup> BuildBandGroups(const std::vector<BandPoint>& points);

// The 5th and 95th percentiles of `ratios` (linear interpolation between order statistics); n < 2 gives
// the single value or 1.
void RatioPercentiles(std::vector<double> ratios, double* low, double* high);
// The median of `ratios` (1 when empty).
double RatioMedian(std::vector<double> ratios);

// Whether a throughput `value` printed as the headline (value x band.center) lies in [value x low, value x
// high] within a relative 1e-9: the band invariant every row satisfies.
bool HeadlineInsideBand(const Band& band);

}  // namespace zerosim::model
