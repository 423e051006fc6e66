#include "subject_run.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "impl/posix/write_all.h"
#include "model/checker.h"
#include "stress/cli/options.h"
#include "stress/harness/runner.h"
#include "stress/harness/watchdog.h"

namespace safetune::property {
namespace {

// A round of a few steps finishes in milliseconds; a call that completes nothing for this long
// is a hang (R7). Short, because shrinking a deadlocking program runs it many times.
constexpr double kWatchdogSeconds = 0.5;
// The parent's limit for the whole child, watchdog included, before it kills it.
constexpr int kChildLimitMs = 20000;

std::string policies(const SubjectCase& program_case) {
  std::ostringstream out;
  out << "wait " << (program_case.wait == model::WaitPolicy::Block ? "block" : "fallback")
      << ", reentry " << (program_case.reentry == model::ReentryPolicy::Error ? "error" : "fallback")
      << (program_case.bench_lock ? ", bench lock" : ", no bench lock") << ", "
      << program_case.keys << " keys, " << program_case.configs << " configs";
  return out.str();
}

stress::StressOptions options_for(const stress::SubjectInfo& subject, const SubjectCase& program_case) {
  stress::StressOptions options;
  options.subject = subject.name;
  options.shape.threads = static_cast<int>(program_case.program.threads.size());
  options.shape.keys = program_case.keys;
  options.shape.configs = program_case.configs;
  options.wait = program_case.wait;
  options.reentry = program_case.reentry;
  options.bench_lock = program_case.bench_lock;
  options.watchdog_seconds = kWatchdogSeconds;
  return options;
}

// The parent is gone when it fails: nobody to tell.
void write_all(int fd, const std::string& text) { (void)posix::write_all(fd, text); }

// Whether the program makes nothing fail: no failing config, and no hook that throws, fails the
// attempt, re-enters (an error under policy error) or nests (a cycle's answer may be an error).
bool makes_nothing_fail(const stress::Program& program) {
  if (!program.failing_configs.empty()) return false;
  for (const stress::ThreadProgram& thread : program.threads)
    for (const stress::ProgramStep& step : thread.steps)
      if (step.hook != stress::HookAction::None) return false;
  return true;
}

// The verdict of a finished round: the model's, and, where the model passes the trace, the
// outcome it cannot vouch for itself: a call that raised where the program made nothing fail.
std::string round_verdict(const SubjectCase& program_case, const model::Trace& trace) {
  const model::CheckResult result = model::check(trace);
  if (!result.violations.empty()) return verdict_of(result.violations);
  if (makes_nothing_fail(program_case.program) && result.stats.errors > 0)
    return "outcome: " + std::to_string(result.stats.errors) +
           " call(s) raised, though the program made nothing fail, and the model passed the trace";
  return "";
}

// In the child: runs the round, writes the verdict to `fd`, and never returns.
[[noreturn]] void run_child(const stress::SubjectInfo& subject, const SubjectCase& program_case, int fd) {
  try {
    stress::RoundMonitor monitor;
    monitor.watchdog_limit = std::chrono::duration<double>(kWatchdogSeconds);
    monitor.on_hang = [fd](const model::Trace& snapshot, const std::optional<std::string>& incomplete) {
      if (incomplete) write_all(fd, "incomplete: " + *incomplete);
      model::CheckResult result = model::check(snapshot);
      stress::mark_stuck_calls(result, kWatchdogSeconds);
      if (!incomplete) write_all(fd, verdict_of(result.violations));
      std::_Exit(0);  // never join the stuck workers
    };
    const stress::RoundResult round =
        stress::run_round(options_for(subject, program_case), subject, program_case.program, monitor);
    if (round.incomplete) write_all(fd, "incomplete: " + *round.incomplete);
    else write_all(fd, round_verdict(program_case, round.trace));
  } catch (const std::exception& error) {
    write_all(fd, std::string("the run threw: ") + error.what());
  }
  std::_Exit(0);
}

// Reads until end of file or until the limit passes; false when the limit passed first.
bool read_until_eof(int fd, std::string& text, int limit_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  char buffer[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd readable{fd, POLLIN, 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw std::runtime_error("poll() on the child's pipe failed");
    if (ready == 0) return false;  // the limit passed
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

// ThreadSanitizer's exit status after a report (its `exitcode` option's default).
constexpr int kThreadSanitizerExit = 66;

std::string how_it_died(int status) {
  if (WIFSIGNALED(status)) return "the run crashed with signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) == kThreadSanitizerExit && kThreadSanitizerBuild) {
    return std::string(kThreadSanitizerReport) + " (exit " + std::to_string(kThreadSanitizerExit) + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    return "the run exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return "";
}

}  // namespace

std::string verdict_of(const std::vector<model::Violation>& violations) {
  std::string verdict;
  for (const model::Violation& violation : violations) {
    if (!verdict.empty()) verdict += "; ";
    verdict += std::string(model::rule_id(violation.rule)) + " (" +
               std::string(model::rule_name(violation.rule)) + "): " + violation.message;
  }
  return verdict;
}

std::string test_name_of(const std::string& subject) {
  std::string name = subject;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::string describe(const SubjectCase& program_case) {
  return policies(program_case) + "\n" + stress::describe(program_case.program);
}

void showValue(const SubjectCase& program_case, std::ostream& out) { out << describe(program_case); }

std::string run_subject_isolated(const stress::SubjectInfo& subject, const SubjectCase& program_case) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe() failed");
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork() failed");
  if (child == 0) {
    ::close(pipe_fds[0]);
    run_child(subject, program_case, pipe_fds[1]);
  }
  ::close(pipe_fds[1]);
  std::string verdict;
  const bool finished = read_until_eof(pipe_fds[0], verdict, kChildLimitMs);
  ::close(pipe_fds[0]);
  if (!finished) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) return "R7 (termination): the run did not end within " + std::to_string(kChildLimitMs) + " ms";
  const std::string death = how_it_died(status);
  if (!death.empty()) return verdict.empty() ? death : death + "; " + verdict;
  return verdict;
}

}  // namespace safetune::property
