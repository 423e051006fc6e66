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

// Two processes of one run, in two files that merge by t_ns: process 1's owner is killed mid-bench
// and process 2's waiter takes over (exit abandons the attempt; thread 1 of each is its own thread).
const std::string kOwnerFile =
    R"({"format":"safetune-trace","version":1,"configs":{"add":["B=1","B=2"]},"white_box":true})" "\n"
    R"({"seq":1,"process":1,"thread":1,"event":"call_begin","kernel":"add","key":"k","t_ns":10})" "\n"
    R"({"seq":2,"process":1,"thread":1,"event":"tune_begin","kernel":"add","key":"k","t_ns":20})" "\n"
    R"({"seq":3,"process":1,"thread":1,"event":"bench","kernel":"add","key":"k","config":"B=1","time_ns":5,"t_ns":30})" "\n";
const std::string kExit = R"({"seq":4,"process":1,"thread":1,"event":"exit","t_ns":60})" "\n";
const std::string kTakerFile =
    R"({"format":"safetune-trace","version":1,"configs":{"add":["B=1","B=2"]},"white_box":true})" "\n"
    R"({"seq":1,"process":2,"thread":1,"event":"call_begin","kernel":"add","key":"k","t_ns":40})" "\n"
    R"({"seq":2,"process":2,"thread":1,"event":"wait_begin","kernel":"add","key":"k","t_ns":50})" "\n"
    R"({"seq":3,"process":2,"thread":1,"event":"wait_end","kernel":"add","key":"k","t_ns":70})" "\n"
    R"({"seq":4,"process":2,"thread":1,"event":"tune_begin","kernel":"add","key":"k","t_ns":80})" "\n"
    R"({"seq":5,"process":2,"thread":1,"event":"bench","kernel":"add","key":"k","config":"B=1","time_ns":5,"t_ns":90})" "\n"
    R"({"seq":6,"process":2,"thread":1,"event":"bench","kernel":"add","key":"k","config":"B=2","time_ns":3,"t_ns":100})" "\n"
    R"({"seq":7,"process":2,"thread":1,"event":"tune_end","kernel":"add","key":"k","config":"B=2","t_ns":110})" "\n"
    R"({"seq":8,"process":2,"thread":1,"event":"launch","kernel":"add","key":"k","config":"B=2","t_ns":120})" "\n"
    R"({"seq":9,"process":2,"thread":1,"event":"call_end","kernel":"add","key":"k","config":"B=2","t_ns":130})" "\n";

TEST(CheckSeveralFiles, TheProcessesOfOneRunMergeIntoOneValidTrace) {
  const std::string owner = write_temp_file("owner_killed.jsonl", kOwnerFile + kExit);
  const std::string taker = write_temp_file("taker.jsonl", kTakerFile);
  const CommandResult result = run_safetune("check --json " + owner + " " + taker);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json.at("events"), 13);
  EXPECT_EQ(json.at("stats").at("abandoned_attempts"), 1);
  EXPECT_EQ(json.at("stats").at("successful_tunings"), 1);
}

TEST(CheckSeveralFiles, AViolationAcrossFilesNamesEachExcerptLinesFile) {
  const std::string owner = write_temp_file("owner_alive.jsonl", kOwnerFile);  // no exit: still tuning
  const std::string taker = write_temp_file("taker2.jsonl", kTakerFile);
  const CommandResult result = run_safetune("check " + owner + " " + taker);
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("R2 (exclusive tuning): thread 1 of process 2 began an attempt"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(owner + " line 3: "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(taker + " line 5: "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("merge by t_ns"), std::string::npos) << result.out;
}

TEST(CheckSeveralFiles, HeadersThatDisagreeAreAnInputErrorNamingTheFile) {
  const std::string owner = write_temp_file("owner3.jsonl", kOwnerFile + kExit);
  const std::string other = write_temp_file("black_box.jsonl", R"({"format":"safetune-trace","version":1})" "\n");
  const CommandResult result = run_safetune("check --json " + owner + " " + other);
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json.at("verdict"), "input_error");
  EXPECT_EQ(json.at("path"), other);
  EXPECT_EQ(json.at("line"), 1);
}

TEST(CheckSeveralFiles, StandardInputMayBeGivenOnce) {
  const CommandResult result = run_safetune("check - - < /dev/null");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("standard input may be given once"), std::string::npos) << result.err;
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
