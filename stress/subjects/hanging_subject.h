// `test-hang`: a test-only subject whose calls never return. It exists so that a test can show
// the watchdog turning a hang into an R7 report and exit 1 without joining stuck threads. It is
// not listed by `safetune subjects`.
#pragma once

#include <memory>

#include "stress/subjects/subject.h"

namespace safetune::stress {

std::unique_ptr<Subject> make_hanging_subject(const SubjectEnvironment& environment);

}  // namespace safetune::stress
