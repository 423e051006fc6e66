// The deliberately broken subjects (issue 3): each is a small autotuner with one real bug class,
// in its own file. Most derive from MiniTuner (mini_tuner.h) and override the one step where
// their bug lives; `unlocked` and `check-then-act` stand alone, black-box, as a user's autotuner
// would. Those whose bug is a synchronization bug are class templates on the sync policy, in
// their own header, so that the formal tests run the same code under Relacy; their .cpp holds
// only the factory below, which binds them to real threads. subject_registry.cpp lists them with
// their one-line bug and their scenario, and docs/subjects.md says how each is caught.
#pragma once

#include <memory>

#include "stress/subjects/subject.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_mini_correct(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_unlocked(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_check_then_act(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_notify_one(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_no_wake_on_failure(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_global_lock(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_reentry_deadlock(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_nested_deadlock(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_wrong_argmin(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_stale_publish(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_retry_storm(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_fallback_leak(const SubjectEnvironment& environment);
// Another design, written anew (future_single_flight.h): a correct one, and its broken twin.
std::unique_ptr<Subject> make_future_single_flight(const SubjectEnvironment& environment);
std::unique_ptr<Subject> make_timeout_retune(const SubjectEnvironment& environment);

}  // namespace safetune::stress::subjects
