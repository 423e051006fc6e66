#include "stress/harness/owner_kills.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

#include "impl/posix/write_all.h"
#include "stress/harness/dice.h"

namespace safetune::stress {

int kill_point(const StressOptions& options, std::uint64_t round, int process) {
  if (options.kill_owners <= 0) return 0;
  Dice dice(draw_seed(options.seed, round, kKillSalt + static_cast<std::uint64_t>(process)));
  if (!dice.chance(options.kill_owners)) return 0;
  return 1 + dice.below(options.shape.configs);
}

KillLine::KillLine() {
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

void KillLine::serve(std::vector<WorkerProcess>& workers, std::chrono::milliseconds wait) const {
  pollfd ready{.fd = read_end_, .events = POLLIN, .revents = 0};
  if (::poll(&ready, 1, static_cast<int>(wait.count())) <= 0 || (ready.revents & POLLIN) == 0) return;
  int asked[64];
  const ssize_t n = ::read(read_end_, asked, sizeof asked);
  for (ssize_t i = 0; i < n / static_cast<ssize_t>(sizeof(int)); ++i)
    for (WorkerProcess& worker : workers)
      if (worker.process == asked[i] && !worker.reaped) {
        ::kill(worker.pid, SIGKILL);
        worker.kill_asked = true;
      }
}

}  // namespace safetune::stress
