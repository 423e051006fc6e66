// `no-wake-on-failure` (no_wake_on_failure.h) on real threads, for `safetune stress`.
#include "stress/subjects/no_wake_on_failure.h"

#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_no_wake_on_failure(const SubjectEnvironment& environment) {
  return std::make_unique<NoWakeOnFailure<StdSync>>(environment);
}

}  // namespace safetune::stress::subjects
