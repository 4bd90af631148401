#include "study/pareto.h"

#include <algorithm>
#include <numeric>

namespace zerosim::study {

std::vector<int> ParetoFront(const std::vector<TradeOff>& points) {
  std::vector<int> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const TradeOff& x = points[static_cast<size_t>(a)];
    const TradeOff& y = points[static_cast<size_t>(b)];
    if (x.cost != y.cost) return x.cost < y.cost;
    return x.throughput > y.throughput;
  });
  // Sweep by increasing cost: a point is on the front when it is faster than everything cheaper.
  std::vector<int> front;
  double best = -1;
  for (int i : order) {
    const double t = points[static_cast<size_t>(i)].throughput;
    if (t > best) {
      front.push_back(i);
      best = t;
    }
  }
  return front;
}

}  // namespace zerosim::study
