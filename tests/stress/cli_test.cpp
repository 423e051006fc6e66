// The `safetune` command line: exit codes and messages of check, subjects and usage errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "run_binary.h"

namespace safetune::stress::testing {
namespace {

// A valid black-box trace: one call tunes key "a" (two configs, B=2 wins), a second call
// launches the winner.
const std::string kValidTrace =
    R"({"format":"safetune-trace","version":1,"configs":{"k":["B=1","B=2"]}})" "\n"
    R"({"seq":1,"thread":0,"event":"call_begin","kernel":"k","key":"a"})" "\n"
    R"({"seq":2,"thread":0,"event":"bench","kernel":"k","key":"a","config":"B=1","time_ns":9})" "\n"
    R"({"seq":3,"thread":0,"event":"bench","kernel":"k","key":"a","config":"B=2","time_ns":5})" "\n"
    R"({"seq":4,"thread":0,"event":"launch","kernel":"k","key":"a","config":"B=2"})" "\n"
    R"({"seq":5,"thread":0,"event":"call_end","kernel":"k","key":"a","config":"B=2"})" "\n"
    R"({"seq":6,"thread":1,"event":"call_begin","kernel":"k","key":"a"})" "\n"
    R"({"seq":7,"thread":1,"event":"launch","kernel":"k","key":"a","config":"B=2"})" "\n"
    R"({"seq":8,"thread":1,"event":"call_end","kernel":"k","key":"a","config":"B=2"})" "\n";

// The same, but thread 1 tunes the key again after it was tuned: R3 (single tuning).
const std::string kDuplicateTuningTrace =
    R"({"seq":1,"thread":0,"event":"call_begin","kernel":"k","key":"a"})" "\n"
    R"({"seq":2,"thread":0,"event":"bench","kernel":"k","key":"a","config":"B=1","time_ns":9})" "\n"
    R"({"seq":3,"thread":0,"event":"launch","kernel":"k","key":"a","config":"B=1"})" "\n"
    R"({"seq":4,"thread":0,"event":"call_end","kernel":"k","key":"a","config":"B=1"})" "\n"
    R"({"seq":5,"thread":1,"event":"call_begin","kernel":"k","key":"a"})" "\n"
    R"({"seq":6,"thread":1,"event":"bench","kernel":"k","key":"a","config":"B=1","time_ns":9})" "\n"
    R"({"seq":7,"thread":1,"event":"launch","kernel":"k","key":"a","config":"B=1"})" "\n"
    R"({"seq":8,"thread":1,"event":"call_end","kernel":"k","key":"a","config":"B=1"})" "\n";

struct MalformedCase {
  const char* name;
  std::string text;
  int bad_line;
};

class CheckMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(CheckMalformed, ExitsTwoNamingTheFileAndLine) {
  const MalformedCase& bad = GetParam();
  const std::string path = write_temp_file(std::string(bad.name) + ".jsonl", bad.text);
  const CommandResult result = run_safetune("check " + path);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find(path + ":" + std::to_string(bad.bad_line) + ":"), std::string::npos)
      << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, CheckMalformed,
    ::testing::Values(
        MalformedCase{"bad_json",
                      R"({"seq":1,"thread":0,"event":"call_begin","kernel":"k","key":"a"})" "\n"
                      R"({"seq":2,"thread":0,"event":)" "\n",
                      2},
        MalformedCase{"missing_kernel",
                      R"({"seq":1,"thread":0,"event":"call_begin","key":"a"})" "\n", 1},
        MalformedCase{"seq_backwards",
                      R"({"seq":5,"thread":0,"event":"call_begin","kernel":"k","key":"a"})" "\n"
                      R"({"seq":6,"thread":0,"event":"call_end","kernel":"k","key":"a","error":"x"})" "\n"
                      R"({"seq":4,"thread":0,"event":"call_begin","kernel":"k","key":"a"})" "\n",
                      3},
        MalformedCase{"unknown_event",
                      R"({"seq":1,"thread":0,"event":"call_begin","kernel":"k","key":"a"})" "\n"
                      R"({"seq":2,"thread":0,"event":"teleport","kernel":"k","key":"a"})" "\n",
                      2}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) { return std::string(info.param.name); });

TEST(Check, ValidTraceExitsZeroWithOneLine) {
  const std::string path = write_temp_file("valid.jsonl", kValidTrace);
  const CommandResult result = run_safetune("check " + path);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(result.out.rfind(path + ": valid: ", 0), 0u) << result.out;  // not "invalid", nor anywhere
  EXPECT_EQ(std::count(result.out.begin(), result.out.end(), '\n'), 1) << result.out;
}

TEST(Check, BrokenRuleExitsOneWithReport) {
  const std::string path = write_temp_file("duplicate.jsonl", kDuplicateTuningTrace);
  const CommandResult result = run_safetune("check " + path);
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("R3"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("line 6:"), std::string::npos) << "excerpt names file lines: " << result.out;
}

TEST(Check, JsonVerdictAndViolations) {
  const std::string path = write_temp_file("duplicate_json.jsonl", kDuplicateTuningTrace);
  const CommandResult result = run_safetune("check --json " + path);
  EXPECT_EQ(result.exit_code, 1);
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json.at("verdict"), "fail");
  ASSERT_FALSE(json.at("violations").empty());
  bool has_r3 = false;
  for (const auto& violation : json.at("violations")) has_r3 |= violation.at("rule") == "R3";
  EXPECT_TRUE(has_r3) << result.out;
}

TEST(Check, HangingCallIsR7) {
  const std::string path = write_temp_file(
      "hang.jsonl", R"({"seq":1,"thread":0,"event":"call_begin","kernel":"k","key":"a"})" "\n");
  const CommandResult result = run_safetune("check --json " + path);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(result.out).at("violations").at(0).at("rule"), "R7");
}

TEST(Check, ChromeOutputParses) {
  const std::string path = write_temp_file("for_chrome.jsonl", kValidTrace);
  const std::string chrome = temp_path("valid.chrome.json");
  const CommandResult result = run_safetune("check " + path + " --chrome " + chrome);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(std::ifstream(chrome));
  EXPECT_FALSE(json.empty());
}

TEST(Check, AChromeOutputThatCannotBeWrittenIsAnInputError) {
  if (!std::ofstream("/dev/full")) GTEST_SKIP() << "this system has no /dev/full";
  const std::string path = write_temp_file("for_full.jsonl", kValidTrace);
  const CommandResult result = run_safetune("check " + path + " --chrome /dev/full");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "cannot write '/dev/full'\n");
}

TEST(Check, MissingFileIsAnInputError) {
  const CommandResult result = run_safetune("check " + temp_path("does_not_exist.jsonl"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("does_not_exist.jsonl"), std::string::npos) << result.err;
}

TEST(Subjects, ListsReferenceAndHidesTestOnlySubjects) {
  const CommandResult result = run_safetune("subjects");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("reference"), std::string::npos);
  EXPECT_NE(result.out.find("none"), std::string::npos);
  EXPECT_EQ(result.out.find("test-hang"), std::string::npos);
}

struct UsageCase {
  const char* arguments;
  const char* expected_in_message;  // the flag and the value
};

class UsageErrors : public ::testing::TestWithParam<UsageCase> {};

TEST_P(UsageErrors, ExitTwoNamingFlagAndValue) {
  const CommandResult result = run_safetune(GetParam().arguments);
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_NE(result.err.find(GetParam().expected_in_message), std::string::npos) << result.err;
}

INSTANTIATE_TEST_SUITE_P(
    Flags, UsageErrors,
    ::testing::Values(UsageCase{"", "subcommand"},
                      UsageCase{"frobnicate", "unknown command 'frobnicate'"},
                      UsageCase{"stress --threads 0", "--threads: '0' is not a whole number from 1 to 1024"},
                      UsageCase{"stress --configs 0", "--configs: '0' is not a whole number from 1 to 100000"},
                      UsageCase{"stress --keys -3", "--keys"},
                      UsageCase{"stress --subject nosuch", "unknown subject 'nosuch'"},
                      UsageCase{"stress --device cuda", "--device: cuda"},
                      UsageCase{"stress --wait sometimes", "--wait: sometimes"},
                      UsageCase{"stress --seed banana", "--seed"},
                      UsageCase{"stress --trace /nonexistent_dir/x.jsonl", "/nonexistent_dir/x.jsonl"},
                      UsageCase{"stress --bogus", "--bogus"}));

}  // namespace
}  // namespace safetune::stress::testing
