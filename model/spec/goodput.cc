#include "model/spec/goodput.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace zerosim::model {

double CheckpointBytes(const ModelSpec& m, const Precision& p) {
  // 16-bit weights (every ModelSpec dtype is 16-bit) plus the optimizer's master weights and moments.
  return TotalParams(m) * (2.0 + OptimizerStateBytesPerParam(p));
}

GoodputResult EstimateGoodput(const ModelSpec& m, const Precision& p, int64_t gpus, const GoodputOptions& o) {
  GoodputResult r;
  r.checkpoint_bytes = CheckpointBytes(m, p);
  const double n = static_cast<double>(gpus);
  if (!o.enabled || o.interruptions_per_gpu_hour <= 0 || n <= 0) return r;
  const double mtbi_s = 3600.0 / (o.interruptions_per_gpu_hour * n);
  r.mean_time_between_interruptions_s = mtbi_s;
  r.checkpoint_write_s = o.checkpoint_write_Bps_per_gpu > 0
                             ? r.checkpoint_bytes / (o.checkpoint_write_Bps_per_gpu * n)
                             : std::numeric_limits<double>::infinity();
  // Young's interval (Young 1974): sqrt(2 delta M).
  r.checkpoint_interval_s = std::sqrt(2.0 * r.checkpoint_write_s * mtbi_s);
  const double lost = r.checkpoint_interval_s > 0
                          ? r.checkpoint_write_s / r.checkpoint_interval_s +
                                (r.checkpoint_interval_s / 2.0 + o.restart_s) / mtbi_s
                          : o.restart_s / mtbi_s;
  r.goodput = std::isfinite(lost) ? std::clamp(1.0 - lost, 0.0, 1.0) : 0.0;
  return r;
}

}  // namespace zerosim::model
