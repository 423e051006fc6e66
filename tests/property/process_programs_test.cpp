// Property (d): programs of several processes on one directory store, with owners killed mid-bench,
// a restart and damaged entries, judged by the model as one merged trace.
//
// rapidcheck draws 2 or 3 worker processes, each with its own program (1 or 2 threads of a few
// steps over 1-3 keys and 2-5 configs, hooks included), whether a second
// generation runs on the same store (a restart), whether the entries are damaged between the two,
// and, for the reference, which processes are killed (SIGKILL) at which of their benches. The
// stress harness's process round (stress/harness/process_round.h) runs them, each worker in its
// own forked process with its own watchdog; a hang anywhere is R7 in the merged trace.
//
// The reference's programs invalidate keys too (an invalidate withdraws the entry under the
// entry's exclusive view, docs/store.md); a store subject's do not, so that each fails by the rule
// its own bug breaks. The property, "no run breaks a rule and every run is recorded whole", must
// hold for the reference, and fail for every store subject (stress/subjects/stores/) by one of the
// rules it declares, with rapidcheck's shrunk counterexample printed.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "impl/posix/temp_directory.h"
#include "model/checker.h"
#include "program_draws.h"
#include "stress/harness/process_round.h"
#include "stress/subjects/subject.h"
#include "subject_run.h"

namespace safetune::property {
namespace {

// A worker that records nothing for this long has hung (R7): short, since shrinking a hanging
// case runs it again and again.
constexpr double kWatchdogSeconds = 0.5;
// Runs of one drawn case, each with other schedules: the store bugs are races between processes.
constexpr int kRunsPerCase = 2;

struct ProcessCase {
  int processes = 2;  // per generation
  int keys = 1;
  int configs = 2;
  bool restart = false;
  bool damage = false;
  std::uint64_t damage_seed = 0;
  stress::ProcessPlan plan;  // processes x generations programs and kill points
};

std::string describe(const ProcessCase& drawn) {
  std::ostringstream out;
  out << drawn.processes << " processes" << (drawn.restart ? ", and a restart" : "")
      << (drawn.damage ? ", entries damaged between (seed " + std::to_string(drawn.damage_seed) + ")" : "") << ", "
      << drawn.keys << " keys, " << drawn.configs << " configs\n";
  for (std::size_t p = 0; p < drawn.plan.programs.size(); ++p) {
    out << "process " << p;
    if (drawn.plan.kill_at_bench[p] > 0) out << " (killed at its bench " << drawn.plan.kill_at_bench[p] << ")";
    out << ":\n" << stress::describe(drawn.plan.programs[p]);
  }
  return out.str();
}

// The scenario's store faults for a store subject; any of them for the reference.
ProcessCase draw_case(const stress::SubjectInfo& subject) {
  const bool reference = subject.scenario.processes == 1 && !subject.scenario.store;
  ProcessCase drawn;
  drawn.processes = *rc::gen::inRange(2, 4);
  // Damage swaps two entries whose winners differ: that takes two keys (drawn so, when the
  // scenario damages, or the search would spend most cases on one key).
  drawn.keys = *rc::gen::inRange(subject.scenario.damage_store ? 2 : 1, 4);
  drawn.configs = *rc::gen::inRange(2, 6);
  drawn.restart = subject.scenario.restart || (reference && *rc::gen::arbitrary<bool>());
  drawn.damage = subject.scenario.damage_store || (reference && drawn.restart && *rc::gen::arbitrary<bool>());
  drawn.damage_seed = *rc::gen::inRange<std::uint64_t>(1, 1000000);
  const int workers = drawn.processes * (drawn.restart ? 2 : 1);
  for (int p = 0; p < workers; ++p) {
    stress::Program program;
    program.threads = draw_threads(*rc::gen::inRange(1, 3), drawn.keys, /*invalidations=*/reference);
    program.device_seed = *rc::gen::inRange<std::uint64_t>(1, 1000000);
    drawn.plan.programs.push_back(std::move(program));
    const bool killed = reference && *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
    drawn.plan.kill_at_bench.push_back(killed ? *rc::gen::inRange(1, drawn.configs + 1) : 0);
  }
  return drawn;
}

stress::StressOptions options_for(const stress::SubjectInfo& subject, const ProcessCase& drawn, const std::string& store) {
  stress::StressOptions options;
  options.subject = subject.name;
  options.shape.keys = drawn.keys;
  options.shape.configs = drawn.configs;
  options.processes = drawn.processes;
  options.store = store;
  options.restart = drawn.restart;
  options.damage_store = drawn.damage;
  options.seed = drawn.damage_seed;  // the damage's draws; the programs are the plan's
  options.watchdog_seconds = kWatchdogSeconds;
  return options;
}

// "" when the merged trace breaks no rule and was recorded whole; else what went wrong.
std::string run_once(const stress::SubjectInfo& subject, const ProcessCase& drawn) {
  const posix::TempDirectory store("safetune-property-store");
  const stress::RoundResult round = stress::run_process_round(options_for(subject, drawn, store.path()), subject, 0, &drawn.plan);
  if (round.incomplete) return "incomplete: " + *round.incomplete;
  return verdict_of(model::check(round.trace).violations);
}

bool is_declared_catch(const stress::SubjectInfo& subject, const std::string& verdict) {
  return std::any_of(subject.caught_by.begin(), subject.caught_by.end(),
                     [&](const std::string& rule) { return verdict.starts_with(rule + " ") || verdict.find("; " + rule + " ") != std::string::npos; });
}

struct Failure {
  std::string counterexample;
  std::string verdict;
};

// The property for one subject; `failure` keeps the last failing case (after shrinking, the
// counterexample). For a broken subject only its declared rules fail the property; any other
// verdict is kept in `other` and the case passes.
void property_for(const stress::SubjectInfo& subject, std::optional<Failure>& failure, std::optional<std::string>* other = nullptr) {
  const ProcessCase drawn = draw_case(subject);
  for (int run = 0; run < kRunsPerCase; ++run) {
    const std::string verdict = run_once(subject, drawn);
    if (verdict.empty()) continue;
    if (other != nullptr && !is_declared_catch(subject, verdict)) {
      if (!other->has_value()) *other = describe(drawn) + "verdict: " + verdict;
      continue;
    }
    failure = Failure{describe(drawn), verdict};
    RC_FAIL(verdict);
  }
}

TEST(ProcessPrograms, HoldForTheReferenceWithKilledOwnersRestartsAndDamagedEntries) {
  const stress::SubjectInfo& reference = *stress::find_subject("reference");
  std::optional<Failure> failure;
  EXPECT_TRUE(rc::check("reference across processes", [&] { property_for(reference, failure); }))
      << (failure ? failure->counterexample + "verdict: " + failure->verdict : "");
}

// The directory store subjects. The Redis ones (their scenarios start a redis-server and pause
// owners, which these drawn plans do not) are caught by the subject catch table.
std::vector<std::string> store_subjects() {
  std::vector<std::string> names;
  for (const stress::SubjectInfo& info : stress::subject_registry())
    if (info.listed && info.bug != "none" && info.scenario.store && !info.scenario.redis) names.push_back(info.name);
  return names;
}

class BrokenStorePrograms : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenStorePrograms, FailByTheirRuleWithAShrunkCounterexample) {
  const stress::SubjectInfo& subject = *stress::find_subject(GetParam());
  std::optional<Failure> failure;
  std::optional<std::string> other;
  const bool held = rc::check(subject.name + " across processes", [&] { property_for(subject, failure, &other); });
  if (other) std::cout << subject.name << ": a run broke a rule it is not declared for (not its catch):\n" << *other << '\n';
  ASSERT_FALSE(held) << subject.name << ": no generated case broke one of its declared rules";
  ASSERT_TRUE(failure.has_value());
  std::cout << "expected failure; shrunk counterexample for " << subject.name << ":\n"
            << failure->counterexample << "verdict: " << failure->verdict << '\n';
}

INSTANTIATE_TEST_SUITE_P(EveryStoreSubject, BrokenStorePrograms, ::testing::ValuesIn(store_subjects()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return test_name_of(info.param); });

}  // namespace
}  // namespace safetune::property
