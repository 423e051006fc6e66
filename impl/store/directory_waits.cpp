#include "impl/store/directory_waits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "impl/posix/ofd_lock.h"
#include "impl/posix/read_all.h"
#include "impl/posix/write_all.h"
#include "impl/store/directory_store.h"
#include "impl/store/hex_hash.h"

namespace safetune {

namespace {

using Json = nlohmann::json;

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

std::string this_thread_name() { return std::to_string(::syscall(SYS_gettid)); }

// A thread is (its process's name, its thread id); a key is an entry's file name.
struct Graph {
  struct Thread {
    std::string process;
    std::string thread;
    auto operator<=>(const Thread&) const = default;
  };
  struct Key {
    std::string kernel;
    std::string key;
    std::uint64_t begun = 0;      // attempts begun, so the one in flight is number `begun`
    std::optional<Thread> owner;  // the owner of the attempt in flight, if one is
  };
  struct Wait {
    std::string key;
    std::uint64_t attempt = 0;  // the key's attempt waited on (begun, or begun + 1 when none was)
  };
  std::map<std::string, Key> keys;
  std::map<Thread, Wait> waits;

  std::set<std::string> processes() const {
    std::set<std::string> names;
    for (const auto& [name, key] : keys)
      if (key.owner) names.insert(key.owner->process);
    for (const auto& [thread, wait] : waits) names.insert(thread.process);
    return names;
  }

  void drop_process(const std::string& process) {
    std::erase_if(waits, [&](const auto& entry) { return entry.first.process == process; });
    for (auto& [name, key] : keys)
      if (key.owner && key.owner->process == process) key.owner.reset();
  }

  // A key that no attempt is in flight on and no thread waits on needs no record: a later wait
  // on it waits on the next attempt to begin, whatever its number.
  void drop_idle_keys() {
    std::set<std::string> waited;
    for (const auto& [thread, wait] : waits) waited.insert(wait.key);
    std::erase_if(keys, [&](const auto& entry) { return !entry.second.owner && !waited.contains(entry.first); });
  }
};

Json to_json(const Graph::Thread& thread) { return Json{{"process", thread.process}, {"thread", thread.thread}}; }

Graph::Thread thread_of(const Json& json) {
  return {.process = json.at("process").get<std::string>(), .thread = json.at("thread").get<std::string>()};
}

std::string thread_text(const Graph::Thread& thread) {
  return "thread " + thread.thread + " of process " + thread.process;
}

Graph read_graph(const std::string& path) {
  Graph graph;
  const std::string text = read_file(path);
  if (text.empty()) return graph;
  try {
    const Json json = Json::parse(text);
    for (const auto& [name, key] : json.at("keys").items()) {
      Graph::Key& record = graph.keys[name];
      record.kernel = key.at("kernel").get<std::string>();
      record.key = key.at("key").get<std::string>();
      record.begun = key.at("begun").get<std::uint64_t>();
      if (key.contains("owner")) record.owner = thread_of(key.at("owner"));
    }
    for (const Json& wait : json.at("waits"))
      graph.waits[thread_of(wait)] = {.key = wait.at("key").get<std::string>(), .attempt = wait.at("attempt").get<std::uint64_t>()};
  } catch (const Json::exception& e) {
    throw StoreError("results store: the wait graph '" + path + "' is damaged: " + e.what());
  }
  return graph;
}

// Whole or not at all: through `temp`, renamed over `path`.
void write_graph(const Graph& graph, const std::string& path, const std::string& temp) {
  Json keys = Json::object();
  for (const auto& [name, key] : graph.keys) {
    Json& record = keys[name] = Json{{"kernel", key.kernel}, {"key", key.key}, {"begun", key.begun}};
    if (key.owner) record["owner"] = to_json(*key.owner);
  }
  Json waits = Json::array();
  for (const auto& [thread, wait] : graph.waits) {
    Json record = to_json(thread);
    record["key"] = wait.key;
    record["attempt"] = wait.attempt;
    waits.push_back(std::move(record));
  }
  {
    const posix::Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0) fail("create", temp, errno);
    if (const int error = posix::write_all(fd.get(), Json{{"keys", keys}, {"waits", waits}}.dump()); error != 0)
      fail("write", temp, error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) fail("replace", path, errno);
}

Graph::Key& key_record(Graph& graph, const EntryId& id) {
  return graph.keys.try_emplace(DirectoryStore::entry_name(id), Graph::Key{.kernel = id.kernel, .key = id.key, .owner = std::nullopt})
      .first->second;
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
  process_ = std::to_string(pid) + "." + store_hash::hex64(bits());
  const std::string live = directory_ + "/live/" + process_;
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
  Graph graph = read_graph(path);
  bool changed = false;
  for (const std::string& process : graph.processes()) {
    if (process == process_) continue;
    const std::string live = directory_ + "/live/" + process;
    const posix::Fd fd(::open(live.c_str(), O_RDWR | O_CLOEXEC));
    if (fd.get() >= 0 && !lock_byte_zero(fd.get(), false, live)) continue;  // its process holds it
    graph.drop_process(process);  // died: its attempts are over, its threads wait on nothing
    ::unlink(live.c_str());
    changed = true;
  }
  if (change(graph) || changed) {
    graph.drop_idle_keys();
    write_graph(graph, path, path + ".tmp." + process_);
  }
  report();
}

std::optional<std::string> DirectoryWaits::wait_unless_cycle(const EntryId& id, const Report& report) {
  std::optional<std::string> cycle;
  change_graph(
      [&](Graph& graph) {
        const Graph::Thread me{.process = process_, .thread = this_thread_name()};
        const Graph::Key& key = key_record(graph, id);
        const Graph::Wait wait{.key = DirectoryStore::entry_name(id), .attempt = key.owner ? key.begun : key.begun + 1};
        // Each step moves to another waiting thread: the graph holds no cycle, so the walk ends.
        std::string path = thread_text(me) + " would wait on";
        for (Graph::Wait next = wait;;) {
          const auto it = graph.keys.find(next.key);
          if (it == graph.keys.end() || !it->second.owner || it->second.begun != next.attempt) break;
          const Graph::Thread& owner = *it->second.owner;
          path += " kernel '" + it->second.kernel + "', key '" + it->second.key + "', tuned by " + thread_text(owner);
          if (owner == me) {
            cycle = path;
            return false;
          }
          const auto waiting = graph.waits.find(owner);
          if (waiting == graph.waits.end()) break;
          next = waiting->second;
          path += ", which waits on";
        }
        graph.waits[me] = wait;
        waits_[me.thread] = {.entry = wait.key, .attempt = wait.attempt};
        return true;
      },
      [&] {
        if (!cycle) report();
      });
  return cycle;
}

void DirectoryWaits::wait_ended(const Report& report) {
  change_graph(
      [&](Graph& graph) {
        const std::string thread = this_thread_name();
        waits_.erase(thread);
        return graph.waits.erase({.process = process_, .thread = thread}) > 0;
      },
      report);
}

void DirectoryWaits::attempt_began(const EntryId& id, const Report& report) {
  change_graph(
      [&](Graph& graph) {
        Graph::Key& key = key_record(graph, id);
        const std::string lock_path = store_directory_ + "/" + DirectoryStore::entry_name(id) + ".lock";
        auto held = std::make_unique<posix::Fd>(open_or_fail(lock_path));
        // Numbers are not reused while anything refers to them (drop_idle_keys), so none holds it.
        if (!lock_byte(held->get(), kFirstAttemptByte + static_cast<off_t>(key.begun + 1), F_WRLCK, false, lock_path))
          throw StoreError("results store: attempt " + std::to_string(key.begun + 1) + " of '" + lock_path + "' is held already");
        attempt_locks_[DirectoryStore::entry_name(id)] = std::move(held);
        ++key.begun;
        key.owner = Graph::Thread{.process = process_, .thread = this_thread_name()};
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
        [&](Graph& graph) {
          attempt_locks_.erase(name);  // under the graph's lock: its waiters then find it ended
          const auto it = graph.keys.find(name);
          if (it == graph.keys.end() || !it->second.owner) return false;
          it->second.owner.reset();
          return true;
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
      [&](Graph& graph) {
        const auto it = graph.keys.find(entry);
        if (it != graph.keys.end()) begun = it->second.begun;
        return false;
      },
      [] {});
  return begun;
}

void DirectoryWaits::await_waited_attempt(const std::function<bool()>& claimed) {
  std::optional<Waited> waited;
  {
    const std::lock_guard<std::mutex> guard(mutex_);
    if (auto it = waits_.find(this_thread_name()); it != waits_.end()) waited = it->second;
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
