// The analytic report of the embedded default scenario, for the report-format tests.
#pragma once

#include <gtest/gtest.h>

#include "model/io/embedded.h"
#include "model/io/loaders.h"
#include "model/report/evaluate.h"

namespace zerosim::io {

inline model::Report DefaultReport() {
  StatusOr<Scenario> s = LoadScenario(MemoryFileSource(EmbeddedFiles()), kDefaultScenario);
  EXPECT_TRUE(s.ok()) << s.status().message();
  model::Report r;
  r.provenance = ScenarioProvenance(*s);
  r.scenario_name = s->name;
  r.cluster = s->cluster;
  r.model = s->variants.front().model;
  for (const Variant& v : s->variants) {
    r.variants.push_back(
        model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, s->cluster, s->calibration}));
  }
  return r;
}

}  // namespace zerosim::io
