#include "study/least_squares.h"

#include <algorithm>
#include <cmath>

namespace zerosim::study {
namespace {

std::vector<double> Clamp(const std::vector<double>& x, const std::vector<FitParameter>& p) {
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = std::clamp(x[i], p[i].lower, p[i].upper);
  return out;
}

Eigen::MatrixXd Jacobian(const ResidualFunction& r, const std::vector<double>& x, const Eigen::VectorXd& r0,
                         const std::vector<FitParameter>& p) {
  Eigen::MatrixXd j(r0.size(), static_cast<Eigen::Index>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double range = p[i].upper - p[i].lower;
    double h = 1e-6 * std::max(std::abs(x[i]), 1e-3 * range);
    if (x[i] + h > p[i].upper) h = -h;  // step inward at the upper bound
    std::vector<double> xh = x;
    xh[i] += h;
    j.col(static_cast<Eigen::Index>(i)) = (r(xh) - r0) / h;
  }
  return j;
}

}  // namespace

FitResult FitLeastSquares(const ResidualFunction& r, std::vector<FitParameter> params, int max_iterations,
                          double tolerance) {
  std::vector<double> x;
  for (const FitParameter& p : params) x.push_back(p.value);
  x = Clamp(x, params);
  Eigen::VectorXd res = r(x);
  double cost = res.squaredNorm();
  double lambda = 1e-3;
  FitResult out;
  Eigen::MatrixXd jac;
  for (out.iterations = 0; out.iterations < max_iterations; ++out.iterations) {
    jac = Jacobian(r, x, res, params);
    const Eigen::MatrixXd jtj = jac.transpose() * jac;
    const Eigen::VectorXd g = jac.transpose() * res;
    bool improved = false;
    for (int tries = 0; tries < 20 && !improved; ++tries) {
      Eigen::MatrixXd a = jtj;
      a.diagonal() += lambda * jtj.diagonal().cwiseMax(1e-12);
      const Eigen::VectorXd step = a.ldlt().solve(-g);
      std::vector<double> xn = x;
      for (size_t i = 0; i < x.size(); ++i) xn[i] += step(static_cast<Eigen::Index>(i));
      xn = Clamp(xn, params);
      const Eigen::VectorXd rn = r(xn);
      const double cn = rn.squaredNorm();
      if (cn < cost) {
        const double change = (cost - cn) / std::max(cost, 1e-300);
        x = xn;
        res = rn;
        cost = cn;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (change < tolerance) out.converged = true;
      } else {
        lambda *= 10;
      }
    }
    if (!improved) out.converged = true;  // no descent direction left: a (local) minimum
    if (out.converged) break;
  }
  for (size_t i = 0; i < x.size(); ++i) params[i].value = x[i];
  out.params = params;
  out.residuals = res;
  out.cost = cost;
  // Standard errors from the Gauss-Newton covariance sigma^2 (J^T J)^-1.
  jac = Jacobian(r, x, res, params);
  const Eigen::Index n = res.size(), k = static_cast<Eigen::Index>(x.size());
  const double sigma2 = n > k ? cost / static_cast<double>(n - k) : 0;
  const Eigen::MatrixXd cov =
      (jac.transpose() * jac).completeOrthogonalDecomposition().pseudoInverse() * sigma2;
  for (Eigen::Index i = 0; i < k; ++i) out.std_errors.push_back(std::sqrt(std::max(0.0, cov(i, i))));
  return out;
}

}  // namespace zerosim::study
