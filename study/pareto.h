// Pareto front of (throughput, cost): the points no other point beats on both (at least as fast and at
// most as expensive, better on one).
#pragma once

#include <vector>

namespace zerosim::study {

struct TradeOff {
  double throughput = 0;  // larger is better
  double cost = 0;        // smaller is better
};

// Indices of the non-dominated points, by increasing cost (ties: higher throughput first).
std::vector<int> ParetoFront(const std::vector<TradeOff>& points);

}  // namespace zerosim::study
