// `mini-correct` (test-only, not listed): MiniTuner with no step overridden. It must pass every
// scenario, which shows that each broken subject is caught for its override, not for the base.
#include "stress/subjects/mini_tuner.h"
#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_mini_correct(const SubjectEnvironment& environment) {
  return std::make_unique<MiniTuner>(environment);
}

}  // namespace safetune::stress::subjects
