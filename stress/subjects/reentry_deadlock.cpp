// `reentry-deadlock` (reentry_deadlock.h) on real threads, for `safetune stress`.
#include "stress/subjects/reentry_deadlock.h"

#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_reentry_deadlock(const SubjectEnvironment& environment) {
  return std::make_unique<ReentryDeadlock<StdSync>>(environment);
}

}  // namespace safetune::stress::subjects
