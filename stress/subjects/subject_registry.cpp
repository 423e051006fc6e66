// The list of subjects. A built-in subject is its header (stress/subjects/NAME.h) and one row
// here: its #include below, and a SubjectInfo with its name, its bug in one line, white-box or
// not, listed or not, its factory (make_subject<Class>), the scenario its bug class lives in
// (subject.h: Scenario), and the rules that catch it (docs/subjects.md, "Adding a subject").
// A program's own subjects join after these through add_subjects (run_cli.h).
#include <algorithm>
#include <stdexcept>

#include "impl/sync.h"
#include "model/policy.h"
#include "model/violation.h"
#include "stress/harness/program.h"
#include "stress/subjects/check_then_act.h"
#include "stress/subjects/fallback_leak.h"
#include "stress/subjects/future_single_flight.h"
#include "stress/subjects/global_lock.h"
#include "stress/subjects/hanging_subject.h"
#include "stress/subjects/mini_tuner.h"
#include "stress/subjects/nested_deadlock.h"
#include "stress/subjects/no_wake_on_failure.h"
#include "stress/subjects/notify_one.h"
#include "stress/subjects/reentry_deadlock.h"
#include "stress/subjects/reference_subject.h"
#include "stress/subjects/retry_storm.h"
#include "stress/subjects/stale_publish.h"
#include "stress/subjects/stores/in_place_store.h"
#include "stress/subjects/stores/last_writer_wins_store.h"
#include "stress/subjects/stores/no_fsync_store.h"
#include "stress/subjects/stores/stale_lock_store.h"
#include "stress/subjects/stores/trusting_store.h"
#include "stress/subjects/subject.h"
#ifdef SAFETUNE_HAS_REDIS_STORE
#include "stress/subjects/redis_stores/redis_last_writer_wins_store.h"
#include "stress/subjects/redis_stores/redis_unbounded_wait_store.h"
#include "stress/subjects/redis_stores/redis_unfenced_lease_store.h"
#include "stress/subjects/redis_stores/redis_unrenewed_lease_store.h"
#endif
#include "stress/subjects/timeout_retune.h"
#include "stress/subjects/unlocked.h"
#include "stress/subjects/wrong_argmin.h"

namespace safetune::stress {
namespace {

std::vector<SubjectInfo> builtin_subjects() {
  using namespace subjects;
  const Scenario faults{.mix = "faults"};
  return {
      {.name = "reference", .bug = "none", .white_box = true, .make = make_reference_subject},
      {.name = "unlocked",
       .bug = "Triton's shape: shared fields, no in-flight marker: cold calls tune twice, and a call "
              "whose shared args were cleared raises",
       .make = make_subject<Unlocked>,
       .caught_by = {"R2", "R3"}},
      {.name = "check-then-act",
       .bug = "locked lookup, but a miss tunes outside the lock with no in-flight marker: duplicate tuning",
       .make = make_subject<CheckThenAct<StdSync>>,
       .caught_by = {"R2", "R3"}},
      {.name = "notify-one",
       .bug = "waiters woken with notify_one on a shared condvar: lost wakeup, a hang",
       .white_box = true,
       .make = make_subject<NotifyOne<StdSync>>,
       .caught_by = {"R7"}},
      {.name = "no-wake-on-failure",
       .bug = "an attempt where every config fails never wakes its waiters: a hang",
       .white_box = true,
       .make = make_subject<NoWakeOnFailure<StdSync>>,
       .scenario = faults,
       .caught_by = {"R7"}},
      {.name = "global-lock",
       .bug = "one lock held through benchmarking: tuned keys wait behind any tuning",
       .white_box = true,
       .make = make_subject<GlobalLock>,
       .caught_by = {"R10"}},
      {.name = "reentry-deadlock",
       .bug = "a same-key re-entry from a hook waits on its own attempt: a hang",
       .white_box = true,
       .make = make_subject<ReentryDeadlock<StdSync>>,
       .scenario = {.mix = "reentry"},
       .caught_by = {"R7", "R9"}},
      {.name = "nested-deadlock",
       .bug = "the bench lock is not re-entrant and is held across hooks: nested tuning of another key deadlocks",
       .white_box = true,
       .make = make_subject<NestedDeadlock<StdSync>>,
       .scenario = {.mix = "nested"},
       .caught_by = {"R7"}},
      {.name = "wrong-argmin",
       .bug = "the winner is the last config benched, not the fastest",
       .white_box = true,
       .make = make_subject<WrongArgmin>,
       .caught_by = {"R4"}},
      {.name = "stale-publish",
       .bug = "the key is marked tuned before its config is written (late, unlocked): readers launch a stale config",
       .white_box = true,
       .make = make_subject<StalePublish<StdSync>>,
       .caught_by = {"R5"}},
      {.name = "retry-storm",
       .bug = "after a failed attempt every waiter starts its own attempt at once",
       .white_box = true,
       .make = make_subject<RetryStorm<StdSync>>,
       .scenario = faults,
       .caught_by = {"R2", "R3"}},
      {.name = "fallback-leak",
       .bug = "under the fallback policy a fallback launch is cached as the winner (insert-if-absent cache)",
       .white_box = true,
       .make = make_subject<FallbackLeak>,
       .scenario = {.mix = "plain", .wait = "fallback"},
       .caught_by = {"R5"}},
      // Another design than the reference's, correct (docs/subjects.md): black-box, and the same
      // code reporting its own white-box events.
      {.name = "future-single-flight", .bug = "none", .make = make_subject<FutureSingleFlight>, .scenario = {.mix = "full"}},
      {.name = "future-single-flight-wb",
       .bug = "none",
       .white_box = true,
       .make = make_subject<FutureSingleFlight>,
       .scenario = {.mix = "full"}},
      {.name = "timeout-retune",
       .bug = "future-single-flight whose waiters give up after 100 us and tune again themselves",
       .make = make_subject<TimeoutRetune>,
       .caught_by = {"R2", "R3"}},
      // The reference autotuner over a broken results store (stress/subjects/stores/), across
      // worker processes on one directory store.
      {.name = "store-last-writer-wins",
       .bug = "a store with no single flight: every process that misses tunes, the last publication wins",
       .white_box = true,
       .make = make_store_subject<LastWriterWinsStore>,
       .scenario = {.processes = 4, .store = true},
       .caught_by = {"R2", "R3"}},
      {.name = "store-stale-lock",
       .bug = "claims are O_EXCL lock files taken over after a fixed 2 ms: a slow live owner loses its exclusion",
       .white_box = true,
       .make = make_store_subject<StaleLockStore>,
       .scenario = {.processes = 4, .store = true},
       .caught_by = {"R2", "R3"}},
      {.name = "store-trusts-any-entry",
       .bug = "entries are trusted with no key, schema or fingerprint check: a swapped entry's winner is launched",
       .white_box = true,
       .make = make_store_subject<TrustingStore>,
       .scenario = {.processes = 4, .store = true, .restart = true, .damage_store = true},
       .caught_by = {"R12"}},
      {.name = "store-writes-in-place",
       .bug = "entries are written into their own file a piece at a time (no temp file, no rename): readers see torn entries",
       .white_box = true,
       .make = make_store_subject<InPlaceStore>,
       // Under fallback, a call that finds the key tuned elsewhere launches the fallback and
       // comes back: its process looks the entry up again and again while it is being written.
       .scenario = {.wait = "fallback", .processes = 4, .store = true},
       .caught_by = {"R12"}},
      {.name = "store-skips-fsync",
       .bug = "publications are linked into place with no fsync of the file or the directory: a power loss takes them",
       .white_box = true,
       .make = make_store_subject<NoFsyncStore>,
       .scenario = {.processes = 4, .store = true, .restart = true},
       .caught_by = {"R3", "R12"}},
#ifdef SAFETUNE_HAS_REDIS_STORE
      // The reference over a broken Redis store (stress/subjects/redis_stores/), across worker
      // processes on a redis-server of the run's own.
      {.name = "redis-last-writer-wins",
       .bug = "a Redis store of plain GET and SET with no lease: every process that misses tunes, the last SET wins",
       .white_box = true,
       .make = make_store_subject<RedisLastWriterWinsStore>,
       .scenario = {.processes = 4, .store = true, .redis = true},
       .caught_by = {"R2", "R3"}},
      {.name = "redis-lease-without-fencing",
       .bug = "a Redis lease whose publication never checks the owner's token: an owner paused past its lease publishes over the takeover's winner",
       .white_box = true,
       .make = make_store_subject<RedisUnfencedLeaseStore>,
       .scenario = {.processes = 4, .store = true, .redis = true, .pause_owners = 1},
       .caught_by = {"R2", "R12"}},
      {.name = "redis-lease-never-renewed",
       .bug = "a Redis lease that is never renewed: an owner whose benchmark outlasts it is taken over while it benches on",
       .white_box = true,
       .make = make_store_subject<RedisUnrenewedLeaseStore>,
       // A lease of 2 s (a quarter of the watchdog), stalls of 4 s: a heartbeat starved by the
       // busy threads of a small machine would need over a second to lose the reference's lease.
       .scenario = {.processes = 4, .store = true, .redis = true, .stall_owners = 1, .watchdog_seconds = 8},
       .caught_by = {"R2"}},
      {.name = "redis-unbounded-wait-on-dead-server",
       .bug = "a Redis store that waits for a dead server to come back, with no bound: every cold call hangs",
       .white_box = true,
       .make = make_store_subject<RedisUnboundedWaitStore>,
       .scenario = {.processes = 4, .store = true, .redis = true, .store_down = true},
       .caught_by = {"R7"}},
#endif
      {.name = "mini-correct",
       .bug = "none (test-only: the base the broken subjects derive from)",
       .white_box = true,
       .listed = false,
       .make = make_subject<MiniTuner>},
      {.name = "test-hang",
       .bug = "every call blocks forever (test-only: exercises the watchdog)",
       .listed = false,
       .make = make_hanging_subject},
  };
}

// The one registry: the built-in subjects, then whatever add_subjects appended at start-up.
std::vector<SubjectInfo>& registry() {
  static std::vector<SubjectInfo> subjects = builtin_subjects();
  return subjects;
}

bool is_name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool is_builtin(std::string_view name) {
  const std::vector<SubjectInfo> builtins = builtin_subjects();
  return std::any_of(builtins.begin(), builtins.end(),
                     [name](const SubjectInfo& info) { return info.name == name; });
}

// "" when `name` is free and would survive being pasted into a shell line, else the reason.
std::string name_problem(const std::string& name, const std::vector<SubjectInfo>& taken) {
  if (name.empty()) return "its name is empty";
  if (name.front() == '-') return "its name starts with '-' and would read as a flag";
  if (!std::all_of(name.begin(), name.end(), is_name_character)) {
    return "its name may hold only letters, digits, '.', '_' and '-' (it goes into the replay line)";
  }
  const bool clash = std::any_of(taken.begin(), taken.end(),
                                 [&name](const SubjectInfo& info) { return info.name == name; });
  if (!clash) return "";
  return is_builtin(name) ? "a built-in subject has that name; give yours another one"
                          : "a subject of that name was already added";
}

bool is_rule_id(const std::string& id) {
  for (std::size_t i = 0; i < model::kRuleCount; ++i)
    if (model::rule_id(model::kRules[i]) == id) return true;
  return false;
}

std::string scenario_problem(const Scenario& scenario) {
  const std::vector<std::string>& mixes = mix_names();
  if (std::find(mixes.begin(), mixes.end(), scenario.mix) == mixes.end()) {
    std::string known;
    for (const std::string& mix : mixes) known += (known.empty() ? "" : ", ") + mix;
    return "its scenario's mix '" + scenario.mix + "' is not one of " + known;
  }
  if (!model::parse_wait_policy(scenario.wait)) {
    return "its scenario's wait '" + scenario.wait + "' is not block or fallback";
  }
  if (!model::parse_reentry_policy(scenario.reentry)) {
    return "its scenario's reentry '" + scenario.reentry + "' is not error or fallback";
  }
  if (scenario.processes < 1 || scenario.processes > kMaxProcesses) {
    return "its scenario's processes " + std::to_string(scenario.processes) + " is not from 1 to " + std::to_string(kMaxProcesses);
  }
  if (scenario.restart && !scenario.store) return "its scenario restarts with no store to restart on";
  if (scenario.damage_store && !scenario.restart) return "its scenario damages the store with no restart to find it";
  if (scenario.redis && !scenario.store) return "its scenario asks for a Redis store with no store";
  if (scenario.redis && scenario.damage_store) return "its scenario damages a directory store's files on a Redis store";
  if (scenario.store_down && !scenario.redis) return "its scenario has no server with no Redis store";
  if (scenario.store_down && scenario.restart) return "its scenario restarts on a store that is down";
  // The faults that strike an owner mid-bench: a rate each, and worker processes to strike.
  for (const auto& [name, rate] : {std::pair{"pause_owners", scenario.pause_owners}, std::pair{"stall_owners", scenario.stall_owners}}) {
    if (!(rate >= 0 && rate <= 1)) return std::string("its scenario's ") + name + " " + std::to_string(rate) + " is not from 0 to 1";
    if (rate > 0 && !scenario.store && scenario.processes == 1)
      return std::string("its scenario's ") + name + " strikes owners with no worker processes (no store, one process)";
  }
  if (!(scenario.watchdog_seconds >= 0 && scenario.watchdog_seconds <= 3600))
    return "its scenario's watchdog_seconds " + std::to_string(scenario.watchdog_seconds) + " is not from 0 to 3600";
  return "";
}

// "" when `info` may join a registry holding `taken`, else the reason.
std::string subject_problem(const SubjectInfo& info, const std::vector<SubjectInfo>& taken) {
  if (std::string problem = name_problem(info.name, taken); !problem.empty()) return problem;
  if (info.bug.empty() || info.bug.find('\n') != std::string::npos) {
    return "its bug must be one non-empty line (\"none\" for a correct autotuner)";
  }
  if (!info.make) return "it has no factory (SubjectInfo::make is empty)";
  for (const std::string& rule : info.caught_by) {
    if (!is_rule_id(rule)) return "its caught_by names '" + rule + "', which is not a rule id (R1 to R14)";
  }
  return scenario_problem(info.scenario);
}

}  // namespace

const std::vector<SubjectInfo>& subject_registry() { return registry(); }

const SubjectInfo* find_subject(std::string_view name) {
  for (const SubjectInfo& info : subject_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

void add_subjects(std::vector<SubjectInfo> subjects) {
  if (subjects.empty()) return;  // the built-in command: the registry is not touched
  // Checked against the registry plus the ones before it, so that nothing is added on an error.
  std::vector<SubjectInfo> taken = registry();
  for (SubjectInfo& info : subjects) {
    const std::string problem = subject_problem(info, taken);
    if (!problem.empty()) {
      throw std::invalid_argument("cannot add subject '" + info.name + "': " + problem);
    }
    taken.push_back(std::move(info));
  }
  registry() = std::move(taken);
}

}  // namespace safetune::stress
