// --kill-owners: worker processes killed with SIGKILL while they own an attempt (mid-bench).
// --pause-owners: worker processes stopped with SIGSTOP while they own an attempt, for longer
// than a Redis store's lease, then continued with SIGCONT: the fencing case (a paused owner's lease
// runs out, another process takes the attempt over, and the paused one must not publish).
// --stall-owners: an owner sleeps as long in one of its benches, its process running on: a lease
// renewed by a heartbeat holds, and one never renewed runs out (the worker does it alone).
//
// Which worker dies, and at which of its benches, is drawn from the seed, the round and its
// process number (kill_point), so that a replay kills the same ones at the same benches. At that
// bench the worker freezes its recording (its trace then ends with its exit: runner.h,
// ProcessRole), writes its trace, asks the parent through the kill line, and waits; the parent
// sends the SIGKILL. The kernel then drops the worker's OFD locks, and another process takes the
// attempt over. A pause is asked the same way, at its own bench (pause_point): the parent stops the
// worker and continues it `pause` later, and the worker's thread that asked waits until then.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "stress/cli/options.h"
#include "stress/harness/shared_counters.h"

namespace safetune::stress {

// 0: this worker is not killed; n > 0: it is killed at its n-th bench (its first attempt's, when
// it owns one: n is at most --configs).
int kill_point(const StressOptions& options, std::uint64_t round, int process);
// The same for --pause-owners (0: not paused; n: paused at its n-th bench).
int pause_point(const StressOptions& options, std::uint64_t round, int process);
// The same for --stall-owners (0: no stall; n: its owner sleeps pause_length() at its n-th bench,
// the process running on: a slow benchmark, during which a lease that is renewed holds).
int stall_point(const StressOptions& options, std::uint64_t round, int process);
// How long a paused worker stays stopped: twice a stress run's Redis lease (round_store.h), so
// that the lease runs out; half the watchdog's limit by default, so no watchdog reads a hang.
std::chrono::milliseconds pause_length(const StressOptions& options);

// A worker process of a generation, as its parent sees it.
struct WorkerProcess {
  int process = 0;
  pid_t pid = -1;
  bool kill_asked = false;  // it asked for its SIGKILL, and got it
  bool pause_asked = false; // it asked to be paused, and was stopped
  std::optional<std::chrono::steady_clock::time_point> resume_at{};  // stopped until then
  bool reaped = false;
  int status = 0;           // waitpid's, once reaped
};

// The pipe through which workers ask for their SIGKILL, or their pause, and the shared page
// through which the parent tells a paused worker it was continued. Made before the fork: a
// worker uses ask_to_be_killed() or ask_to_be_paused(), the parent serve().
class KillLine {
 public:
  explicit KillLine(std::chrono::milliseconds pause = std::chrono::milliseconds(1000));
  ~KillLine();
  KillLine(const KillLine&) = delete;
  KillLine& operator=(const KillLine&) = delete;

  // In a worker, after fork: it keeps only the end it writes.
  void close_parent_end();
  // In a worker: asks for SIGKILL and waits for it.
  [[noreturn]] void ask_to_be_killed(int process) const;
  // In a worker: asks to be stopped for the pause, and returns once it was continued.
  void ask_to_be_paused(int process) const;
  // In the parent: waits up to `wait` for requests; kills each worker that asked to die, stops
  // each that asked for a pause, and continues each whose pause is over.
  void serve(std::vector<WorkerProcess>& workers, std::chrono::milliseconds wait) const;

 private:
  std::chrono::milliseconds pause_;
  int read_end_ = -1;
  int write_end_ = -1;
  // Shared with the workers (an anonymous shared mapping): for each process's slot, how many
  // times the parent continued it. Not a SIGCONT handler's flag: under ThreadSanitizer a handler
  // sometimes never runs (about 1 stop in 500 in a test program), and a continued worker then
  // waited for good with its pause gate closed, its round read as a hang (a tsan CI run, seed 2
  // of PausedOwnersKeepTheirAttemptOnADirectoryStore).
  SharedCounters continued_;
};

}  // namespace safetune::stress
