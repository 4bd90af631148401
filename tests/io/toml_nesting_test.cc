// Issue 20, item 20: a dotted key or table header of about 35,000 parts (68 KB) overflowed the stack inside
// toml++ (SIGSEGV) for every TOML input. The nesting is bounded before parsing (model/io/toml_nesting.h):
// a file:line error; strings, comments and long flat values are not nesting.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "model/io/loaders.h"
#include "model/io/sweep.h"
#include "model/io/table_reader.h"
#include "model/io/toml_nesting.h"
#include "study/sweep_grid.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// "a.a. ... .a": `parts` parts.
std::string DottedKey(int parts) {
  std::string key = "a";
  for (int i = 1; i < parts; ++i) key += ".a";
  return key;
}

// The error of loading `file` (one of the shared inputs, or x.sweep.toml over them) after appending `tail`.
std::string ErrorWithTail(const std::string& file, const std::string& tail) {
  std::map<std::string, std::string> files = testing::InputFiles();
  files["x.sweep.toml"] = "name = \"x\"\nbase = \"s.toml\"\n[axes]\nnodes = [2]\n";
  files[file] += "\n" + tail;
  const MemoryFileSource fs(files);
  Status st;
  if (file == "t.toml") {
    st = LoadTopology(fs, file).status();
  } else if (file == "m.toml") {
    st = LoadModel(fs, file).status();
  } else if (file == "x.sweep.toml") {
    st = study::LoadSweep(fs, file).status();
  } else {
    st = LoadScenario(fs, file).status();
  }
  return st.message();
}

int Lines(const std::string& file) {
  std::map<std::string, std::string> files = testing::InputFiles();
  files["x.sweep.toml"] = "name = \"x\"\nbase = \"s.toml\"\n[axes]\nnodes = [2]\n";
  const std::string& text = files[file];
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(TomlNesting, A35000PartDottedKeyIsAnErrorAtItsLineInEveryTomlInput) {
  for (const std::string file : {"s.toml", "t.toml", "m.toml", "x.sweep.toml"}) {
    const std::string e = ErrorWithTail(file, DottedKey(35000) + " = 1\n");
    EXPECT_HAS(e, file + ":" + std::to_string(Lines(file) + 2) + ":70001: ");  // the key's end
    EXPECT_HAS(e, "nest more than 128 levels");
  }
}

TEST(TomlNesting, A35000PartTableHeaderIsAnError) {
  EXPECT_HAS(ErrorWithTail("s.toml", "[" + DottedKey(35000) + "]\nx = 1\n"), "nest more than 128 levels");
  EXPECT_HAS(ErrorWithTail("s.toml", "[[" + DottedKey(35000) + "]]\n"), "nest more than 128 levels");
  EXPECT_HAS(ErrorWithTail("s.toml", "[\"" + std::string(10, 'q') + "\" . " + DottedKey(35000) + "]\n"),
             "nest more than 128 levels");
}

TEST(TomlNesting, DepthAddsUpOverHeadersKeysInlineTablesAndArrays) {
  // 200 inline tables of 200-part keys: no key is long, together 40,000 levels.
  std::string deep = "x = ";
  for (int i = 0; i < 200; ++i) deep.append("{").append(DottedKey(200)).append(" = ");
  deep.append("1").append(200, '}').append("\n");
  EXPECT_HAS(ErrorWithTail("s.toml", deep), "nest more than 128 levels");
  // Exactly at the bound: a header of 100 parts, a key of 20 and 8 arrays: 128 levels to the innermost
  // value; one array more is 129.
  const std::string at = "[" + DottedKey(100) + "]\n" + DottedKey(20) + " = [[[[[[[[1]]]]]]]]\n";
  EXPECT_FALSE(LineNestedDeeperThan(at).has_value());
  EXPECT_EQ(LineNestedDeeperThan(at + "[" + DottedKey(100) + "]\n" + DottedKey(20) + " = [[[[[[[[[1]]]]]]]]]\n"),
            std::optional<int>(4));
  EXPECT_EQ(LineNestedDeeperThan("[[" + DottedKey(128) + "]]\n"), std::optional<int>(1));
  EXPECT_FALSE(LineNestedDeeperThan("[[" + DottedKey(127) + "]]\n").has_value());
  // The message gives the column too (file:line:column, as toml++'s own errors; issue 39 item 7).
  const StatusOr<toml::table> arrays =
      ParseToml("a = 1\nx = " + std::string(200, '[') + "1" + std::string(200, ']') + "\n", "x.toml");
  ASSERT_FALSE(arrays.ok());
  EXPECT_HAS(arrays.status().message(), "x.toml:2:133: keys, tables and arrays nest more than 128 levels");
}

TEST(TomlNesting, DotsInStringsCommentsAndFlatValuesAreNotNesting) {
  std::string many_dots(40000, '.');
  std::string floats = "f = [";
  for (int i = 0; i < 20000; ++i) floats += "1.5, ";
  floats += "]\n";
  const std::string text = "s = \"" + many_dots + "\"\n" + "l = '" + many_dots + "'\n" + "m = \"\"\"\n[" +
                           many_dots + "\\\"\"\"\n\"\"\"\"\n" + "n = '''" + many_dots + "\n]'''\n# " + many_dots +
                           "\n" + floats + "d = 1979-05-27 07:32:00.999 # date\n[t]\n\"a.b\" = { x = 1, 'y.z' = [] }\n";
  EXPECT_FALSE(LineNestedDeeperThan(text).has_value());
  EXPECT_TRUE(ParseToml(text, "x.toml").ok()) << ParseToml(text, "x.toml").status().message();
  // After them, the line of a deep key is still found (the strings' newlines counted).
  EXPECT_EQ(LineNestedDeeperThan(text + DottedKey(200) + " = 1\n"), std::optional<int>(13));
}

}  // namespace
}  // namespace zerosim::io
