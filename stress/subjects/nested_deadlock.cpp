// `nested-deadlock` (nested_deadlock.h) on real threads, for `safetune stress`.
#include "stress/subjects/nested_deadlock.h"

#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_nested_deadlock(const SubjectEnvironment& environment) {
  return std::make_unique<NestedDeadlock<StdSync>>(environment);
}

}  // namespace safetune::stress::subjects
