// The band on every answer: how far a throughput or time can be trusted, from the out-of-sample residuals of
// the validation group the variant belongs to (DESIGN.md, "Time"). A group is GPU family x framework x regime
// (compute- or communication-bound). `zerosim validate --write-bands` computes the table from every published
// point (kernels/calibration/bands.json, compiled into the binary); a variant outside every validated group
// gets the widest band and says so.
//
// Factors multiply a throughput: the published value of a group's points lay between `low` and `high` times
// the simulated one for the central 90% of them (5th and 95th percentiles of published / simulated). A time
// is divided by them (the band of the iteration time is [t / high, t / low]).
#pragma once

#include <string>
#include <vector>

namespace zerosim::model {

// Below this share of the iteration exposed, a variant is compute-bound; above, communication-bound.
inline constexpr double kComputeBoundExposedShare = 0.15;

struct BandGroup {
  std::string key;      // "A100 fsdp compute": BandKey's form
  int n = 0;            // out-of-sample points behind it
  double low = 1;       // published / simulated, 5th percentile
  double high = 1;      // 95th percentile
  std::string sources;  // the validation groups its points come from
};

struct BandTable {
  std::vector<BandGroup> groups;
  // GPUs whose compute is derived from a fitted one (calibration kind "derived" with an empirical source):
  // the source family's band widened by this factor on each side (low / widen, high x widen).
  double derived_widening = 1.1;
};

// The band a variant gets.
struct Band {
  std::string group;  // the group it was taken from ("" when none applies)
  std::string key;    // the variant's own key
  int n = 0;
  double low = 1;
  double high = 1;
  bool validated = false;  // its own key is a validated group
  std::string note;        // how it was chosen, when not its own group
};

// "A100", "H100", "V100", ...: the GPU's family, the first letters-and-digits of its name ("A100-SXM4-80GB").
std::string GpuFamily(const std::string& gpu_name);

// "<family> <framework> <compute|comm>", or "<family> <framework> tp <compute|comm>" for a variant with
// tensor parallelism (`tensor_parallel`): Megatron-style runs are their own groups, never mixed with the
// data- parallel runs of the same framework.
std::string BandKey(const std::string& gpu_family, const std::string& framework, bool tensor_parallel,
                    double exposed_comm_s, double iteration_time_s);

// The band for `key`: its own group when validated; for a GPU whose compute is derived from another family's
// fit (`derived_from`, e.g. "H100" for an H200), that family's group of the same framework and regime
// widened; else the widest band of the table (the lowest low and highest high of every group), marked as
// outside.
Band BandFor(const BandTable& table, const std::string& key, const std::string& derived_from = "");

// The 5th and 95th percentiles of `ratios` (linear interpolation between order statistics); n < 2 gives
// the single value or 1.
void RatioPercentiles(std::vector<double> ratios, double* low, double* high);

}  // namespace zerosim::model
