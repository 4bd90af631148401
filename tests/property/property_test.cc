// The property run in CI (issue 39): 500 random scenarios of every strategy, layout and fabric
// (property_draw.h), each feasible one checked against the properties of property_check.h, 12 of them also
// replayed on SimGrid (about a second in all). A failure prints each violated property's first cases;
// `./dev.sh property 5000` is the long run of the same properties (property_main.cc), and
// `build/tests/property_run --first N --cases 1 --write DIR` evaluates one case again and writes its files.
#include <gtest/gtest.h>

#include "property/property_check.h"

namespace zerosim::testing {
namespace {

TEST(PropertyRun, RandomScenariosOfEveryLayoutKeepEveryProperty) {
  PropertyOptions o;
  o.seed = 1;
  o.cases = 500;
  o.sim_cases = 12;
  const PropertyCounts c = RunProperties(o);
  EXPECT_EQ(c.total_violations(), 0) << FormatCounts(c);
  // The draw exercises the evaluation, not only the checks: most cases run, and every property is checked.
  EXPECT_GT(c.evaluated, c.drawn / 2) << FormatCounts(c);
  EXPECT_EQ(c.simulated, o.sim_cases) << FormatCounts(c);
  for (int p = 0; p < kPropertyCount; ++p) {
    EXPECT_GT(c.checked[p], 0) << PropertyName(static_cast<Property>(p)) << "\n" << FormatCounts(c);
  }
}

}  // namespace
}  // namespace zerosim::testing
