#include "impl/store/directory_waits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>

#include "impl/posix/ofd_lock.h"
#include "impl/posix/read_all.h"
#include "impl/posix/write_all.h"
#include "impl/store/directory_store.h"
#include "impl/store/hex_hash.h"

namespace safetune {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw StoreError("results store: cannot " + what + " '" + path + "': " + std::strerror(error));
}

void make_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) fail("create the directory", path, errno);
}

int open_or_fail(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) fail("open", path, errno);
  return fd;
}

// An OFD lock of `type` on byte `byte` of `fd`: waited for, or only tried (false when another
// open file description holds a conflicting one).
bool lock_byte(int fd, off_t byte, short type, bool wait, const std::string& path) {
  const int error = posix::ofd_lock(fd, byte, type, wait);
  if (error != 0 && error != EAGAIN) fail("lock", path, error);
  return error == 0;
}

bool lock_byte_zero(int fd, bool wait, const std::string& path) { return lock_byte(fd, 0, F_WRLCK, wait, path); }

void unlock_byte_zero(int fd) { (void)posix::ofd_lock(fd, 0, F_UNLCK, false); }

// The file's text; empty when there is no such file.
std::string read_file(const std::string& path) {
  std::string text;
  const char* step = nullptr;
  if (const int error = posix::read_all(path, text, step); error != 0 && error != ENOENT) fail(step, path, error);
  return text;
}

WaitsRecord read_graph(const std::string& path) { return WaitsRecord::parse(read_file(path), "'" + path + "'"); }

// Whole or not at all: through `temp`, renamed over `path`.
void write_graph(const WaitsRecord& graph, const std::string& path, const std::string& temp) {
  {
    const posix::Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0) fail("create", temp, errno);
    if (const int error = posix::write_all(fd.get(), graph.text()); error != 0) fail("write", temp, error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) fail("replace", path, errno);
}

}  // namespace

DirectoryWaits::DirectoryWaits(const std::string& store_directory)
    : store_directory_(store_directory), directory_(store_directory + "/waits") {
  make_directory(directory_);
  make_directory(directory_ + "/live");
}

void DirectoryWaits::open_for_this_process() {
  const int pid = static_cast<int>(::getpid());
  if (pid == pid_) return;
  static thread_local std::mt19937_64 bits{std::random_device{}()};
  this_process_ = {.process = std::to_string(pid) + "." + store_hash::hex64(bits()), .waited = {}};
  const std::string live = directory_ + "/live/" + this_process_.process;
  live_fd_.emplace(open_or_fail(live));
  lock_byte_zero(live_fd_->get(), true, live);
  lock_fd_.emplace(open_or_fail(directory_ + "/graph.lock"));
  pid_ = pid;
}

template <class Change>
void DirectoryWaits::change_graph(const Change& change, const Report& report) {
  const std::lock_guard<std::mutex> guard(mutex_);
  open_for_this_process();
  const std::string lock_path = directory_ + "/graph.lock";
  lock_byte_zero(lock_fd_->get(), true, lock_path);
  struct Unlock {
    int fd;
    ~Unlock() { unlock_byte_zero(fd); }
  } unlock{lock_fd_->get()};
  const std::string path = directory_ + "/graph";
  WaitsRecord graph = read_graph(path);
  bool changed = false;
  for (const std::string& process : graph.processes()) {
    if (process == this_process_.process) continue;
    const std::string live = directory_ + "/live/" + process;
    const posix::Fd fd(::open(live.c_str(), O_RDWR | O_CLOEXEC));
    if (fd.get() >= 0 && !lock_byte_zero(fd.get(), false, live)) continue;  // its process holds it
    graph.drop_process(process);  // died: its attempts are over, its threads wait on nothing
    ::unlink(live.c_str());
    changed = true;
  }
  if (change(graph) || changed) {
    graph.drop_idle_keys();
    write_graph(graph, path, path + ".tmp." + this_process_.process);
  }
  report();
}

std::optional<std::string> DirectoryWaits::wait_unless_cycle(const EntryId& id, const Report& report) {
  std::optional<std::string> cycle;
  change_graph(
      [&](WaitsRecord& graph) { return this_process_.wait_unless_cycle(graph, DirectoryStore::entry_name(id), id, cycle); },
      [&] {
        if (!cycle) report();
      });
  return cycle;
}

void DirectoryWaits::wait_ended(const Report& report) {
  change_graph([&](WaitsRecord& graph) { return this_process_.wait_ended(graph); }, report);
}

void DirectoryWaits::attempt_began(const EntryId& id, const Report& report) {
  change_graph(
      [&](WaitsRecord& graph) {
        WaitsRecord::Key& key = graph.key_record(DirectoryStore::entry_name(id), id);
        const std::string lock_path = store_directory_ + "/" + DirectoryStore::entry_name(id) + ".lock";
        auto held = std::make_unique<posix::Fd>(open_or_fail(lock_path));
        // Numbers are not reused while anything refers to them (drop_idle_keys), so none holds it.
        if (!lock_byte(held->get(), kFirstAttemptByte + static_cast<off_t>(key.begun + 1), F_WRLCK, false, lock_path))
          throw StoreError("results store: attempt " + std::to_string(key.begun + 1) + " of '" + lock_path + "' is held already");
        attempt_locks_[DirectoryStore::entry_name(id)] = std::move(held);
        graph.begin_attempt(this_process_.me(), DirectoryStore::entry_name(id), id);
        return true;
      },
      report);
}

void DirectoryWaits::attempt_ended(const EntryId& id, const Report& report) {
  const std::string name = DirectoryStore::entry_name(id);
  // The attempt's byte is let go however this ends, a failure to write the graph included: its
  // waiters must wake.
  const auto let_go = [&] {
    const std::lock_guard<std::mutex> guard(mutex_);
    attempt_locks_.erase(name);
  };
  try {
    change_graph(
        [&](WaitsRecord& graph) {
          attempt_locks_.erase(name);  // under the graph's lock: its waiters then find it ended
          return graph.end_attempt(this_process_.me(), name);
        },
        report);
  } catch (...) {
    let_go();
    throw;
  }
}

std::uint64_t DirectoryWaits::attempts_begun(const std::string& entry) {
  std::uint64_t begun = 0;
  change_graph(
      [&](WaitsRecord& graph) {
        const auto it = graph.keys.find(entry);
        if (it != graph.keys.end()) begun = it->second.begun;
        return false;
      },
      [] {});
  return begun;
}

void DirectoryWaits::await_waited_attempt(const std::function<bool()>& claimed) {
  std::optional<ProcessWaits::Waited> waited;
  {
    const std::lock_guard<std::mutex> guard(mutex_);
    waited = this_process_.waited_by_me();
  }
  // Polled while the attempt has not begun: its claim's holder is loading or about to begin.
  for (auto pause = std::chrono::microseconds(50);; pause = std::min(2 * pause, std::chrono::microseconds(2000))) {
    if (waited && attempts_begun(waited->entry) >= waited->attempt) break;
    if (claimed()) return;
    std::this_thread::sleep_for(pause);
  }
  const std::string lock_path = store_directory_ + "/" + waited->entry + ".lock";
  const posix::Fd fd(open_or_fail(lock_path));
  lock_byte(fd.get(), kFirstAttemptByte + static_cast<off_t>(waited->attempt), F_RDLCK, true, lock_path);
}

}  // namespace safetune
