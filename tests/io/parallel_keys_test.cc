// The layout's input keys as one list (model/io/parallel_keys.h ParallelKeys, issue 36 item 5): each key is
// read by the scenario loader and is a sweep axis / `--set` name with the same type and range, the two give a
// variant the same layout, and docs/inputs.md has a row for it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/io/parallel_keys.h"
#include "model/io/sweep.h"
#include "model/io/table_reader.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

// A [parallel] table of `lines` read over the default layout (ReadParallelKeys: syntax and ranges, no layout
// check); the error, if any, in `status`.
model::ParallelLayout Read(const std::string& lines, Status* status) {
  StatusOr<toml::table> table = ParseToml(lines, "s.toml");
  if (!table.ok()) {
    *status = table.status();
    return {};
  }
  TableReader reader(&*table, "s.toml", "parallel", status);
  const model::ParallelLayout l = ReadParallelKeys(&reader, {});
  reader.Finish();
  return l;
}

// A value of `k` inside its range, as TOML text and as a --set value.
std::string Inside(const ParallelKey& k) {
  switch (k.type) {
    case ParallelKey::Type::kBool:
      return "true";
    case ParallelKey::Type::kInt:
      return fmt::format("{}", static_cast<int64_t>(k.min) + 1);
    case ParallelKey::Type::kNumber:
      return fmt::format("{}", k.min + 0.5);
  }
  return "";
}

TEST(ParallelKeys, EveryKeyIsASweepAxisWithTheLoadersRangeAndTheSameEffect) {
  const std::vector<std::string>& axes = SweepAxisKeys();
  const MemoryFileSource fs(testing::InputFiles());
  StatusOr<Scenario> base = LoadScenario(fs, "s.toml");
  ASSERT_TRUE(base.ok()) << base.status().message();
  for (const ParallelKey& k : ParallelKeys()) {
    SCOPED_TRACE(k.key);
    EXPECT_NE(std::find(axes.begin(), axes.end(), k.key), axes.end()) << "not a sweep axis";
    // Inside the range: the file's value and the --set value reach the layout alike.
    const std::string value = Inside(k);
    Status file_status = Status::Ok();
    const model::ParallelLayout file = Read(fmt::format("{} = {}", k.key, value), &file_status);
    ASSERT_TRUE(file_status.ok()) << file_status.message();
    StatusOr<SweepSpec> set = ParseSettings(fs, *base, {fmt::format("{}={}", k.key, value)});
    ASSERT_TRUE(set.ok()) << set.status().message();
    ASSERT_EQ(set->axes.size(), 1u);
    Variant v = base->variants.front();
    ASSERT_NE(AxisTargetOf(k.key).variant, nullptr);
    AxisTargetOf(k.key).variant(set->axes[0].values[0], &v);
    EXPECT_EQ(v.parallel, file);
    EXPECT_NE(v.parallel, base->variants.front().parallel) << "the value changed nothing";
    if (k.type == ParallelKey::Type::kBool) continue;
    // Past the range's ends: refused by both, each naming the key.
    for (const double outside : {k.min - 1, k.max + 1}) {
      const std::string text = k.type == ParallelKey::Type::kInt
                                   ? fmt::format("{}", static_cast<int64_t>(outside))
                                   : fmt::format("{}", outside);
      Status bad_file = Status::Ok();
      Read(fmt::format("{} = {}", k.key, text), &bad_file);
      ASSERT_FALSE(bad_file.ok()) << text;
      EXPECT_NE(bad_file.message().find(k.key), std::string::npos) << bad_file.message();
      StatusOr<SweepSpec> bad_set = ParseSettings(fs, *base, {fmt::format("{}={}", k.key, text)});
      ASSERT_FALSE(bad_set.ok()) << text;
      EXPECT_NE(bad_set.status().message().find(k.key), std::string::npos) << bad_set.status().message();
    }
  }
}

TEST(ParallelKeys, EveryKeyHasARowInTheInputsDocument) {
  // The first cells of docs/inputs.md's table rows (a row may name several keys).
  std::ifstream in(std::string(ZEROSIM_SOURCE_DIR) + "/docs/inputs.md");
  std::vector<std::string> first_cells;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) == 0) first_cells.push_back(line.substr(0, line.find(" |", 1)));
  }
  for (const ParallelKey& k : ParallelKeys()) {
    const std::string name = fmt::format("`{}`", k.key);
    EXPECT_TRUE(std::any_of(first_cells.begin(), first_cells.end(), [&](const std::string& c) {
      return c.find(name) != std::string::npos;
    })) << k.key;
  }
}

}  // namespace
}  // namespace zerosim::io
