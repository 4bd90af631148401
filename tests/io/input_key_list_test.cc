// The tables' plain input keys as lists (model/io/input_key.h: ParallelKeys for [parallel], ZeroKeys for
// [zero]; issue 36 item 5): each key is read by its table's loader and is a sweep axis / `--set` name with
// the same type and range, the two give a variant the same settings, both refuse each end of the range naming
// the key, and docs/inputs.md has a row for it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/io/parallel_keys.h"
#include "model/io/sweep.h"
#include "model/io/table_reader.h"
#include "model/io/zero_keys.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

// A table of `lines` read by `read` over its default; the error, if any, in `status`.
template <typename Target>
Target Read(const std::string& lines, Status* status, Target (*read)(TableReader* t, const Target& base)) {
  StatusOr<toml::table> table = ParseToml(lines, "s.toml");
  if (!table.ok()) {
    *status = table.status();
    return {};
  }
  TableReader reader(&*table, "s.toml", "table", status);
  const Target out = read(&reader, Target{});
  reader.Finish();
  return out;
}

// A value of `k` inside its range that changes a default Target, as TOML text (also the --set text).
template <typename Target>
std::string Changing(const InputKey<Target>& k) {
  std::vector<double> candidates = {k.min + 1, k.min + 2, k.min, k.max};
  if (k.type == KeyType::kBool) candidates = {1, 0};
  if (k.type == KeyType::kNumber) candidates = {k.min + 0.5, k.min, k.max};
  for (double v : candidates) {
    Target t{};
    k.set(&t, v);
    if (!(t == Target{})) {
      if (k.type == KeyType::kBool) return v != 0 ? "true" : "false";
      if (k.type == KeyType::kNumber) return fmt::format("{}", v);
      return fmt::format("{}", static_cast<int64_t>(v));
    }
  }
  return "";
}

template <typename Target>
void CheckList(const std::vector<InputKey<Target>>& keys, Target (*read)(TableReader*, const Target&),
               const Target& (*of)(const Variant&)) {
  const std::vector<std::string>& axes = SweepAxisKeys();
  const MemoryFileSource fs(testing::InputFiles());
  StatusOr<Scenario> base = LoadScenario(fs, "s.toml");
  ASSERT_TRUE(base.ok()) << base.status().message();
  for (const InputKey<Target>& k : keys) {
    SCOPED_TRACE(k.key);
    EXPECT_NE(std::find(axes.begin(), axes.end(), k.key), axes.end()) << "not a sweep axis";
    // Inside the range: the file's value and the --set value reach the settings alike.
    const std::string value = Changing(k);
    ASSERT_FALSE(value.empty()) << "no value in the range changes the default";
    Status file_status = Status::Ok();
    const Target file = Read(fmt::format("{} = {}", k.key, value), &file_status, read);
    ASSERT_TRUE(file_status.ok()) << file_status.message();
    EXPECT_FALSE(file == Target{}) << "the file's value changed nothing";
    StatusOr<SweepSpec> set = ParseSettings(fs, *base, {fmt::format("{}={}", k.key, value)});
    ASSERT_TRUE(set.ok()) << set.status().message();
    ASSERT_EQ(set->axes.size(), 1u);
    Variant v = base->variants.front();
    ASSERT_NE(AxisTargetOf(k.key).variant, nullptr);
    AxisTargetOf(k.key).variant(set->axes[0].values[0], &v);
    Target expected = of(base->variants.front());
    k.set(&expected, set->axes[0].values[0].boolean ? 1.0 : set->axes[0].values[0].number);
    EXPECT_TRUE(of(v) == expected);
    if (k.type == KeyType::kBool) continue;
    // Past the range's ends (where a number can lie there): refused by both, each naming the key.
    for (const double outside : {k.min - 1, k.max + 1}) {
      if (outside >= TableReader::kCountMax) continue;
      const std::string text = k.type == KeyType::kNumber ? fmt::format("{}", outside)
                                                          : fmt::format("{}", static_cast<int64_t>(outside));
      Status bad_file = Status::Ok();
      Read(fmt::format("{} = {}", k.key, text), &bad_file, read);
      ASSERT_FALSE(bad_file.ok()) << text;
      EXPECT_NE(bad_file.message().find(k.key), std::string::npos) << bad_file.message();
      StatusOr<SweepSpec> bad_set = ParseSettings(fs, *base, {fmt::format("{}={}", k.key, text)});
      ASSERT_FALSE(bad_set.ok()) << text;
      EXPECT_NE(bad_set.status().message().find(k.key), std::string::npos) << bad_set.status().message();
    }
  }
}

TEST(InputKeyLists, TheLayoutsKeysAreSweepAxesWithTheLoadersRangesAndTheSameEffect) {
  CheckList<model::ParallelLayout>(
      ParallelKeys(), &ReadParallelKeys,
      +[](const Variant& v) -> const model::ParallelLayout& { return v.parallel; });
}

TEST(InputKeyLists, TheZeroSettingsKeysAreSweepAxesWithTheLoadersRangesAndTheSameEffect) {
  CheckList<model::ZeroConfig>(
      ZeroKeys(), &ReadZeroKeys, +[](const Variant& v) -> const model::ZeroConfig& { return v.zero; });
}

TEST(InputKeyLists, EveryKeyHasARowInTheInputsDocument) {
  // The first cells of docs/inputs.md's table rows (a row may name several keys).
  std::ifstream in(std::string(ZEROSIM_SOURCE_DIR) + "/docs/inputs.md");
  std::vector<std::string> first_cells;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) == 0) first_cells.push_back(line.substr(0, line.find(" |", 1)));
  }
  std::vector<std::string> keys;
  for (const ParallelKey& k : ParallelKeys()) keys.push_back(k.key);
  for (const InputKey<model::ZeroConfig>& k : ZeroKeys()) keys.push_back(k.key);
  for (const std::string& key : keys) {
    const std::string name = fmt::format("`{}`", key);
    EXPECT_TRUE(std::any_of(first_cells.begin(), first_cells.end(), [&](const std::string& c) {
      return c.find(name) != std::string::npos;
    })) << key;
  }
}

}  // namespace
}  // namespace zerosim::io
