// Engine: what times a schedule on a cluster. The one interface the compositions are written against (a plain
// variant's schedule, a pipeline's stages and sends: pipeline_evaluate.h ComposePipeline; an RLHF run's
// phases: rlhf_evaluate.h EvaluateRlhfVariant), implemented by the analytic engine (AnalyticEngine, here) and
// the SimGrid replay (sim/sim_evaluate.h SimEngine, which keeps its process isolation to itself). A
// composition asks an engine for times and bytes and never which engine it is, beyond the name it reports.
#pragma once

#include "model/analytic/analytic.h"
#include "model/placement/traffic.h"
#include "model/schedule/schedule.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/parallel_layout.h"
#include "model/status.h"

namespace zerosim::model {

// What an engine says about one schedule.
struct TimedSchedule {
  Timing timing;        // with every op's start and finish where asked for (Timing::start_s, finish_s)
  TierVolumes volumes;  // the bytes per tier the engine carried (the schedule's own for the analytic engine)
};

class Engine {
 public:
  virtual ~Engine() = default;
  // The name the reports carry: "analytic" or "sim".
  virtual const char* name() const = 0;
  // Schedule `s` (built for `c`'s shape: its nodes and GPUs per node) timed on cluster `c` (the whole
  // cluster, or a pipeline stage's nodes). `timeline`: the timing holds every op's start and finish (the
  // replay always gives them).
  virtual StatusOr<TimedSchedule> Time(const Schedule& s, const ClusterSpec& c, bool timeline) = 0;
  // One send of `bytes` per rank from each stage of layout `l` to the next on cluster `c`, every rank of the
  // stages sending at once (the 1F1B steady state), seconds.
  virtual StatusOr<double> SendSeconds(double bytes, const ClusterSpec& c, const ParallelLayout& l) = 0;
};

// The analytic engine (analytic.h EvaluateAnalytic; WireVolumes for the bytes; pipeline_evaluate.h
// P2pSeconds for the sends): it cannot fail. Holds a reference to `cal`, which must outlive it.
class AnalyticEngine final : public Engine {
 public:
  explicit AnalyticEngine(const Calibration& cal) : cal_(cal) {}
  const char* name() const override { return "analytic"; }
  StatusOr<TimedSchedule> Time(const Schedule& s, const ClusterSpec& c, bool timeline) override;
  StatusOr<double> SendSeconds(double bytes, const ClusterSpec& c, const ParallelLayout& l) override;

 private:
  const Calibration& cal_;
};

}  // namespace zerosim::model
