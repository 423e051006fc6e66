// The list of subjects. Add a broken subject here: name, its bug in one line, white-box or not,
// listed or not, its factory, and the scenario its bug class lives in (subject.h: Scenario).
#include "hanging_subject.h"
#include "reference_subject.h"
#include "subject.h"
#include "subjects/subjects.h"

namespace safetune::stress {

const std::vector<SubjectInfo>& subject_registry() {
  using namespace subjects;
  static const std::vector<SubjectInfo> registry = {
      {"reference", "none", true, true, make_reference_subject},
      {"unlocked",
       "Triton's shape: shared fields, no in-flight marker: cold calls tune twice, and a call "
       "whose shared args were cleared raises",
       false, true, make_unlocked},
      {"check-then-act", "locked lookup, but a miss tunes outside the lock with no in-flight "
       "marker: duplicate tuning", false, true, make_check_then_act},
      {"notify-one", "waiters woken with notify_one on a shared condvar: lost wakeup, a hang",
       true, true, make_notify_one},
      {"no-wake-on-failure", "an attempt where every config fails never wakes its waiters: a hang",
       true, true, make_no_wake_on_failure, {"faults"}},
      {"global-lock", "one lock held through benchmarking: tuned keys wait behind any tuning",
       true, true, make_global_lock},
      {"reentry-deadlock", "a same-key re-entry from a hook waits on its own attempt: a hang",
       true, true, make_reentry_deadlock, {"reentry"}},
      {"nested-deadlock", "the bench lock is not re-entrant and is held across hooks: nested "
       "tuning of another key deadlocks", true, true, make_nested_deadlock, {"nested"}},
      {"wrong-argmin", "the winner is the last config benched, not the fastest", true, true,
       make_wrong_argmin},
      {"stale-publish", "the key is marked tuned before its config is written (late, unlocked): "
       "readers launch a stale config", true, true, make_stale_publish},
      {"retry-storm", "after a failed attempt every waiter starts its own attempt at once", true,
       true, make_retry_storm, {"faults"}},
      {"fallback-leak", "under the fallback policy a fallback launch is cached as the winner "
       "(insert-if-absent cache)", true, true, make_fallback_leak, {"plain", "fallback"}},
      {"mini-correct", "none (test-only: the base the broken subjects derive from)", true, false,
       make_mini_correct},
      {"test-hang", "every call blocks forever (test-only: exercises the watchdog)", false, false,
       make_hanging_subject},
  };
  return registry;
}

const SubjectInfo* find_subject(std::string_view name) {
  for (const SubjectInfo& info : subject_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

}  // namespace safetune::stress
