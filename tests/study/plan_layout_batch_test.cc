// Interleaved pipelines are searched whatever the base scenario's accumulation (issue 38 item 4): a layout trains
// the run of the variant as written (its sequences per step on data parallelism alone, or --global-batch), so its
// accumulation is searched, never a filter. On the README's layout plan (scenarios/procurement/
// llama70b_h100_layouts.sweep.toml, Llama-3.1-70B on DGX H100, accumulation 1 as written) the search finds TP8 PP4
// interleaved, and it beats TP8 PP4 1F1B.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "study/plan_search.h"
#include "study/sweep_grid.h"

namespace zerosim::study {
namespace {

const std::string kSource = ZEROSIM_SOURCE_DIR;

// The README's layout plan narrowed to `nodes` nodes.
io::SweepSpec LayoutSweep(int nodes) {
  StatusOr<io::SweepSpec> s =
      LoadSweep(io::DiskFileSource(), kSource + "/scenarios/procurement/llama70b_h100_layouts.sweep.toml");
  EXPECT_TRUE(s.ok()) << s.status().message();
  io::SweepSpec spec = *s;
  for (io::Axis& a : spec.axes) {
    if (a.key != "nodes") continue;
    a.values.resize(1);
    a.values[0].number = nodes;
    a.values[0].text = std::to_string(nodes);
  }
  EXPECT_TRUE(ExpandSweep(&spec).ok());
  return spec;
}

const PlanLayoutBest* Find(const PlanChoice& c, int t, int p, int v) {
  const auto it = std::find_if(c.layouts.begin(), c.layouts.end(), [&](const PlanLayoutBest& b) {
    return b.layout.tensor == t && b.layout.pipeline == p && b.layout.virtual_stages == v;
  });
  return it == c.layouts.end() ? nullptr : &*it;
}

TEST(PlanLayoutBatchTest, InterleavingIsSearchedWhateverTheWrittenAccumulationAndBeats1F1B) {
  const io::SweepSpec spec = LayoutSweep(64);  // 512 H100
  for (bool search_batch : {false, true}) {
    PlanOptions o;
    o.search_layout = true;
    o.search_batch = search_batch;
    StatusOr<Plan> plan = PlanSweep(spec, o);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    ASSERT_EQ(plan->choices.size(), 1u);
    const PlanChoice& c = plan->choices[0];
    const PlanLayoutBest* interleaved = Find(c, 8, 4, 2);
    const PlanLayoutBest* one_f_one_b = Find(c, 8, 4, 1);
    ASSERT_NE(interleaved, nullptr) << "search_batch " << search_batch;
    ASSERT_NE(one_f_one_b, nullptr) << "search_batch " << search_batch;
    EXPECT_GT(interleaved->tokens_per_s, one_f_one_b->tokens_per_s) << interleaved->setting;
    // The same run: the variant as written trains 1 x 1 x 512 sequences per step; TP8 PP4 has 16 data-parallel
    // ranks, so micro-batch x accumulation = 32 (" b<micro>x<accumulation>" in the name).
    for (const PlanLayoutBest* b : {interleaved, one_f_one_b}) {
      const size_t at = b->setting.rfind(" b");
      ASSERT_NE(at, std::string::npos) << b->setting;
      int micro = 0, steps = 0;
      ASSERT_EQ(std::sscanf(b->setting.c_str() + at, " b%dx%d", &micro, &steps), 2) << b->setting;
      EXPECT_EQ(micro * steps, 32) << b->setting;
    }
  }
}

}  // namespace
}  // namespace zerosim::study
