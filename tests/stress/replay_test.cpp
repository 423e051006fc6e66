// Replay (label stress): a failing run prints one command line, and running that line, exactly
// as printed, reproduces a rule that the run broke, on the sim device, in at least 9 runs out of 10.
//
// For each subject below: a run with a fresh seed (the subject's defaults) fails; its `replay:`
// line is run 10 times through the shell, with the built binary first on PATH so that the
// line's `safetune` is this build's; each replay must exit 1 and report a rule that the original
// run reported. The seed fixes the program, the faults, the device's noise and its benchmark
// times (stress/harness/program.h); the OS scheduler is the only thing left free, so this
// measures how much a subject's bug depends on it.
//
// Why any of the original's rules, not its first: a racy subject (unlocked) breaks several rules
// in one run, and which of them comes first in the trace is the scheduler's choice. A CI run's
// original reported R4 first (R2 and R3 after it); its ten replays each reported R2 first, and
// six of them R4 too. The bug was reproduced ten times; the first rule was not.
//
// Broken subjects run with TSAN_OPTIONS=report_bugs=0, as in the catch table: in the tsan preset
// this measures what the model and the watchdog see, not ThreadSanitizer (unlocked races).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "run_binary.h"

namespace safetune::stress::testing {
namespace {

constexpr int kReplays = 10;
constexpr int kRequired = 9;
// Catch rates are at least 19 in 20, not 20 in 20: a fresh seed gets this many tries to fail.
constexpr int kTriesToFail = 3;

struct ReplayCase {
  const char* subject;
  // Flags of the original run, each off its default so that the check that the replay line
  // carries them can fail. The hang subjects' watchdog is shortened so that eleven hangs stay cheap;
  // unlocked's is lengthened, which leaves its races as they are (with --keys 2, R2 came first so
  // often that the first run's R3 came back in 6 replays of 10 under ASan).
  const char* flags;
};

// Names the case in test listings (gtest would print its bytes).
void PrintTo(const ReplayCase& test, std::ostream* out) { *out << test.subject << ' ' << test.flags; }

struct LineRun {
  int exit_code = -1;
  std::string out;
};

// Runs `line` with /bin/sh, exactly as given, and captures stdout (stderr is dropped).
LineRun run_line(const std::string& line) {
  LineRun run;
  FILE* pipe = ::popen((line + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer{};
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
    run.out.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  return run;
}

// The rule ids of the report's `VIOLATION Rn (...)` lines, in order.
std::vector<std::string> violated_rules(const std::string& out) {
  std::vector<std::string> rules;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("VIOLATION ", 0) != 0) continue;
    rules.push_back(line.substr(10, line.find(' ', 10) - 10));
  }
  return rules;
}

// "R2, R3": each rule once, in the order of its first violation.
std::string rules_named(const std::vector<std::string>& rules) {
  std::vector<std::string> distinct;
  for (const std::string& rule : rules) {
    if (std::find(distinct.begin(), distinct.end(), rule) == distinct.end()) distinct.push_back(rule);
  }
  std::string named;
  for (const std::string& rule : distinct) named += (named.empty() ? "" : ", ") + rule;
  return named;
}

std::optional<std::string> replay_line(const std::string& out) {
  const auto at = out.find("\nreplay: ");
  if (at == std::string::npos) return std::nullopt;
  const auto start = at + std::string("\nreplay: ").size();
  return out.substr(start, out.find('\n', start) - start);
}

// A run of `arguments` that fails, within kTriesToFail fresh seeds (or the last one that did not).
CommandResult failing_run(const std::string& arguments) {
  CommandResult run;
  for (int tries = 0; tries < kTriesToFail && run.exit_code != 1; ++tries) run = run_safetune(arguments);
  return run;
}

bool shares_a_rule(const std::vector<std::string>& rules, const std::vector<std::string>& original) {
  return std::any_of(rules.begin(), rules.end(), [&](const std::string& rule) {
    return std::find(original.begin(), original.end(), rule) != original.end();
  });
}

// Runs `line` kReplays times; returns how many exit 1 with one of the `original` rules among
// their violations, and writes each replay's exit code and first rule to `seen`.
int replays_with_a_rule_of(const std::string& line, const std::vector<std::string>& original, std::ostream& seen) {
  int same = 0;
  for (int i = 0; i < kReplays; ++i) {
    const LineRun replay = run_line(line);
    const std::vector<std::string> rules = violated_rules(replay.out);
    if (replay.exit_code == 1 && shares_a_rule(rules, original)) ++same;
    seen << " [exit " << replay.exit_code << ": " << (rules.empty() ? "-" : rules.front()) << "]";
  }
  return same;
}

class Replay : public ::testing::TestWithParam<ReplayCase> {
 protected:
  static void SetUpTestSuite() {
    // The replay line names the command `safetune`: this build's binary must be the one found.
    const std::string bin = std::filesystem::path(SAFETUNE_BINARY).parent_path().string();
    const char* path = std::getenv("PATH");
    ::setenv("PATH", (bin + ":" + (path ? path : "/usr/bin:/bin")).c_str(), 1);
    ::setenv("TSAN_OPTIONS", "report_bugs=0", 1);
  }
};

TEST_P(Replay, ThePrintedLineReproducesARuleOfTheRunNineTimesInTen) {
  const ReplayCase& test = GetParam();
  ASSERT_NE(std::string(test.flags), "") << "every case sets a flag off its default, which the line must carry";
  const CommandResult failing = failing_run(std::string("stress --subject ") + test.subject + " " + test.flags);
  ASSERT_EQ(failing.exit_code, 1) << test.subject << " was not caught in " << kTriesToFail
                                  << " runs:\n" << failing.out << failing.err;
  const std::optional<std::string> line = replay_line(failing.out);
  ASSERT_TRUE(line.has_value()) << "no replay line:\n" << failing.out;
  ASSERT_EQ(line->rfind(std::string("safetune stress --subject ") + test.subject + " ", 0), 0u) << *line;
  EXPECT_NE(line->find(test.flags), std::string::npos) << "the line drops " << test.flags;
  const std::vector<std::string> original = violated_rules(failing.out);
  ASSERT_FALSE(original.empty()) << "a failing run with no VIOLATION line:\n" << failing.out;
  std::ostringstream seen;
  const int same = replays_with_a_rule_of(*line, original, seen);
  std::cout << test.subject << ": " << rules_named(original) << " reproduced " << same << "/" << kReplays
            << " by: " << *line << "\n  replays (exit: first rule):" << seen.str() << '\n';
  EXPECT_GE(same, kRequired) << *line << "\n  replays:" << seen.str();
}

INSTANTIATE_TEST_SUITE_P(BrokenSubjects, Replay,
                         ::testing::Values(ReplayCase{"check-then-act", "--threads 6"},
                                           ReplayCase{"wrong-argmin", "--configs 8"},
                                           ReplayCase{"notify-one", "--watchdog-seconds 1"},
                                           ReplayCase{"unlocked", "--watchdog-seconds 3"}),
                         [](const ::testing::TestParamInfo<ReplayCase>& info) {
                           std::string name = info.param.subject;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace safetune::stress::testing
