// The header line of a JSON Lines v1 trace: one test per input rule (docs/trace-format.md).
#include <gtest/gtest.h>

#include "read_helpers.h"

namespace safetune::model::testing {
namespace {

std::string header(const std::string& fields) {
  return R"({"format":"safetune-trace","version":1)" + fields + "}\n";
}

TEST(ReadHeader, EmptyFileIsAnEmptyTraceWithDefaults) {
  const Trace trace = expect_trace("");
  EXPECT_FALSE(trace.header.present);
  EXPECT_TRUE(trace.events.empty());
  EXPECT_EQ(trace.header.policy.wait, WaitPolicy::Block);
  EXPECT_EQ(trace.header.policy.reentry, ReentryPolicy::Error);
}

TEST(ReadHeader, ReadsEveryField) {
  const Trace trace = expect_trace(
      R"({"format":"safetune-trace","version":1,"policy":{"wait":"fallback","reentry":"fallback","fallback":"BLOCK=64"},"configs":{"add":["BLOCK=128","BLOCK=256"]},"white_box":true})"
      "\n");
  EXPECT_TRUE(trace.header.present);
  EXPECT_EQ(trace.header.policy.wait, WaitPolicy::Fallback);
  EXPECT_EQ(trace.header.policy.reentry, ReentryPolicy::Fallback);
  EXPECT_EQ(trace.header.policy.fallback, "BLOCK=64");
  EXPECT_EQ(trace.header.configs.at("add"), (std::vector<std::string>{"BLOCK=128", "BLOCK=256"}));
  EXPECT_TRUE(trace.header.white_box);
}

TEST(ReadHeader, FreshStoreSaysTheRunsProcessesAloneWroteTheStore) {
  EXPECT_TRUE(expect_trace(header(R"(,"fresh_store":true)")).header.fresh_store);
  EXPECT_FALSE(expect_trace(header("")).header.fresh_store);
}

TEST(ReadHeader, LiveOwnersSaysNoOwnerOfTheRunWasPaused) {
  EXPECT_TRUE(expect_trace(header(R"(,"live_owners":true)")).header.live_owners);
  EXPECT_FALSE(expect_trace(header("")).header.live_owners);
}

TEST(ReadHeader, FirstLineWithoutFormatIsAnEvent) {
  const Trace trace = expect_trace(event_line(1, "call_begin"));
  EXPECT_FALSE(trace.header.present);
  ASSERT_EQ(trace.events.size(), 1u);
  EXPECT_EQ(trace.events[0].line, 1);
}

TEST(ReadHeader, MissingPolicyEntriesTakeDefaults) {
  const Trace trace = expect_trace(header(R"(,"policy":{})"));
  EXPECT_EQ(trace.header.policy.wait, WaitPolicy::Block);
  EXPECT_EQ(trace.header.policy.reentry, ReentryPolicy::Error);
  EXPECT_FALSE(trace.header.white_box);
  EXPECT_TRUE(trace.header.configs.empty());
}

TEST(ReadHeader, UnknownTopLevelFieldsAreIgnored) {
  const Trace trace = expect_trace(header(R"(,"tool":"x","expect":["R3"])"));
  EXPECT_TRUE(trace.header.present);
}

// Inside "policy" a field the format does not know is a typo, not a default.
TEST(ReadHeader, RejectsAnUnknownPolicyField) {
  expect_error(header(R"(,"policy":{"wiat":"fallback"})"), 1, "field \"policy.wiat\"", "not a policy field",
               "wait, reentry and fallback");
}

TEST(ReadHeader, RejectsAFallbackForAKernelWithNoConfigSpace) {
  expect_error(header(R"(,"policy":{"wait":"fallback","fallback":{"mul":"B=1"}},"configs":{"add":["B=2"]})"), 1,
               "field \"policy.fallback.mul\"", "names a kernel that \"configs\" does not list");
}

TEST(ReadHeader, AcceptsAPerKernelFallbackWhenNoConfigSpaceIsListed) {
  const Trace trace = expect_trace(header(R"(,"policy":{"wait":"fallback","fallback":{"mul":"B=1"}})"));
  EXPECT_EQ(trace.header.policy.fallback_for("mul"), "B=1");
}

TEST(ReadHeader, RejectsAKnownFieldGivenTwice) {
  expect_error(header(R"(,"white_box":true,"white_box":false)"), 1, "field \"white_box\" appears more than once");
}

TEST(ReadHeader, RejectsAnotherFormat) {
  expect_error(R"({"format":"other-trace","version":1})" "\n", 1, "\"format\"", "\"other-trace\"");
}

TEST(ReadHeader, RejectsFormatThatIsNotAString) {
  expect_error(R"({"format":7,"version":1})" "\n", 1, "\"format\"", "7");
}

TEST(ReadHeader, RejectsOtherVersions) {
  expect_error(R"({"format":"safetune-trace","version":2})" "\n", 1, "\"version\"", "2", "not supported");
  expect_error(R"({"format":"safetune-trace","version":"1"})" "\n", 1, "\"version\"", "\"1\"");
  expect_error(R"({"format":"safetune-trace","version":1.0})" "\n", 1, "\"version\"", "1.0");
  expect_error(R"({"format":"safetune-trace"})" "\n", 1, "\"version\"", "missing");
}

TEST(ReadHeader, RejectsUnknownWaitPolicy) {
  expect_error(header(R"(,"policy":{"wait":"spin"})"), 1, "policy.wait", "spin");
}

TEST(ReadHeader, RejectsUnknownReentryPolicy) {
  expect_error(header(R"(,"policy":{"reentry":"deadlock"})"), 1, "policy.reentry", "deadlock");
}

TEST(ReadHeader, RejectsPolicyThatIsNotAnObject) {
  expect_error(header(R"(,"policy":"block")"), 1, "\"policy\"", "not an object");
}

TEST(ReadHeader, ReadsFallbackPerKernel) {
  const Trace trace =
      expect_trace(header(R"(,"policy":{"wait":"fallback","fallback":{"add":"BLOCK=64","mul":"BLOCK=32"}})"));
  EXPECT_EQ(trace.header.policy.fallback, std::nullopt);
  EXPECT_EQ(trace.header.policy.fallback_for("add"), "BLOCK=64");
  EXPECT_EQ(trace.header.policy.fallback_for("mul"), "BLOCK=32");
  EXPECT_EQ(trace.header.policy.fallback_for("sub"), std::nullopt);
}

TEST(ReadHeader, RejectsFallbackPolicyWithoutFallbackConfig) {
  expect_error(header(R"(,"policy":{"wait":"fallback"})"), 1, "policy.fallback", "missing", "policy.wait");
  expect_error(header(R"(,"policy":{"reentry":"fallback"})"), 1, "policy.fallback", "missing", "policy.reentry");
  expect_error(header(R"(,"policy":{"wait":"fallback","fallback":{}})"), 1, "policy.fallback", "missing");
}

TEST(ReadHeader, RejectsNonCanonicalFallback) {
  expect_error(header(R"(,"policy":{"fallback":"W=4,B=64"})"), 1, "policy.fallback", "canonical form is \"B=64,W=4\"");
  expect_error(header(R"(,"policy":{"fallback":{"add":"B"}})"), 1, "policy.fallback.add", "no '='");
}

TEST(ReadHeader, RejectsFallbackOfAnotherType) {
  expect_error(header(R"(,"policy":{"fallback":64})"), 1, "policy.fallback", "64");
  expect_error(header(R"(,"policy":{"fallback":{"add":64}})"), 1, "policy.fallback.add", "not a string");
}

TEST(ReadHeader, RejectsConfigsThatAreNotAnObjectOfArrays) {
  expect_error(header(R"(,"configs":["A=1"])"), 1, "\"configs\"", "not an object");
  expect_error(header(R"(,"configs":{"add":"A=1"})"), 1, "configs.add", "not an array");
  expect_error(header(R"(,"configs":{"add":[1]})"), 1, "configs.add[0]", "not a string");
}

TEST(ReadHeader, RejectsNonCanonicalConfigInSpace) {
  expect_error(header(R"(,"configs":{"add":["A=1","W=2,B=1"]})"), 1, "configs.add[1]", "canonical form is \"B=1,W=2\"");
}

TEST(ReadHeader, RejectsDuplicateConfigInSpace) {
  expect_error(header(R"(,"configs":{"add":["A=1","A=2","A=1"]})"), 1, "configs.add[2]", "repeats configs.add[0]");
}

TEST(ReadHeader, RejectsEmptyConfigSpace) { expect_error(header(R"(,"configs":{"add":[]})"), 1, "configs.add", "empty"); }

TEST(ReadHeader, RejectsWhiteBoxThatIsNotABool) {
  expect_error(header(R"(,"white_box":"yes")"), 1, "white_box", "\"yes\"");
  expect_error(header(R"(,"fresh_store":1)"), 1, "fresh_store", "1");
  expect_error(header(R"(,"live_owners":"true")"), 1, "live_owners", "\"true\"");
}

TEST(ReadHeader, HeaderOnALaterLineIsAnError) {
  expect_error(event_line(1, "call_begin") + "\n" + header(""), 3, "\"format\"", "only allowed on line 1");
}

TEST(ReadHeader, HeaderAfterABlankFirstLineIsAnError) {
  expect_error("\n" + header(""), 2, "only allowed on line 1");
}

TEST(ReadHeader, SecondHeaderIsAnError) { expect_error(header("") + header(""), 2, "only allowed on line 1"); }

}  // namespace
}  // namespace safetune::model::testing
