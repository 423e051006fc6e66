// Property (c): whole concurrent programs against every subject, reference and broken alike.
//
// rapidcheck generates a stress program (stress/harness/program.h): 2-4 threads of steps over 1-3 keys
// and 2-4 configs, with invalidations, failing configs, and pre-bench hooks that re-enter the
// key, call a later key (nested tuning), throw, or fail the whole attempt; and the policies
// (block or fallback wait, error or fallback re-entry, a bench lock or none). The harness's own
// round runner (stress/harness/runner.h) runs it on the sim device, once per noise seed, and the model
// judges each trace; a hang is R7. The property is "no run breaks a rule", and, where the program
// makes nothing fail, "no call raises" (subject_run.h: what the model cannot vouch for itself).
//
// It must hold for the reference and for mini-correct (the broken subjects' base), and fail for
// every broken subject by one of the rules it declares (SubjectInfo::caught_by), with rapidcheck's
// shrunk counterexample printed and at most a few steps long: a property that no broken subject
// breaks would prove nothing, and one broken by a crash or another rule proves the wrong thing.
//
// Each run happens in a forked child (subprocess.h), because a broken subject may deadlock: its
// stuck threads die with the child, and shrinking can run hanging programs again and again.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "model/violation.h"
#include "stress/harness/program.h"
#include "stress/subjects/subject.h"
#include "program_draws.h"
#include "subject_run.h"


namespace safetune::model {

// How rapidcheck prints a drawn policy in a counterexample.
void showValue(WaitPolicy wait, std::ostream& out) { out << (wait == WaitPolicy::Block ? "block" : "fallback"); }
void showValue(ReentryPolicy reentry, std::ostream& out) {
  out << (reentry == ReentryPolicy::Error ? "error" : "fallback");
}

}  // namespace safetune::model

namespace safetune::property {
namespace {

// Draws one case inside a property: every draw shrinks on its own, and is printed on failure.
SubjectCase draw_case() {
  SubjectCase drawn;
  drawn.wait = *rc::gen::element(model::WaitPolicy::Block, model::WaitPolicy::Fallback);
  drawn.reentry = *rc::gen::element(model::ReentryPolicy::Error, model::ReentryPolicy::Fallback);
  drawn.bench_lock = *rc::gen::arbitrary<bool>();
  drawn.configs = *rc::gen::inRange(2, 5);
  const int keys = *rc::gen::inRange(1, 4);
  drawn.keys = keys;
  drawn.program.threads = draw_threads(*rc::gen::inRange(2, 5), keys);
  // Config 0 is the fallback and never fails (program.h); any other may.
  for (int config = 1; config < drawn.configs; ++config) {
    if (*rc::gen::weightedElement<bool>({{4, false}, {1, true}})) {
      drawn.program.failing_configs.push_back(config);
    }
  }
  drawn.program.device_seed = *rc::gen::inRange<std::uint64_t>(1, 1000000);
  return drawn;
}

// Runs of one program, each with its own schedule noise (device seed, device seed + 1, ...); the
// first that breaks a rule fails the case.
constexpr int kNoiseSeeds = 3;
// While shrinking, a candidate gets more runs. A broken subject's bug is a race that shows in only
// part of the runs (retry-storm's minimal 3-step program: 20-50% on 2 cores), and a candidate
// that still has the bug but happens not to show it is dropped, leaving the counterexample longer
// than it needs to be (a CI run once stopped above kMaxShrunkSteps). 12 runs keep a candidate
// that fails one run in five with probability 1 - 0.8^12 = 93%; one that really passes costs 12.
constexpr int kNoiseSeedsWhileShrinking = 12;

// The last failing case that the property saw: after rapidcheck's shrinking, its counterexample.
struct LastFailure {
  SubjectCase program_case;
  std::string verdict;
};

// What a broken subject's run showed: one of its declared rules (SubjectInfo::caught_by, as
// run_subject_isolated writes each: "R2 (exclusive tuning): message"), or, in a TSan build, a
// ThreadSanitizer report (the subject's race, seen before the model could see what it breaks;
// ci/mutate counts it as caught too), is the catch; another rule is a real violation, but not the
// one the subject is for; anything else (a throw, a crash, another exit) is a defect of the run.
enum class Showed { Catch, OtherRule, Defect };

Showed what_it_showed(const stress::SubjectInfo& subject, const std::string& verdict) {
  for (const model::Rule rule : model::kRules) {
    const std::string id(model::rule_id(rule));
    if (std::find(subject.caught_by.begin(), subject.caught_by.end(), id) == subject.caught_by.end()) continue;
    if (verdict.find(id + " (" + std::string(model::rule_name(rule)) + "): ") != std::string::npos) return Showed::Catch;
  }
  if (verdict.starts_with(kThreadSanitizerReport)) return Showed::Catch;
  const bool a_rule = verdict.size() > 1 && verdict[0] == 'R' && std::isdigit(static_cast<unsigned char>(verdict[1]));
  return a_rule || verdict.starts_with("incomplete: ") ? Showed::OtherRule : Showed::Defect;
}

// A broken subject's runs that were no catch: the first of each kind, for the test's output.
struct NotCaught {
  std::optional<std::string> other_rule;  // printed: a real violation, but not the declared one
  std::optional<std::string> defect;      // fails the test
};

// Once a case has failed, rapidcheck runs the property only on shrink candidates. With
// `not_caught` (a broken subject), only a catch fails the property; other verdicts are kept there.
void property_for(const stress::SubjectInfo& subject, std::optional<LastFailure>& last_failure,
                  NotCaught* not_caught = nullptr) {
  const SubjectCase drawn = draw_case();
  const int runs = last_failure.has_value() ? kNoiseSeedsWhileShrinking : kNoiseSeeds;
  for (int noise = 0; noise < runs; ++noise) {
    SubjectCase run = drawn;
    run.program.device_seed = drawn.program.device_seed + static_cast<std::uint64_t>(noise);
    const std::string verdict = run_subject_isolated(subject, run);
    if (verdict.empty()) continue;
    if (not_caught != nullptr) {
      const Showed showed = what_it_showed(subject, verdict);
      std::optional<std::string>& kept = showed == Showed::Defect ? not_caught->defect : not_caught->other_rule;
      if (showed != Showed::Catch) {
        if (!kept.has_value()) kept = describe(run) + "verdict: " + verdict;
        continue;
      }
    }
    last_failure = LastFailure{run, verdict};
    RC_FAIL("noise seed " + std::to_string(run.program.device_seed) + ": " + verdict);
  }
}

int total_steps(const stress::Program& program) {
  int steps_in_all = 0;
  for (const auto& thread : program.threads) steps_in_all += static_cast<int>(thread.steps.size());
  return steps_in_all;
}

const stress::SubjectInfo& subject_named(const std::string& name) {
  const stress::SubjectInfo* subject = stress::find_subject(name);
  if (subject == nullptr) throw std::invalid_argument("no subject named " + name);
  return *subject;
}

TEST(SubjectPrograms, HoldForTheReference) {
  std::optional<LastFailure> failure;
  EXPECT_TRUE(rc::check("reference", [&] { property_for(subject_named("reference"), failure); }));
}

TEST(SubjectPrograms, HoldForMiniCorrectTheBaseOfTheBrokenSubjects) {
  std::optional<LastFailure> failure;
  EXPECT_TRUE(rc::check("mini-correct", [&] { property_for(subject_named("mini-correct"), failure); }));
}

// A correct autotuner of another design, judged black-box (by linearizability: its benches,
// launches and invalidates are recorded by the harness around it) and white-box.
TEST(SubjectPrograms, HoldForAnotherCorrectDesignBlackBoxAndWhiteBox) {
  for (const char* name : {"future-single-flight", "future-single-flight-wb"}) {
    std::optional<LastFailure> failure;
    EXPECT_TRUE(rc::check(name, [&] { property_for(subject_named(name), failure); })) << name;
  }
}

// Every listed broken subject of one process (the registry's, so a new one is covered without a
// test change). A store subject's bug shows across processes only: process_programs_test.cpp.
std::vector<std::string> broken_subjects() {
  std::vector<std::string> names;
  for (const stress::SubjectInfo& info : stress::subject_registry()) {
    if (info.listed && info.bug != "none" && !info.scenario.store) names.push_back(info.name);
  }
  return names;
}

class BrokenSubjectPrograms : public ::testing::TestWithParam<std::string> {};

// "A few calls": the shrunk program has at most this many steps over all its threads.
constexpr int kMaxShrunkSteps = 8;
// A racy bug shows in only part of a candidate's runs, so shrinking is itself random: a candidate
// that keeps the bug can still be dropped (it failed none of its kNoiseSeedsWhileShrinking runs),
// and the search then ends on a longer counterexample. retry-storm under TSan, two tests at once
// on 2 cores: 1 search in 30 ended above kMaxShrunkSteps (9 steps). So a subject gets up to
// kSearches searches. Each must catch the bug, and the test passes at the first one that shrinks
// it to at most kMaxShrunkSteps. rapidcheck draws the same programs in each (its seed is the
// process's), so what differs is the schedules they run on, which is where the chance lies.
constexpr int kSearches = 3;

// One rapidcheck search for a program that `subject` fails: its shrunk counterexample's steps,
// or nullopt (and a test failure) when no generated program broke one of its declared rules, or
// a run ended with a defect (a throw, a crash).
std::optional<int> search_shrunk_steps(const stress::SubjectInfo& subject, int search) {
  std::optional<LastFailure> failure;
  NotCaught not_caught;
  // Its own name, so that rapidcheck's "reproduce" string at exit names each search apart.
  const std::string description = subject.name + " (search " + std::to_string(search) + ")";
  const bool held = rc::check(description, [&] { property_for(subject, failure, &not_caught); });
  if (not_caught.other_rule.has_value())
    std::cout << subject.name << ": a run broke a rule it is not declared for (not counted as its catch):\n"
              << *not_caught.other_rule << '\n';
  if (not_caught.defect.has_value()) {
    ADD_FAILURE() << subject.name << ": a run ended with neither a rule nor a clean pass:\n" << *not_caught.defect;
    return std::nullopt;
  }
  if (held) {
    ADD_FAILURE() << subject.name << ": no generated program broke one of its declared rules";
    return std::nullopt;
  }
  if (!failure.has_value()) {
    ADD_FAILURE() << subject.name << ": rapidcheck failed, but no case did";
    return std::nullopt;
  }
  // rapidcheck lists every failed property at exit ("Some of your RapidCheck properties had
  // failures"): for the broken subjects those failures are the expected outcome.
  const int steps = total_steps(failure->program_case.program);
  std::cout << "expected failure; shrunk counterexample for " << subject.name << " (" << steps
            << " steps):\n"
            << describe(failure->program_case) << "verdict: " << failure->verdict << '\n';
  return steps;
}

TEST_P(BrokenSubjectPrograms, FailWithAShrunkCounterexample) {
  const stress::SubjectInfo& subject = subject_named(GetParam());
  int shortest = std::numeric_limits<int>::max();
  for (int search = 1; search <= kSearches; ++search) {
    const std::optional<int> steps = search_shrunk_steps(subject, search);
    if (!steps.has_value()) return;  // already a failure: the subject was not caught
    if (*steps <= kMaxShrunkSteps) return;
    shortest = std::min(shortest, *steps);
  }
  ADD_FAILURE() << subject.name << ": " << kSearches << " searches shrank to more than "
                << kMaxShrunkSteps << " steps, the shortest to " << shortest;
}

INSTANTIATE_TEST_SUITE_P(EveryBrokenSubject, BrokenSubjectPrograms,
                         ::testing::ValuesIn(broken_subjects()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return test_name_of(info.param); });

}  // namespace
}  // namespace safetune::property
