// The kill line's pause (stress/harness/owner_kills.h): a worker that asks to be paused is stopped,
// continued, and then goes on, whether or not a SIGCONT handler of its own ever runs.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "stress/harness/owner_kills.h"

namespace safetune::stress {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPause = std::chrono::milliseconds(50);
constexpr auto kLimit = std::chrono::seconds(10);  // a worker left stopped for good fails at this

// Forks a worker, numbered `process`, that asks to be paused with SIGCONT blocked in its threads
// (so no handler of its could run: under ThreadSanitizer one sometimes never does), then exits 0.
// The parent serves the line until the worker ends, or kills it at kLimit. The worker must have
// been stopped, and must go on and exit 0 once continued.
void expect_paused_then_going_on(int process) {
  KillLine line(kPause);
  const pid_t pid = ::fork();
  if (pid == 0) {
    line.close_parent_end();
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGCONT);
    ::pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
    line.ask_to_be_paused(process);
    ::_exit(0);
  }
  std::vector<WorkerProcess> workers{WorkerProcess{.process = process, .pid = pid}};
  const auto start = Clock::now();
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() - start > kLimit) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL() << "worker " << process << " was continued but never went on: it waits for a SIGCONT handler";
    }
    line.serve(workers, std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(workers[0].pause_asked) << "the worker was never stopped";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST(KillLine, APausedWorkerGoesOnOnceContinuedWithNoSignalHandlerOfItsOwn) { expect_paused_then_going_on(3); }

// Process numbers past the slots' count share a slot with a lower one (never one running at the
// same time): the pause still ends.
TEST(KillLine, AProcessNumberPastTheSlotsIsPausedAndContinuedToo) { expect_paused_then_going_on(1000); }

}  // namespace
}  // namespace safetune::stress
