// run_cli (stress/cli/run_cli.h), the entry point a user's own main calls with extra subjects: bad
// extra subjects are refused before any command runs, with exit code 2 and a message naming the
// subject and the problem; a good one is listed and driven like a built-in subject.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "stress/subjects/reference_subject.h"
#include "stress/cli/run_cli.h"

namespace safetune::stress {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Outcome run(std::vector<std::string> words, std::vector<SubjectInfo> extra) {
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  Outcome outcome;
  outcome.exit_code = run_cli(static_cast<int>(words.size()), argv.data(), std::move(extra));
  outcome.out = ::testing::internal::GetCapturedStdout();
  outcome.err = ::testing::internal::GetCapturedStderr();
  return outcome;
}

SubjectInfo extra_named(std::string name) {
  return {std::move(name), "none (a test double: the reference under another name)", true, true,
          make_reference_subject};
}

struct RefusedCase {
  const char* test_name;
  SubjectInfo first;
  std::optional<SubjectInfo> second;
  const char* message;  // after "my-tool: "
};

// Names the case in test listings (gtest would print its bytes).
void PrintTo(const RefusedCase& bad, std::ostream* out) { *out << bad.test_name; }

std::vector<RefusedCase> refused_cases() {
  SubjectInfo no_factory = extra_named("no-factory");
  no_factory.make = nullptr;
  SubjectInfo two_lines = extra_named("two-lines");
  two_lines.bug = "first\nsecond";
  SubjectInfo bad_mix = extra_named("bad-mix");
  bad_mix.scenario.mix = "chaos";
  SubjectInfo bad_wait = extra_named("bad-wait");
  bad_wait.scenario.wait = "sometimes";
  SubjectInfo stall_rate = extra_named("stall-rate");
  stall_rate.scenario = {.processes = 4, .stall_owners = 2};
  SubjectInfo pause_alone = extra_named("pause-alone");
  pause_alone.scenario.pause_owners = 0.5;  // one process, no store: no worker to stop
  SubjectInfo long_watchdog = extra_named("long-watchdog");
  long_watchdog.scenario.watchdog_seconds = 7200;
  return {
      {"ClashWithABuiltInSubject", extra_named("reference"), std::nullopt,
       "cannot add subject 'reference': a built-in subject has that name; give yours another one"},
      {"ClashWithAHiddenBuiltInSubject", extra_named("mini-correct"), std::nullopt,
       "cannot add subject 'mini-correct': a built-in subject has that name"},
      {"SameNameTwice", extra_named("mine"), extra_named("mine"),
       "cannot add subject 'mine': a subject of that name was already added"},
      {"EmptyName", extra_named(""), std::nullopt, "cannot add subject '': its name is empty"},
      {"NameWithASpace", extra_named("my tuner"), std::nullopt,
       "cannot add subject 'my tuner': its name may hold only letters, digits"},
      {"NameLikeAFlag", extra_named("-x"), std::nullopt, "cannot add subject '-x': its name starts with '-'"},
      {"NoFactory", no_factory, std::nullopt, "cannot add subject 'no-factory': it has no factory"},
      {"MultiLineBug", two_lines, std::nullopt, "cannot add subject 'two-lines': its bug must be one"},
      {"UnknownMix", bad_mix, std::nullopt, "cannot add subject 'bad-mix': its scenario's mix 'chaos'"},
      {"UnknownWait", bad_wait, std::nullopt, "cannot add subject 'bad-wait': its scenario's wait 'sometimes'"},
      {"StallRateAboveOne", stall_rate, std::nullopt, "cannot add subject 'stall-rate': its scenario's stall_owners 2"},
      {"PausesWithNoWorkerProcesses", pause_alone, std::nullopt,
       "cannot add subject 'pause-alone': its scenario's pause_owners strikes owners with no worker processes"},
      {"WatchdogOverAnHour", long_watchdog, std::nullopt,
       "cannot add subject 'long-watchdog': its scenario's watchdog_seconds 7200"},
  };
}

class RunCliRefuses : public ::testing::TestWithParam<RefusedCase> {};

TEST_P(RunCliRefuses, ExitsTwoBeforeAnyCommandNamingTheSubject) {
  const RefusedCase& bad = GetParam();
  std::vector<SubjectInfo> extra = {bad.first};
  if (bad.second) extra.push_back(*bad.second);
  const Outcome outcome = run({"/some/dir/my-tool", "subjects"}, extra);
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_TRUE(outcome.out.empty()) << "no command may run: " << outcome.out;
  EXPECT_NE(outcome.err.find(std::string("my-tool: ") + bad.message), std::string::npos) << outcome.err;
}

INSTANTIATE_TEST_SUITE_P(BadExtraSubjects, RunCliRefuses, ::testing::ValuesIn(refused_cases()),
                         [](const ::testing::TestParamInfo<RefusedCase>& info) {
                           return std::string(info.param.test_name);
                         });

// One test adds a subject for good (the registry only grows), so the rest of this binary sees
// it; every other test here is refused and adds nothing.
TEST(RunCli, AnExtraSubjectIsListedAndDrivenLikeABuiltInOne) {
  const Outcome listed = run({"my-tool", "subjects"}, {extra_named("my-reference")});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("reference "), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("my-reference "), std::string::npos) << listed.out;
  const Outcome stressed =
      run({"my-tool", "stress", "--subject", "my-reference", "--threads", "2", "--calls", "5", "--json"}, {});
  ASSERT_EQ(stressed.exit_code, 0) << stressed.out << stressed.err;
  const auto json = nlohmann::json::parse(stressed.out);
  EXPECT_EQ(json.at("subject"), "my-reference");
  EXPECT_EQ(json.at("verdict"), "pass");
}

}  // namespace
}  // namespace safetune::stress
