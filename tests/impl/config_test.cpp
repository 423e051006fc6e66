// Configs: canonical strings, parsing, and errors that name what was wrong and where.
#include "impl/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace safetune {
namespace {

using ::testing::HasSubstr;

std::string parse_error(std::string_view text) {
  try {
    ConfigSpace::parse(text);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

TEST(Config, CanonicalStringSortsNamesInByteOrder) {
  EXPECT_EQ(Config::parse("WARPS=4,BLOCK=256").str(), "BLOCK=256,WARPS=4");
  EXPECT_EQ(Config({{"b", 1}, {"B", 2}}).str(), "B=2,b=1");
  EXPECT_EQ(Config::parse("X=-3").str(), "X=-3");
}

TEST(Config, EqualityIsCanonicalEquality) {
  EXPECT_EQ(Config::parse("A=1,B=2"), Config::parse("B=2,A=1"));
  EXPECT_FALSE(Config::parse("A=1") == Config::parse("A=2"));
}

TEST(Config, GetFindsParameters) {
  Config config = Config::parse("BLOCK=256,WARPS=4");
  EXPECT_EQ(config.get("WARPS"), 4);
  EXPECT_EQ(config.get("BLOCK"), 256);
  EXPECT_EQ(config.get("MISSING"), std::nullopt);
}

TEST(Config, RejectsMalformedText) {
  EXPECT_THAT(parse_error("BLOCK"), HasSubstr("has no '='"));
  EXPECT_THAT(parse_error("BLOCK=x"), HasSubstr("not a 64-bit integer"));
  EXPECT_THAT(parse_error("BLOCK=99999999999999999999"), HasSubstr("not a 64-bit integer"));
  EXPECT_THAT(parse_error("=4"), HasSubstr("empty name"));
  EXPECT_THAT(parse_error("A=1,,B=2"), HasSubstr("has no '='"));
  EXPECT_THAT(parse_error("A=1,A=2"), HasSubstr("\"A\" twice"));
  EXPECT_THAT(parse_error("A B=1"), HasSubstr("whitespace"));
  EXPECT_THAT(parse_error("A=1 "), HasSubstr("not a 64-bit integer"));
  EXPECT_THAT(parse_error(""), HasSubstr("empty"));
}

TEST(ConfigSpace, ParsesInOrderAndFindsIndices) {
  ConfigSpace space = ConfigSpace::parse("BLOCK=64;BLOCK=128;BLOCK=32");
  ASSERT_EQ(space.size(), 3u);
  EXPECT_EQ(space.strings(), (std::vector<std::string>{"BLOCK=64", "BLOCK=128", "BLOCK=32"}));
  EXPECT_EQ(space.index_of(Config::parse("BLOCK=128")), 1u);
  EXPECT_EQ(space.index_of(Config::parse("BLOCK=1")), std::nullopt);
}

TEST(ConfigSpace, ErrorNamesTheBadEntry) {
  EXPECT_THAT(parse_error("BLOCK=64;BLOCK=oops"), HasSubstr("entry 2"));
  EXPECT_THAT(parse_error("BLOCK=64;;BLOCK=1"), HasSubstr("entry 2"));
}

TEST(ConfigSpace, RejectsDuplicatesNamingBoth) {
  std::string error = parse_error("A=1,B=2;C=3;B=2,A=1");
  EXPECT_THAT(error, HasSubstr("\"A=1,B=2\" twice"));
  EXPECT_THAT(error, HasSubstr("entries 1 and 3"));
}

TEST(ConfigSpace, RejectsEmptySpace) {
  EXPECT_THROW(ConfigSpace(std::vector<Config>{}), ConfigError);
}

}  // namespace
}  // namespace safetune
