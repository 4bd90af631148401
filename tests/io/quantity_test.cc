#include "model/io/quantity.h"

#include <gtest/gtest.h>

namespace zerosim::io {
namespace {

double Parse(const char* text, Dimension d) {
  StatusOr<double> v = ParseQuantity(text, d);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().message();
  return v.ok() ? *v : -1;
}

TEST(Quantity, ParsesUnitsToSi) {
  EXPECT_DOUBLE_EQ(Parse("100Gbps", Dimension::kBandwidth), 12.5e9);
  EXPECT_DOUBLE_EQ(Parse("150GBps", Dimension::kBandwidth), 150e9);
  EXPECT_DOUBLE_EQ(Parse("400 Gb/s", Dimension::kBandwidth), 50e9);
  EXPECT_DOUBLE_EQ(Parse("1GiBps", Dimension::kBandwidth), 1073741824.0);
  EXPECT_DOUBLE_EQ(Parse("2us", Dimension::kTime), 2e-6);
  EXPECT_DOUBLE_EQ(Parse("1.5ms", Dimension::kTime), 1.5e-3);
  EXPECT_DOUBLE_EQ(Parse("32GiB", Dimension::kBytes), 32.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(Parse("80GB", Dimension::kBytes), 80e9);
  EXPECT_DOUBLE_EQ(Parse("125TFLOPs", Dimension::kFlopRate), 125e12);
  EXPECT_DOUBLE_EQ(Parse("1e3 MBps", Dimension::kBandwidth), 1e9);
}

TEST(Quantity, RejectsWhatIsNotTheExpectedQuantity) {
  struct Case {
    const char* text;
    Dimension dim;
    const char* message;
  };
  const Case cases[] = {
      {"100", Dimension::kBandwidth, "no unit"},
      {"Gbps", Dimension::kBandwidth, "no number"},
      {"100Gbit", Dimension::kBandwidth, "unknown unit \"Gbit\""},
      {"2us", Dimension::kBandwidth, "\"us\" is a time"},
      {"32GB", Dimension::kTime, "\"GB\" is a size"},
      {"-5us", Dimension::kTime, ">= 0"},
  };
  for (const Case& c : cases) {
    StatusOr<double> v = ParseQuantity(c.text, c.dim);
    ASSERT_FALSE(v.ok()) << c.text;
    EXPECT_NE(v.status().message().find(c.message), std::string::npos) << v.status().message();
    EXPECT_NE(v.status().message().find("like"), std::string::npos) << "an example is given";
  }
}

}  // namespace
}  // namespace zerosim::io

namespace zerosim::io {
namespace {

// Issue 20 item 24: an absurd rate or time is refused where it is written, not deep in an engine.
TEST(Quantity, ImplausibleValuesAreRefusedWithTheRange) {
  for (const char* text : {"1e-320Bps", "1e-20Gbps", "2000TBps"}) {
    StatusOr<double> v = ParseQuantity(text, Dimension::kBandwidth);
    ASSERT_FALSE(v.ok()) << text;
    EXPECT_NE(v.status().message().find("plausible range"), std::string::npos) << v.status().message();
  }
  EXPECT_FALSE(ParseQuantity("1e300s", Dimension::kTime).ok());
  EXPECT_TRUE(ParseQuantity("0us", Dimension::kTime).ok());
  EXPECT_TRUE(ParseQuantity("100Gbps", Dimension::kBandwidth).ok());
  EXPECT_TRUE(ParseQuantity("8TBps", Dimension::kBandwidth).ok());
}

}  // namespace
}  // namespace zerosim::io
