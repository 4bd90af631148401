// The fork boundary's encoding (sim/sim_result.h): a SimResult with every Timing quantity set to its own
// value comes back equal, quantity by quantity (the list, model/analytic/timing_fields.h, names every member
// of Timing: its build-time check); a name the list does not have, or one missing, is an error.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/analytic/timing_fields.h"
#include "sim/sim_result.h"

namespace zerosim::sim {
namespace {

// Every quantity its own value: scalar k is k + 1.5, series k holds (k + 1) values 100 (k + 1) + j
// (queue_busy_s: one per queue).
SimResult Filled() {
  SimResult r;
  double k = 0;
  for (const model::TimingScalar& f : model::TimingScalars()) f.ref(r.timing) = ++k + 0.5;
  size_t n = 0;
  for (const model::TimingSeries& f : model::TimingSeriesList()) {
    ++n;
    std::vector<double> v = f.get(r.timing);
    if (v.empty()) v.resize(n);
    for (size_t j = 0; j < v.size(); ++j) v[j] = 100.0 * static_cast<double>(n) + static_cast<double>(j);
    EXPECT_TRUE(f.set(r.timing, v)) << f.name;
  }
  r.volumes.cross_node[0] = 7;
  r.volumes.intra_node[3] = 9;
  r.stats.actors = 11;
  r.trace.push_back({1, 2, 3.0, 4.0});
  return r;
}

TEST(SimResultEncoding, EveryTimingQuantityRoundTrips) {
  const SimResult in = Filled();
  const StatusOr<SimResult> out = DeserializeSimResult(SerializeSimResult(in));
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::set<double> values;
  for (const model::TimingScalar& f : model::TimingScalars()) {
    EXPECT_EQ(f.Get(out->timing), f.Get(in.timing)) << f.name;
    EXPECT_NE(f.Get(out->timing), 0.0) << f.name;
    values.insert(f.Get(out->timing));
  }
  EXPECT_EQ(values.size(), model::TimingScalars().size()) << "two quantities share a member";
  for (const model::TimingSeries& f : model::TimingSeriesList()) {
    EXPECT_EQ(f.get(out->timing), f.get(in.timing)) << f.name;
    EXPECT_FALSE(f.get(out->timing).empty()) << f.name;
  }
  EXPECT_EQ(out->volumes.cross_node[0], 7);
  EXPECT_EQ(out->volumes.intra_node[3], 9);
  EXPECT_EQ(out->stats.actors, 11);
  ASSERT_EQ(out->trace.size(), 1u);
  EXPECT_EQ(out->trace[0].finish_s, 4.0);
}

TEST(SimResultEncoding, ListNamesAreUnique) {
  std::set<std::string> names;
  for (const model::TimingScalar& f : model::TimingScalars())
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
  for (const model::TimingSeries& f : model::TimingSeriesList())
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
}

// Replaces the first `from` in `bytes` with `to` (the same length: the encoding stays well formed).
std::string Renamed(std::string bytes, const std::string& from, const std::string& to) {
  const size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(from.size(), to.size());
  return bytes.replace(at, from.size(), to);
}

TEST(SimResultEncoding, UnknownNameIsAnError) {
  const StatusOr<SimResult> r =
      DeserializeSimResult(Renamed(SerializeSimResult(Filled()), "gpu_side_s", "gpu_sidX_s"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown Timing scalar 'gpu_sidX_s'"), std::string::npos)
      << r.status().message();
}

TEST(SimResultEncoding, RepeatedOrMissingNameIsAnError) {
  // "optimizer_s" renamed to "iteration_s": iteration_s twice, optimizer_s missing.
  const StatusOr<SimResult> r =
      DeserializeSimResult(Renamed(SerializeSimResult(Filled()), "optimizer_s", "iteration_s"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'iteration_s' given twice"), std::string::npos)
      << r.status().message();
}

TEST(SimResultEncoding, MissingNameIsAnError) {
  // The series count (the u32 before the first series' name length) lowered by one: finish_s is not read.
  std::string bytes = SerializeSimResult(Filled());
  const size_t name = bytes.find("queue_busy_s");
  ASSERT_NE(name, std::string::npos);
  ASSERT_EQ(bytes[name - 8], 3);
  bytes[name - 8] = 2;
  const StatusOr<SimResult> r = DeserializeSimResult(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'finish_s' missing"), std::string::npos) << r.status().message();
}

TEST(SimResultEncoding, TruncatedIsAnError) {
  const std::string bytes = SerializeSimResult(Filled());
  for (size_t n : {size_t{0}, size_t{3}, size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_FALSE(DeserializeSimResult(bytes.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(DeserializeSimResult(bytes + "x").ok());
}

}  // namespace
}  // namespace zerosim::sim
