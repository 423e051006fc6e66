// One run of a stress program against a subject, in a forked child, judged by the model.
//
// Why a child process: a broken subject may deadlock, and its stuck threads can be neither
// joined nor abandoned safely in the test process (they point into the round's objects). The
// child runs the round (stress/harness/runner.h) with a short watchdog, sends back its verdict through a
// pipe and exits without joining anything; the parent kills it if even that takes too long.
// The parent creates no threads, so forking it is safe.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/event.h"
#include "model/violation.h"
#include "stress/harness/program.h"
#include "stress/subjects/subject.h"
#include "tests/common/sanitizer_build.h"

namespace safetune::property {

// A generated program and the policies it runs under; configs are stress_config_space(configs).
struct SubjectCase {
  stress::Program program;
  int keys = 1;     // the program's keys are k0 .. k(keys-1)
  int configs = 2;  // config 0 is the fallback
  model::WaitPolicy wait = model::WaitPolicy::Block;
  model::ReentryPolicy reentry = model::ReentryPolicy::Error;
  bool bench_lock = false;
};

// The policies, then the program as `safetune stress --print-program` prints it.
std::string describe(const SubjectCase& program_case);
void showValue(const SubjectCase& program_case, std::ostream& out);

using testing::kThreadSanitizerBuild;

// How a verdict begins when the child died of a ThreadSanitizer report (TSan builds only).
inline constexpr std::string_view kThreadSanitizerReport = "ThreadSanitizer reported a data race";

// A subject's name as a gtest parameter's name ("store-stale-lock" -> "store_stale_lock").
std::string test_name_of(const std::string& subject);

// Each broken rule with the model's message, "; " between: "R7 (termination): ...".
std::string verdict_of(const std::vector<model::Violation>& violations);

// Runs the case once; returns "" when the trace breaks no rule, else the verdict: each broken
// rule with the model's message ("R7 (termination): ..."), how the child died, or, for a trace
// that the model passes, calls that raised where the program made nothing fail ("outcome: ...").
std::string run_subject_isolated(const stress::SubjectInfo& subject, const SubjectCase& program_case);

}  // namespace safetune::property
