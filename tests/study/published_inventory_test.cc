// The published-run inventory zerosim validate prints: counts of cases run exactly, approximated and not
// run, with reasons, only for the scenarios validated.
#include <gtest/gtest.h>

#include "study/published_inventory.h"

namespace zerosim::study {
namespace {

constexpr const char* kInventory = R"({"cases": [
  {"id": "a", "run": true, "scenario": "one.toml", "variant": "a", "approximations": []},
  {"id": "b", "run": true, "scenario": "one.toml", "variant": "b", "approximations": ["tensor parallelism"]},
  {"id": "c", "run": true, "scenario": "two.toml", "variant": "c", "approximations": []},
  {"id": "d", "run": false, "reason": "qualitative only"},
  {"id": "e", "run": false, "reason": "qualitative only"}]})";

TEST(PublishedInventory, CountsExactApproximatedAndNotRun) {
  StatusOr<std::string> s =
      FormatPublishedInventory(kInventory, "cases.json", {"scenarios/published/one.toml"});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_NE(
      s->find("5 cases): 1 ran without approximation, 1 ran with approximations, 2 cannot run, 1 not among"),
      std::string::npos)
      << *s;
  EXPECT_NE(s->find("  1  tensor parallelism"), std::string::npos) << *s;
  EXPECT_NE(s->find("  2  qualitative only"), std::string::npos) << *s;
}

TEST(PublishedInventory, MalformedIsAnError) {
  EXPECT_FALSE(FormatPublishedInventory("[1, 2]", "cases.json", {}).ok());
  EXPECT_FALSE(FormatPublishedInventory(R"({"cases": [{"id": "x"}]})", "cases.json", {}).ok());
}

}  // namespace
}  // namespace zerosim::study
