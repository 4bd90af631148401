// Prices where the hardware is: a price table keyed by GPU (topologies/prices.toml: per GPU kind the on-demand
// price per GPU-hour, the capital expense per GPU and the power per GPU, each with its source and date), and a
// sweep's [cost] table, which names the table, picks the basis (rent or own) and may override any price, for
// every GPU or for one (docs/sweeps.md "Cost"). A sweep over several GPU kinds (a `topology` axis) then prices
// each cluster at its own GPU's price, so one plan ranks H100, H200 and B200 clusters against each other.
//
// Resolution per GPU, first found wins: the sweep's [cost.gpu."NAME"] key, the sweep's flat key (one price for
// every GPU, as before price tables), the table's entry. Errors name the file, line and key: a GPU of the sweep
// without a price for the basis, a [cost.gpu] entry for a GPU no cluster of the sweep has, a negative price.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "model/io/file_source.h"
#include "model/io/table_reader.h"
#include "model/spec/cost.h"
#include "model/status.h"

namespace zerosim::io {

// One GPU kind's prices, each with where it comes from ("" when absent). A price of 0 is "not given".
struct GpuPrice {
  double gpu_hour_usd = 0;       // rent: on-demand price per GPU-hour
  std::string gpu_hour_source;   // the published price it comes from, with its date
  double capex_per_gpu_usd = 0;  // own: a GPU with its share of the server
  std::string capex_source;
  double power_per_gpu_w = 0;  // own: a GPU with its share of the server, at full load
  std::string power_source;
};

struct PriceTable {
  std::map<std::string, GpuPrice> gpus;  // by the topology's [gpu] name
  model::InputFile file;
};

// Reads a price table file: `[gpu."NAME"]` tables with the keys of GpuPrice (`gpu_hour_usd` and
// `gpu_hour_source`, `capex_per_gpu_usd` and `capex_source`, `power_per_gpu_w` and `power_source`); a price
// needs its source. Errors name file, line and key.
StatusOr<PriceTable> LoadPriceTable(const FileSource& fs, const std::string& path);

// A GPU a sweep's clusters use: its name and the topology file it comes from (for messages).
struct PricedGpu {
  std::string name;
  std::string topology;
};

// The prices of a sweep, resolved: the common part (`common`: basis, amortization, PUE, energy, NIC and port
// prices, and the flat prices when given) and one PriceModel per GPU of `gpus`.
struct SweepPrices {
  model::PriceModel common;
  std::map<std::string, model::PriceModel> by_gpu;
  model::InputFile table_file;  // the price table named by `prices` (empty path: none)
};

// Reads the sweep file's [cost] table `cost` (`raw`: the same table as TOML, for the tables keyed by
// bandwidth or GPU name; `status`: the Status `cost` records its errors in) from sweep file `path`, and resolves
// a price for every GPU of `gpus`.
StatusOr<SweepPrices> ReadSweepPrices(const FileSource& fs, const std::string& path, TableReader* cost,
                                      const toml::table& raw, const std::vector<PricedGpu>& gpus, Status* status);

}  // namespace zerosim::io
