#include "study/sweep_point.h"

#include <fmt/format.h>

#include "model/io/band_loader.h"
#include "model/report/invariants.h"
#include "sim/sim_evaluate.h"
#include "study/bands.h"
#include "study/scenario_runner.h"

namespace zerosim::study {

StatusOr<std::vector<model::VariantReport>> EvaluatePoint(const SweepPoint& p, model::ScheduleCache* cache,
                                                          bool sim, const sim::SimOptions& sim_options) {
  std::vector<model::VariantReport> out;
  const char* engine = sim ? "sim" : "analytic";
  for (size_t i = 0; i < p.variants.size(); ++i) {
    const io::Variant& v = p.variants[i];
    std::string why = !p.infeasible.empty()             ? p.infeasible
                      : i < p.variant_infeasible.size() ? p.variant_infeasible[i]
                                                        : p.infeasible;
    if (why.empty() && sim) why = sim::NotReplayed(v.parallel, sim_options);
    if (!why.empty()) {
      out.push_back(InfeasibleVariant(v.name, engine, v.model, v.zero, why, v.parallel));
      continue;
    }
    if (sim) {
      StatusOr<model::VariantReport> r = sim::EvaluateSimVariant(
          v.name, {v.model, v.zero, p.cluster, p.calibration, v.parallel}, sim_options, nullptr);
      if (!r.ok())
        return Status::Error(fmt::format("point {}, {}: {}", p.index, v.name, r.status().message()));
      out.push_back(std::move(r).value());
    } else {
      out.push_back(model::EvaluateAnalyticVariant(
          v.name, {v.model, v.zero, p.cluster, p.calibration, v.parallel}, cache));
    }
    if (Status st = model::InvariantStatus(fmt::format("sweep point {}", p.index), out.back()); !st.ok())
      return st;
  }
  model::Report bands;  // the band of each variant (study/bands.h), by the point's cluster
  bands.cluster = p.cluster;
  bands.variants = std::move(out);
  if (Status st = AttachBands(io::ShippedBands(), p.calibration, &bands); !st.ok()) return st;
  return std::move(bands.variants);
}

}  // namespace zerosim::study
