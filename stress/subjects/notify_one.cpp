// `notify-one` (notify_one.h) on real threads, for `safetune stress`.
#include "stress/subjects/notify_one.h"

#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_notify_one(const SubjectEnvironment& environment) {
  return std::make_unique<NotifyOne<StdSync>>(environment);
}

}  // namespace safetune::stress::subjects
