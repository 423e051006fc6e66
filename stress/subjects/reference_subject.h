// The `reference` subject: safetune's own Autotuner (impl/autotuner.h), white-box.
#pragma once

#include <memory>

#include "stress/subjects/subject.h"

namespace safetune::stress {

std::unique_ptr<Subject> make_reference_subject(const SubjectEnvironment& environment);

}  // namespace safetune::stress
