// `stale-publish` (stale_publish.h) on real threads, for `safetune stress`.
#include "stress/subjects/stale_publish.h"

#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_stale_publish(const SubjectEnvironment& environment) {
  return std::make_unique<StalePublish<StdSync>>(environment);
}

}  // namespace safetune::stress::subjects
