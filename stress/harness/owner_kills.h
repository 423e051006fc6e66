// --kill-owners: worker processes killed with SIGKILL while they own an attempt (mid-bench).
//
// Which worker dies, and at which of its benches, is drawn from the seed, the round and its
// process number (kill_point), so that a replay kills the same ones at the same benches. At that
// bench the worker freezes its recording (its trace then ends with its exit: runner.h,
// ProcessRole), writes its trace, asks the parent through the kill line, and waits; the parent
// sends the SIGKILL. The kernel then drops the worker's OFD locks, and another process takes the
// attempt over.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "stress/cli/options.h"

namespace safetune::stress {

// 0: this worker is not killed; n > 0: it is killed at its n-th bench (its first attempt's, when
// it owns one: n is at most --configs).
int kill_point(const StressOptions& options, std::uint64_t round, int process);

// A worker process of a generation, as its parent sees it.
struct WorkerProcess {
  int process = 0;
  pid_t pid = -1;
  bool kill_asked = false;  // it asked for its SIGKILL, and got it
  bool reaped = false;
  int status = 0;           // waitpid's, once reaped
};

// The pipe through which workers ask for their SIGKILL. Made before the fork: a worker uses
// ask_to_be_killed(), the parent serve().
class KillLine {
 public:
  KillLine();
  ~KillLine();
  KillLine(const KillLine&) = delete;
  KillLine& operator=(const KillLine&) = delete;

  // In a worker, after fork: it keeps only the end it writes.
  void close_parent_end();
  // In a worker: asks for SIGKILL and waits for it.
  [[noreturn]] void ask_to_be_killed(int process) const;
  // In the parent: waits up to `wait` for requests, and kills each worker that asked.
  void serve(std::vector<WorkerProcess>& workers, std::chrono::milliseconds wait) const;

 private:
  int read_end_ = -1;
  int write_end_ = -1;
};

}  // namespace safetune::stress
