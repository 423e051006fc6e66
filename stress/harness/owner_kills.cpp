#include "stress/harness/owner_kills.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string_view>
#include <system_error>

#include "impl/posix/write_all.h"
#include "stress/harness/dice.h"
#include "stress/harness/round_store.h"
#include "stress/subjects/subject.h"

namespace safetune::stress {

namespace {

// 0, or the bench (1 to --configs) at which `rate`'s fault strikes the process, drawn with `salt`.
int fault_point(const StressOptions& options, double rate, std::uint64_t salt, std::uint64_t round, int process) {
  if (rate <= 0) return 0;
  Dice dice(draw_seed(options.seed, round, salt + static_cast<std::uint64_t>(process)));
  if (!dice.chance(rate)) return 0;
  return 1 + dice.below(options.shape.configs);
}

}  // namespace

int kill_point(const StressOptions& options, std::uint64_t round, int process) {
  return fault_point(options, options.kill_owners, kKillSalt, round, process);
}

int pause_point(const StressOptions& options, std::uint64_t round, int process) {
  return fault_point(options, options.pause_owners, kPauseSalt, round, process);
}

int stall_point(const StressOptions& options, std::uint64_t round, int process) {
  return fault_point(options, options.stall_owners, kStallSalt, round, process);
}

std::chrono::milliseconds pause_length(const StressOptions& options) {
  return 2 * stress_lease(options);
}

namespace {

// A request on the line: a process number asks for its SIGKILL, -1 - number for a pause.
int pause_request(int process) { return -1 - process; }

// One slot per process that may run at once: the processes of a run are numbered consecutively,
// and at most kMaxProcesses of them run together, so no two running ones share a slot.
constexpr std::size_t kSlots = kMaxProcesses;
std::size_t slot_of(int process) { return static_cast<std::size_t>(process) % kSlots; }

}  // namespace

KillLine::KillLine(std::chrono::milliseconds pause) : pause_(pause), continued_(kSlots, "the kill line's shared page") {
  int ends[2];
  if (::pipe(ends) != 0) throw std::system_error(errno, std::generic_category(), "the kill line's pipe");
  read_end_ = ends[0];
  write_end_ = ends[1];
}

KillLine::~KillLine() {
  if (read_end_ >= 0) ::close(read_end_);
  ::close(write_end_);
}

void KillLine::close_parent_end() {
  ::close(read_end_);
  read_end_ = -1;
}

void KillLine::ask_to_be_killed(int process) const {
  // One write of a few bytes (under PIPE_BUF) is atomic: requests never interleave.
  (void)posix::write_all(write_end_, std::string_view(reinterpret_cast<const char*>(&process), sizeof process));
  for (;;) ::pause();  // until the SIGKILL (the parent's death sends it too: PR_SET_PDEATHSIG)
}

// The asking thread waits until the parent counts its continuation; the process's other threads
// run on until the SIGSTOP comes, as a process that a scheduler, a debugger or a GC stops would.
void KillLine::ask_to_be_paused(int process) const {
  const SharedCounters::Counter& continued = continued_[slot_of(process)];
  const std::int64_t before = continued.load();
  const int request = pause_request(process);
  (void)posix::write_all(write_end_, std::string_view(reinterpret_cast<const char*>(&request), sizeof request));
  while (continued.load() == before) ::usleep(1000);
}

void KillLine::serve(std::vector<WorkerProcess>& workers, std::chrono::milliseconds wait) const {
  const auto now = std::chrono::steady_clock::now();
  for (WorkerProcess& worker : workers)
    if (worker.resume_at && *worker.resume_at <= now) {
      ::kill(worker.pid, SIGCONT);
      continued_[slot_of(worker.process)].fetch_add(1);  // after the SIGCONT: read once it runs
      worker.resume_at.reset();
    }
  pollfd ready{.fd = read_end_, .events = POLLIN, .revents = 0};
  if (::poll(&ready, 1, static_cast<int>(wait.count())) <= 0 || (ready.revents & POLLIN) == 0) return;
  int asked[64];
  const ssize_t n = ::read(read_end_, asked, sizeof asked);
  for (ssize_t i = 0; i < n / static_cast<ssize_t>(sizeof(int)); ++i)
    for (WorkerProcess& worker : workers) {
      if (worker.reaped) continue;
      if (worker.process == asked[i]) {
        ::kill(worker.pid, SIGKILL);
        worker.kill_asked = true;
      } else if (pause_request(worker.process) == asked[i]) {
        ::kill(worker.pid, SIGSTOP);
        worker.pause_asked = true;
        worker.resume_at = std::chrono::steady_clock::now() + pause_;
      }
    }
}

}  // namespace safetune::stress
