// Bounded nonlinear least squares (Levenberg-Marquardt with forward-difference Jacobians, Eigen), for
// fitting the few calibration parameters that `zerosim fit` may fit to published numbers.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace zerosim::study {

struct FitParameter {
  std::string name;
  double value = 0;  // initial guess; the fitted value on return
  double lower = 0;
  double upper = 0;
};

struct FitResult {
  std::vector<FitParameter> params;
  Eigen::VectorXd residuals;
  std::vector<double> std_errors;  // from (J^T J)^-1 scaled by the residual variance; 0 at a bound
  double cost = 0;                 // sum of squared residuals
  int iterations = 0;
  bool converged = false;
};

using ResidualFunction = std::function<Eigen::VectorXd(const std::vector<double>&)>;

// Minimises |r(x)|^2 over x within [lower, upper] (projected steps). Stops when a step changes the cost
// by less than `tolerance` relative, or after `max_iterations`.
FitResult FitLeastSquares(const ResidualFunction& r, std::vector<FitParameter> params,
                          int max_iterations = 100, double tolerance = 1e-10);

}  // namespace zerosim::study
