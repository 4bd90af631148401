// The `sim` engine's entry point for a configuration: the schedule replayed on SimGrid (in a child
// process), assembled into the same VariantReport as the analytic engine (model/report/evaluate.h), with the
// bytes per tier SimGrid measured.
#pragma once

#include <string>

#include "model/report/engine.h"
#include "model/report/report.h"
#include "model/schedule/schedule.h"
#include "model/spec/calibration.h"
#include "model/spec/cluster_spec.h"
#include "model/spec/configuration.h"
#include "model/spec/model_spec.h"
#include "model/spec/zero_config.h"
#include "model/status.h"
#include "sim/sim_options.h"
#include "sim/sim_result.h"

namespace zerosim::sim {

// The schedule a variant replayed and what the replay produced (for traces and statistics).
struct SimRun {
  model::Schedule schedule;
  SimResult result;
};

// The SimGrid replay as a model::Engine (model/report/engine.h): each schedule replayed in its own process on a
// platform of the cluster it is given (SimulateIsolated, with `o`'s perturbations and settings), the sends of a
// pipeline's steady state on one of the whole cluster (pipeline_sends.h SimulateSendStepIsolated). Holds
// references to `cal` and `o`, which must outlive it.
class SimEngine final : public model::Engine {
 public:
  SimEngine(const model::Calibration& cal, const SimOptions& o) : cal_(cal), o_(o) {}
  const char* name() const override { return "sim"; }
  StatusOr<model::TimedSchedule> Time(const model::Schedule& s, const model::ClusterSpec& c, bool timeline) override;
  StatusOr<double> SendSeconds(double bytes, const model::ClusterSpec& c, const model::ParallelLayout& l) override;

 private:
  const model::Calibration& cal_;
  const SimOptions& o_;
};

// Why the replay does not run layout `l` with options `o` ("" when it does): a pipeline with perturbations
// (its stages are replayed on platforms of their own nodes, the middle ones as one: a slow node or a
// degraded link belongs to one stage). The caller reports the variant infeasible with the reason.
std::string NotReplayed(const model::ParallelLayout& l, const SimOptions& o);

// BuildSchedule (for the layout config.layout: one tensor-parallel rank's schedule) + SimulateIsolated +
// AssembleVariant (engine "sim"). `run`, if given, receives both. A pipelined layout (p > 1) is the pipeline
// composition (model/report/pipeline_evaluate.h ComposePipeline) of its stages' replays and of the sends'
// replay (pipeline_sends.h), each in its own process; `run` is left empty. An error for a layout NotReplayed
// refuses.
StatusOr<model::VariantReport> EvaluateSimVariant(const std::string& name, const model::Configuration& config,
                                                  const SimOptions& o, SimRun* run = nullptr);

// AssembleVariant (engine "sim") of one replay `r` of schedule `s`, with the link load SimGrid measured.
model::VariantReport SimVariantReport(const std::string& name, const model::ModelSpec& m, const model::ZeroConfig& z,
                                      const model::ClusterSpec& c, const model::Schedule& s, const SimResult& r);

// How the sim engine timed communication, for the report's provenance `network_model`.
std::string SimNetworkModel(const SimOptions& o);
// The user's SimGrid options as command-line words ("--cfg=KEY:VALUE", "--log=SETTING"), for the provenance.
std::vector<std::string> SimGridOptions(const SimOptions& o);

}  // namespace zerosim::sim
