// Bad input, hostile traces and honest edges, through the built binary: every class gets exit 2
// with the line, the flag or the OS's reason named (and a JSON object on --json); a report never
// forges a line, floods, or hides that it was cut; running out of memory is an input error for
// check and an incomplete run (exit 3) for stress, never a claimed violation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_binary.h"

namespace safetune::stress::testing {
namespace {

using Json = nlohmann::json;

std::string call_begin(int seq, int thread, const std::string& key) {
  return R"({"seq":)" + std::to_string(seq) + R"(,"thread":)" + std::to_string(thread) +
         R"(,"event":"call_begin","kernel":"k","key":")" + key + "\"}\n";
}

// `calls` calls that never end, each on its own thread and key: one R7 each.
std::string open_calls(int calls) {
  std::string text;
  for (int i = 1; i <= calls; ++i) text += call_begin(i, i, "n=" + std::to_string(i));
  return text;
}

Json json_of(const CommandResult& result) {
  Json json = Json::parse(result.out, nullptr, false);
  EXPECT_FALSE(json.is_discarded()) << "stdout is not one JSON object:\n" << result.out << result.err;
  return json;
}

void expect_input_error(const CommandResult& result, std::int64_t line, const std::string& part) {
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_NE(result.err.find(part), std::string::npos) << result.err;
  if (line > 0) {
    EXPECT_NE(result.err.find(":" + std::to_string(line) + ": "), std::string::npos) << result.err;
  }
}

TEST(CheckInput, ANulByteIsAnInputErrorOnItsLine) {
  std::string text = call_begin(1, 1, "a");
  text += std::string(R"({"seq":2,"thread":1,"event":"call_end","kernel":"k","key":"a","config":"B=1"})") + '\0' + "garbage\n";
  const std::string path = write_temp_file("nul.jsonl", text);
  expect_input_error(run_safetune("check " + path), 2, "a NUL byte at column 78");
  const CommandResult json = run_safetune("check --json " + path);
  EXPECT_EQ(json.exit_code, 2);
  const Json error = json_of(json);
  EXPECT_EQ(error.at("verdict"), "input_error");
  EXPECT_EQ(error.at("line"), 2);
  EXPECT_NE(error.at("message").get<std::string>().find("NUL"), std::string::npos);
}

TEST(CheckInput, ALineOverTheLimitIsAnInputErrorFoundWithoutReadingOn) {
  std::string text = call_begin(1, 1, "a");
  text += std::string((16 << 20) + 10, 'x') + "\n" + call_begin(2, 1, "b");
  const std::string path = write_temp_file("long_line.jsonl", text);
  expect_input_error(run_safetune("check " + path), 2, "longer than 16777216 bytes");
}

TEST(CheckInput, AnEndlessLineIsRefusedAfterTheLimit) {
  // /dev/zero has no newline and no end: the reader stops at the limit (a NUL comes first).
  const CommandResult result = run_safetune("check /dev/zero");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("/dev/zero:1: "), std::string::npos) << result.err;
}

TEST(CheckInput, PathsThatCannotBeReadNameTheOsReason) {
  expect_input_error(run_safetune("check " + temp_path("does_not_exist.jsonl")), 0, "No such file or directory");
  const std::string dir = temp_path("a_directory");
  std::filesystem::create_directories(dir);
  expect_input_error(run_safetune("check " + dir), 0, "Is a directory");
  const std::string file = write_temp_file("plain.jsonl", "");
  expect_input_error(run_safetune("check " + file + "/inside"), 0, "Not a directory");
  // Reading a process's own memory at offset 0 fails with EIO: a read error mid-file.
  expect_input_error(run_safetune("check /proc/self/mem"), 1, "Input/output error");
}

TEST(CheckInput, AnUnreadableFileNamesPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root, which may read any file";
  const std::string path = write_temp_file("unreadable.jsonl", call_begin(1, 1, "a"));
  std::filesystem::permissions(path, std::filesystem::perms::none);
  expect_input_error(run_safetune("check " + path), 0, "Permission denied");
}

TEST(CheckInput, DashReadsStandardInputAndItsExcerptsShowItsLines) {
  const std::string path = write_temp_file("stdin.jsonl", call_begin(1, 1, "a") + call_begin(2, 2, "b"));
  const CommandResult result = run_safetune("check - < " + path);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.out.find(">> line 2: {\"seq\":2"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("-: 2 violation(s)"), std::string::npos) << result.out;
}

TEST(CheckInput, HeaderTyposAreInputErrors) {
  const std::string typo = write_temp_file(
      "typo.jsonl", R"({"format":"safetune-trace","version":1,"policy":{"wiat":"fallback"}})" "\n");
  expect_input_error(run_safetune("check " + typo), 1, "field \"policy.wiat\" is not a policy field");
  const std::string unknown_kernel = write_temp_file(
      "unknown_kernel.jsonl",
      R"({"format":"safetune-trace","version":1,"policy":{"wait":"fallback","fallback":{"mul":"B=1"}},"configs":{"add":["B=2"]}})" "\n");
  expect_input_error(run_safetune("check " + unknown_kernel), 1, "field \"policy.fallback.mul\" names a kernel");
}

TEST(CheckInput, RunningOutOfMemoryIsExitTwoAndLeavesNoChromeFile) {
  if (built_with_sanitizer()) GTEST_SKIP() << "a sanitizer's runtime needs more address space than the limit allows";
  const std::string path = write_temp_file("many_open_calls.jsonl", open_calls(300000));
  const std::string chrome = temp_path("oom.chrome.json");
  const CommandResult result = run_safetune("check --json " + path + " --chrome " + chrome, "ulimit -v 100000; ");
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  const Json error = json_of(result);
  EXPECT_EQ(error.value("verdict", ""), "input_error");
  EXPECT_NE(error.value("message", "").find("out of memory"), std::string::npos) << result.out;
  EXPECT_FALSE(std::filesystem::exists(chrome));
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(chrome).parent_path()))
    EXPECT_EQ(entry.path().filename().string().find("oom.chrome.json"), std::string::npos) << entry.path();
}

TEST(CheckReport, ControlCharactersInValuesCannotForgeAReportLine) {
  const std::string path = write_temp_file(
      "forged.jsonl", call_begin(1, 1, R"(a\nVIOLATION R9 (re-entry): forged\u001b[2J)"));
  const CommandResult result = run_safetune("check " + path);
  EXPECT_EQ(result.exit_code, 1);
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_FALSE(line.starts_with("VIOLATION R9")) << result.out;
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << result.out;
  }
  EXPECT_NE(result.out.find(R"(k[a\nVIOLATION R9 (re-entry): forged\x1b[2J])"), std::string::npos) << result.out;
}

TEST(CheckReport, LongValuesAreCutWithTheirLength) {
  const std::string key(10 << 20, 'k');
  std::string text;
  for (int i = 1; i <= 10; ++i) text += call_begin(i, 1, key);  // ten nested open calls
  const CommandResult result = run_safetune("check " + write_temp_file("long_key.jsonl", text));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_LT(result.out.size(), 200000u);
  EXPECT_NE(result.out.find("...(10485760 bytes)"), std::string::npos);
}

TEST(CheckReport, ACutListSaysTheTrueTotal) {
  const std::string path = write_temp_file("many_hangs.jsonl", open_calls(250));
  const Json json = json_of(run_safetune("check --json " + path));
  EXPECT_EQ(json.at("violations_total"), 250);
  EXPECT_EQ(json.at("violations").size(), 100u);
  EXPECT_EQ(json.at("violation_totals").at("R7"), 250);
  EXPECT_EQ(json.at("truncated"), true);
  const CommandResult text = run_safetune("check " + path);
  EXPECT_NE(text.out.find("TRUNCATED: 250 violations in all (R7: 250); listed: the first 100 of each rule"),
            std::string::npos);
  EXPECT_NE(text.out.find(": 250 violation(s)"), std::string::npos);
}

// Nesting 10^5 deep, closed or left open: no crash, and the verdict is exact.
TEST(CheckDepth, NestingAHundredThousandDeepIsChecked) {
  constexpr int kDepth = 100000;
  const std::string header = R"({"format":"safetune-trace","version":1,"configs":{"k":["B=1"]},"white_box":true})" "\n";
  std::string open = header, closed;
  int seq = 0;
  auto line = [&](const char* kind, int level, const std::string& extra = "") {
    return R"({"seq":)" + std::to_string(++seq) + R"(,"thread":1,"event":")" + kind +
           R"(","kernel":"k","key":"n=)" + std::to_string(level) + "\"" + extra + "}\n";
  };
  for (int level = 0; level < kDepth; ++level) {  // one statement per line: seqs in order
    open += line("call_begin", level);
    open += line("tune_begin", level);
  }
  closed = open;
  for (int level = kDepth - 1; level >= 0; --level) {
    closed += line("bench", level, R"(,"config":"B=1","time_ns":5)");
    closed += line("tune_end", level, R"(,"config":"B=1")");
    closed += line("launch", level, R"(,"config":"B=1")");
    closed += line("call_end", level, R"(,"config":"B=1")");
  }
  const CommandResult left_open = run_safetune("check --json " + write_temp_file("deep_open.jsonl", open));
  EXPECT_EQ(left_open.exit_code, 1) << left_open.err;
  EXPECT_EQ(json_of(left_open).at("violation_totals").at("R7"), kDepth);
  const CommandResult all_closed = run_safetune("check " + write_temp_file("deep_closed.jsonl", closed));
  EXPECT_EQ(all_closed.exit_code, 0) << all_closed.out << all_closed.err;
}

struct FlagCase {
  const char* arguments;
  const char* flag;
  const char* message_part;
};

class BadNumericFlags : public ::testing::TestWithParam<FlagCase> {};

TEST_P(BadNumericFlags, AreUsageErrorsNamingTheFlagAndTheRange) {
  const CommandResult result = run_safetune(std::string("stress --json ") + GetParam().arguments);
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  const Json error = json_of(result);
  EXPECT_EQ(error.value("verdict", ""), "input_error");
  EXPECT_EQ(error.value("flag", ""), GetParam().flag) << result.out;
  EXPECT_NE(error.value("message", "").find(GetParam().message_part), std::string::npos) << result.out;
  EXPECT_NE(result.err.find(GetParam().message_part), std::string::npos) << result.err;
}

INSTANTIATE_TEST_SUITE_P(
    Flags, BadNumericFlags,
    ::testing::Values(FlagCase{"--seed -1", "--seed", "'-1' is not a whole number from 0 to 18446744073709551615"},
                      FlagCase{"--seed 18446744073709551616", "--seed", "is not a whole number from 0 to"},
                      FlagCase{"--round -1", "--round", "'-1' is not a whole number"},
                      FlagCase{"--threads 99999999999999999999", "--threads", "from 1 to 1024"},
                      FlagCase{"--calls 1e3", "--calls", "'1e3' is not a whole number from 1 to 10000000"},
                      FlagCase{"--keys +4", "--keys", "'+4' is not a whole number"},
                      FlagCase{"--seconds nan", "--seconds", "'nan' is not a number of seconds"},
                      FlagCase{"--seconds -1", "--seconds", "greater than 0 and at most 31536000"},
                      FlagCase{"--seconds 1e400", "--seconds", "'1e400' is not"},
                      FlagCase{"--watchdog-seconds inf", "--watchdog-seconds", "at most 3600"},
                      FlagCase{"--watchdog-seconds 0", "--watchdog-seconds", "'0' is not"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(StressUsage, AJsonUsageErrorIsOneObjectOnStdout) {
  const CommandResult result = run_safetune("stress --json --bogus");
  EXPECT_EQ(result.exit_code, 2);
  const Json error = json_of(result);
  EXPECT_EQ(error.at("verdict"), "input_error");
  EXPECT_EQ(error.at("flag"), "--bogus");
}

// The project's version (CMakeLists.txt's project(... VERSION), as the package's version file says).
TEST(StressUsage, VersionPrintsTheProjectVersion) {
  const CommandResult result = run_safetune("--version");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, std::string("safetune ") + SAFETUNE_PROJECT_VERSION + "\n");
}

// Under an address-space limit the run loses what it cannot store, and says so: exit 3, no rule
// claimed broken.
TEST(StressIncomplete, RunningOutOfMemoryIsIncompleteNotAViolation) {
  if (built_with_sanitizer()) GTEST_SKIP() << "a sanitizer's runtime needs more address space than the limit allows";
  for (const char* shape : {"--threads 4 --calls 2000000", "--threads 16 --calls 200"}) {
    SCOPED_TRACE(shape);
    const CommandResult result = run_safetune(std::string("stress --json --seed 5 ") + shape, "ulimit -v 150000; ");
    EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
    const Json json = json_of(result);
    EXPECT_EQ(json.value("verdict", ""), "incomplete");
    EXPECT_EQ(json.value("violations_total", -1), 0);
    EXPECT_FALSE(json.value("incomplete", "").empty());
    EXPECT_EQ(result.err.find("VIOLATION"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("incomplete: "), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace safetune::stress::testing
