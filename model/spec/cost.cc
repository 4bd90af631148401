#include "model/spec/cost.h"

#include <limits>

namespace zerosim::model {
namespace {

double Lookup(const std::map<double, double>& table, double key) {
  const auto it = table.find(key);
  return it == table.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

}  // namespace

double SwitchPorts(const ClusterSpec& c) {
  const double nics = static_cast<double>(c.nodes) * c.nic.count;
  switch (c.fabric.kind) {
    case FabricKind::kSingleSwitch:
      return nics;
    case FabricKind::kFatTree:
      return nics * (1.0 + 2.0 / c.fabric.oversubscription);
    case FabricKind::kRailOptimized:
      return nics * 3.0;
  }
  return nics;
}

CostResult EstimateCost(const ClusterSpec& c, const PriceModel& price, double tokens_per_s,
                        double train_tokens) {
  CostResult r;
  const double gpus = c.total_gpus();
  if (price.rented()) {
    r.usd_per_hour = gpus * price.gpu_hour_usd;
  } else {
    const double nics = static_cast<double>(c.nodes) * c.nic.count;
    r.capex_usd = gpus * price.capex_per_gpu_usd + nics * Lookup(price.nic_usd_by_Bps, c.nic.bandwidth_Bps) +
                  SwitchPorts(c) * Lookup(price.switch_port_usd_by_Bps, c.nic.bandwidth_Bps);
    const double power_usd_per_hour =
        gpus * price.power_per_gpu_w * price.pue / 1000.0 * price.energy_usd_per_kwh;
    r.usd_per_hour = r.capex_usd / (price.amortization_s / 3600.0) + power_usd_per_hour;
  }
  if (tokens_per_s > 0) r.usd_per_million_tokens = r.usd_per_hour / 3600.0 / tokens_per_s * 1e6;
  if (train_tokens > 0 && tokens_per_s > 0) {
    r.time_to_train_s = train_tokens / tokens_per_s;
    r.cost_to_train_usd = r.usd_per_hour * r.time_to_train_s / 3600.0;
  }
  return r;
}

}  // namespace zerosim::model
