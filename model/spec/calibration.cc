#include "model/spec/calibration.h"

#include <array>

#include <Eigen/Dense>

#include "model/enum_names.h"

namespace zerosim::model {

const char* KernelName(Kernel kernel) {
  constexpr std::array<const char*, kNumKernels> kNames = {
      "quantize_int8",         "dequantize_int8",           "quantize_int4",      "dequantize_int4",
      "swizzle_quantize_int4", "dequant_reduce_quant_int4", "dequant_reduce_int4"};
  return NameOf(kNames, kernel);
}

bool SelectSoftware(Calibration* cal, const std::string& software) {
  if (cal->compute_sets.empty()) return software.empty() || software == cal->compute.software;
  if (software.empty()) {
    cal->compute = cal->compute_sets.front();
    return true;
  }
  for (const ComputeEfficiency& set : cal->compute_sets) {
    if (set.software == software) {
      cal->compute = set;
      return true;
    }
  }
  return false;
}

std::string SoftwareNames(const Calibration& cal) {
  std::string names;
  for (const ComputeEfficiency& set : cal.compute_sets) {
    if (!names.empty()) names += ", ";
    names += set.software.empty() ? "(unnamed)" : set.software;
  }
  return names.empty() ? cal.compute.software : names;
}

KernelFit FitKernel(const std::vector<KernelPoint>& points) {
  // t_i = alpha + x_i * (1/beta): linear least squares in (alpha, 1/beta).
  const auto n = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd t(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = 1.0;
    a(i, 1) = points[static_cast<size_t>(i)].bytes;
    t(i) = points[static_cast<size_t>(i)].seconds;
  }
  Eigen::Vector2d x = a.colPivHouseholderQr().solve(t);
  KernelFit fit;
  if (x(0) >= 0 && x(1) > 0) {
    fit.alpha_s = x(0);
    fit.beta_Bps = 1.0 / x(1);
    return fit;
  }
  // A negative intercept is noise at small sizes: fit the slope alone.
  const double slope = a.col(1).dot(t) / a.col(1).squaredNorm();
  fit.alpha_s = 0;
  fit.beta_Bps = slope > 0 ? 1.0 / slope : 0;
  return fit;
}

}  // namespace zerosim::model
