// Hostile names in inputs (issue 39 item 6): an error message quoting a variant name that holds control
// characters (NUL, an ESC colour sequence, U+202E) shows them as escapes, never as bytes a terminal acts on.
#include <gtest/gtest.h>

#include <string>

#include "model/io/file_source.h"
#include "model/io/loaders.h"
#include "model/status.h"
#include "test_inputs.h"

namespace zerosim::io {
namespace {

TEST(HostileInput, ErrorMessagesEscapeWhatIsNotPrintable) {
  using namespace std::string_literals;
  EXPECT_EQ(Status::Error("a\x1b[31mred\x1b[0m").message(), "a\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(Status::Error("nul\0byte"s).message(), "nul\\x00byte");
  EXPECT_EQ(Status::Error("cr\rdel\x7f").message(), "cr\\x0ddel\\x7f");
  EXPECT_EQ(Status::Error("abc\u202Efed").message(), "abc\\u{202e}fed");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(Status::Error("iso\u2066late\u2069").message(), "iso\\u{2066}late\\u{2069}");
  EXPECT_EQ(Status::Error("c1\u0085").message(), "c1\\u{0085}");
  EXPECT_EQ(Status::Error("bad \xff\xc0\x80 utf8").message(), "bad \\xff\\xc0\\x80 utf8");
  // Printable text and UTF-8 stay; newlines and tabs (multi-line messages) too; escaping twice changes
  // nothing.
  EXPECT_EQ(Status::Error("H100 · 80 GiB, Köln, 東京\n\tnext").message(),
            "H100 · 80 GiB, Köln, 東京\n\tnext");
  const std::string once = Status::Error("x\x1b\u202E").message();
  EXPECT_EQ(Status::Error(once).message(), once);
}

TEST(HostileInput, AVariantNameWithControlCharactersIsEscapedInTheError) {
  std::string scenario = testing::kScenario;
  // Two variants with one name, written with TOML escapes: NUL, an ESC colour sequence and U+202E.
  const std::string hostile = R"("x\u0000\u001b[2J\u202Eevil")";
  scenario.replace(scenario.find("\"ZeRO-3\""), 8, hostile);
  scenario.replace(scenario.find("\"ZeRO++\""), 8, hostile);
  const StatusOr<Scenario> s = LoadScenario(MemoryFileSource(testing::InputFiles(scenario)), "s.toml");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.status().message();
  EXPECT_NE(m.find("two variants are named \"x\\x00\\x1b[2J\\u{202e}evil\""), std::string::npos) << m;
  EXPECT_EQ(m.find('\x1b'), std::string::npos);
  EXPECT_EQ(m.find('\0'), std::string::npos);
  EXPECT_EQ(m.find("\u202E"), std::string::npos);
}

}  // namespace
}  // namespace zerosim::io
