// `safetune subjects`: one line per listed subject, its name and the bug it has.
#include <iomanip>
#include <ostream>

#include "stress/cli/commands.h"
#include "stress/subjects/subject.h"

namespace safetune::stress {

int list_subjects(std::ostream& out) {
  for (const SubjectInfo& info : subject_registry()) {
    if (!info.listed) continue;
    out << std::left << std::setw(24) << info.name << ' ' << info.bug << '\n';
  }
  return 0;
}

}  // namespace safetune::stress
