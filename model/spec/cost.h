// What a cluster costs to run, and what a training run costs on it. Either rent (a price per GPU-hour) or
// own (capital expense amortised over a period, plus power).
//
// Owned cluster, per hour:
//   capex = GPUs * gpu_usd + NICs * nic_usd(NIC bandwidth) + switch ports * port_usd(NIC bandwidth)
//   switch ports: one leaf port per NIC, plus for fat trees and rail-optimized fabrics the uplinks a
//   two-level tree needs: every leaf has NICs/oversubscription uplinks, each ending on a spine port
//   (ports = NICs * (1 + 2 / oversubscription); rail-optimized counts as oversubscription 1; a single
//   switch has none)
//   hourly = capex / amortization_hours + GPUs * power_per_gpu_w * pue / 1000 * energy_usd_per_kwh
// A training run of T tokens at R tokens/s takes T / R seconds and costs hourly * T / R / 3600.
#pragma once

#include <map>
#include <string>

#include "model/spec/cluster_spec.h"

namespace zerosim::model {

struct PriceModel {
  double gpu_hour_usd = 0;                          // rent: price per GPU-hour (used when > 0)
  double capex_per_gpu_usd = 0;                     // own: a GPU with its share of the server
  std::map<double, double> nic_usd_by_Bps;          // own: price per NIC, by NIC bandwidth
  std::map<double, double> switch_port_usd_by_Bps;  // own: price per switch port, by port bandwidth
  double amortization_s = 0;                        // own: depreciation period
  double power_per_gpu_w = 0;     // own: electrical power per GPU with its share of the server
  double pue = 1;                 // own: power usage effectiveness of the facility
  double energy_usd_per_kwh = 0;  // own
  // Where the GPU's price comes from (the price table's source and date, or the sweep's key), for the plan's
  // legend (model/io/prices.h); "" when not known.
  std::string source;
  bool rented() const { return gpu_hour_usd > 0; }
};

struct CostResult {
  double capex_usd = 0;  // 0 when rented
  double usd_per_hour = 0;
  double usd_per_million_tokens = 0;
  double time_to_train_s = 0;  // 0 when no token count is given
  double cost_to_train_usd = 0;
};

// Switch ports the cluster's fabric needs (see above).
double SwitchPorts(const ClusterSpec& c);

// Cost of running `c` at `tokens_per_s`; `train_tokens` > 0 adds the time and cost of a run. Prices for a
// NIC bandwidth missing from the tables make the result's capex NaN (the caller reports it).
CostResult EstimateCost(const ClusterSpec& c, const PriceModel& price, double tokens_per_s,
                        double train_tokens);

}  // namespace zerosim::model
