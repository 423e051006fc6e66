#include "model/config_text.h"

#include <gtest/gtest.h>

#include <string>

namespace safetune::model {
namespace {

void expect_problem(const std::string& text, const std::string& part) {
  const auto problem = config_text_problem(text);
  ASSERT_TRUE(problem.has_value()) << "\"" << text << "\" was accepted as canonical";
  EXPECT_NE(problem->find(part), std::string::npos) << "\"" << part << "\" not in: " << *problem;
}

TEST(ConfigText, AcceptsCanonicalStrings) {
  for (const char* text : {"A=1", "BLOCK=128,WARPS=4", "B=1,a=2", "MODE=fast,N=-3"})
    EXPECT_EQ(config_text_problem(text), std::nullopt) << text;
}

TEST(ConfigText, RejectsEmptyText) { expect_problem("", "empty"); }

TEST(ConfigText, RejectsPairWithoutEquals) { expect_problem("BLOCK", "no '='"); }

TEST(ConfigText, RejectsPairWithTwoEquals) { expect_problem("A=1=2", "more than one '='"); }

TEST(ConfigText, RejectsEmptyName) { expect_problem("=4", "empty name"); }

TEST(ConfigText, RejectsEmptyValue) { expect_problem("A=1,B=", "empty value"); }

TEST(ConfigText, RejectsEmptyPairs) {
  expect_problem("A=1,,B=2", "empty pair");
  expect_problem("A=1,", "empty pair");
  expect_problem(",A=1", "empty pair");
}

TEST(ConfigText, RejectsRepeatedName) { expect_problem("A=1,A=2", "\"A\" appears more than once"); }

TEST(ConfigText, UnsortedNamesNameTheCanonicalForm) {
  expect_problem("WARPS=4,BLOCK=128", "the canonical form is \"BLOCK=128,WARPS=4\"");
  expect_problem("a=2,B=1", "the canonical form is \"B=1,a=2\"");  // byte order: 'B' < 'a'
}

TEST(ConfigText, WhitespaceNamesTheCanonicalForm) {
  expect_problem("B=1, A=2", "the canonical form is \"A=2,B=1\"");
  expect_problem("A=1 2", "whitespace");
}

TEST(ConfigText, CanonicalFormRepairsOnlyOrderAndSpaces) {
  EXPECT_EQ(canonical_config_form("B=1, A=2"), "A=2,B=1");
  EXPECT_EQ(canonical_config_form("A=1"), "A=1");
  EXPECT_EQ(canonical_config_form("A=1,A=2"), std::nullopt);
  EXPECT_EQ(canonical_config_form("A"), std::nullopt);
  EXPECT_EQ(canonical_config_form(""), std::nullopt);
}

}  // namespace
}  // namespace safetune::model
