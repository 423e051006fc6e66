// `retry-storm` (retry_storm.h) on real threads, for `safetune stress`.
#include "stress/subjects/retry_storm.h"

#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_retry_storm(const SubjectEnvironment& environment) {
  return std::make_unique<RetryStorm<StdSync>>(environment);
}

}  // namespace safetune::stress::subjects
