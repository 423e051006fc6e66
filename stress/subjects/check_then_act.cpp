// `check-then-act` (check_then_act.h) on real threads, for `safetune stress`.
#include "stress/subjects/check_then_act.h"

#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {

std::unique_ptr<Subject> make_check_then_act(const SubjectEnvironment& environment) {
  return std::make_unique<CheckThenAct<StdSync>>(environment);
}

}  // namespace safetune::stress::subjects
