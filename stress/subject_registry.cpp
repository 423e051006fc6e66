// The list of subjects. Add a broken subject here: name, its bug in one line, white-box or not.
#include "hanging_subject.h"
#include "reference_subject.h"
#include "subject.h"

namespace safetune::stress {

const std::vector<SubjectInfo>& subject_registry() {
  static const std::vector<SubjectInfo> registry = {
      {"reference", "none", true, true, make_reference_subject},
      {"test-hang", "every call blocks forever (test-only: exercises the watchdog)", false, false,
       make_hanging_subject},
  };
  return registry;
}

const SubjectInfo* find_subject(std::string_view name) {
  for (const SubjectInfo& info : subject_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

}  // namespace safetune::stress
