#include "model/report/engine.h"

#include "model/cost/placed_collectives.h"
#include "model/report/pipeline_evaluate.h"

namespace zerosim::model {

StatusOr<TimedSchedule> AnalyticEngine::Time(const Schedule& s, const ClusterSpec& c, bool timeline) {
  return TimedSchedule{EvaluateAnalytic(s, c, cal_, timeline), WireVolumes(s, c)};
}

StatusOr<double> AnalyticEngine::SendSeconds(double bytes, const ClusterSpec& c, const ParallelLayout& l) {
  return P2pSeconds(bytes, c, l);
}

}  // namespace zerosim::model
