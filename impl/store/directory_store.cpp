#include "impl/store/directory_store.h"

#include "impl/posix/fd.h"
#include "impl/posix/ofd_lock.h"
#include "impl/posix/read_all.h"
#include "impl/posix/write_all.h"
#include "impl/store/hex_hash.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

namespace safetune {
namespace {

std::string os_reason(int error) { return std::strerror(error); }

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw StoreError("results store: cannot " + what + " '" + path + "': " + os_reason(error));
}

std::string random_part() {
  static thread_local std::mt19937_64 bits{std::random_device{}()};
  return store_hash::hex64(bits());
}

void make_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) fail("create the directory", path, errno);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) fail("read", path, errno);
  if (!S_ISDIR(info.st_mode)) throw StoreError("results store: '" + path + "' is not a directory");
}

void write_all(int fd, const std::string& text, const std::string& path) {
  if (const int error = posix::write_all(fd, text); error != 0) fail("write", path, error);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "host";
  std::string host(name);
  for (char& c : host)
    if (c == '/' || c == '.') c = '_';
  return host;
}

// DIR without a trailing slash, made with its quarantine/ and withdrawn/ folders.
std::string made_directory(std::string directory) {
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  make_directory(directory);
  make_directory(directory + "/quarantine");
  make_directory(directory + "/withdrawn");
  return directory;
}

}  // namespace

DirectoryStore::DirectoryStore(std::string directory, const std::optional<std::string>& journal)
    : directory_(made_directory(std::move(directory))), journal_(journal), waits_(directory_) {}

std::string DirectoryStore::entry_name(const EntryId& id) {
  std::uint64_t hash = store_hash::kFnvOffset;
  for (const std::string* part : {&id.kernel, &id.key, &id.device}) hash = store_hash::fnv1a(hash, *part + std::string(1, '\0'));
  return store_hash::hex64(hash);
}

std::string DirectoryStore::path_of(const EntryId& id, const char* suffix) const {
  return directory_ + "/" + entry_name(id) + suffix;
}

std::string DirectoryStore::where(const EntryId& id) const { return path_of(id, ".json"); }

std::optional<std::string> DirectoryStore::read(const EntryId& id) {
  const std::string path = where(id);
  std::string text;
  const char* step = nullptr;
  if (const int error = posix::read_all(path, text, step); error == ENOENT) {
    return std::nullopt;
  } else if (error != 0) {
    fail(step, path, error);
  }
  return text;
}

int DirectoryStore::lock_byte(const EntryId& id, off_t byte, short type, bool wait) const {
  const std::string path = path_of(id, ".lock");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) fail("open the lock file", path, errno);
  const int error = posix::ofd_lock(fd, byte, type, wait);
  if (error == 0) return fd;
  ::close(fd);
  if (error == EAGAIN) return -1;
  fail("lock", path, error);
}

namespace {

// A held claim or view: the lock file's open file description, whose OFD lock lasts until it is
// closed (or its process dies).
class HeldLock final : public StoreClaim, public StoreView {
 public:
  explicit HeldLock(int fd) : fd_(fd) {}

 private:
  posix::Fd fd_;
};

constexpr off_t kClaimByte = 0;
constexpr off_t kViewByte = 1;

}  // namespace

std::unique_ptr<StoreClaim> DirectoryStore::claim(const EntryId& id, ClaimMode mode) {
  const int fd = lock_byte(id, kClaimByte, F_WRLCK, mode == ClaimMode::Wait);
  if (fd < 0) return nullptr;
  return std::make_unique<HeldLock>(fd);
}

std::unique_ptr<StoreView> DirectoryStore::view(const EntryId& id, ViewMode mode) {
  return std::make_unique<HeldLock>(lock_byte(id, kViewByte, mode == ViewMode::Shared ? F_RDLCK : F_WRLCK, true));
}

std::string DirectoryStore::new_temp_path() const {
  return directory_ + "/.tmp." + host_name() + "." + std::to_string(::getpid()) + "." + random_part();
}

bool DirectoryStore::publish(const StoreClaim&, const EntryId& id, const std::string& text) {
  const std::string temp = new_temp_path();
  {
    posix::Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd.get() < 0) fail("create", temp, errno);
    try {
      write_all(fd.get(), text, temp);
      if (const int error = journal_.fsync_file(fd.get(), temp); error != 0) fail("fsync", temp, error);
    } catch (...) {
      ::unlink(temp.c_str());
      throw;
    }
  }
  const std::string path = where(id);
  const int error = journal_.link(temp, path);
  ::unlink(temp.c_str());
  const bool linked = error == 0;
  if (!linked && error != EEXIST) fail("publish", path, error);
  sync_directory();
  return linked;
}

void DirectoryStore::move_aside(const EntryId& id, const std::string& folder, const std::string* reason) {
  const std::string stem = directory_ + "/" + folder + "/" + entry_name(id) + "." + random_part();
  if (const int error = journal_.rename(where(id), stem + ".json"); error != 0) {
    if (error == ENOENT) return;  // nothing there (withdrawn or quarantined already)
    fail("move aside", where(id), error);
  }
  if (reason != nullptr) {  // beside it, why (best effort: the entry is out of the way already)
    posix::Fd fd(::open((stem + ".reason").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd.get() >= 0) write_all(fd.get(), *reason + "\n", stem + ".reason");
  }
  sync_directory();
}

void DirectoryStore::quarantine(const StoreClaim&, const EntryId& id, const std::string& reason) {
  move_aside(id, "quarantine", &reason);
}

void DirectoryStore::withdraw(const EntryId& id) { move_aside(id, "withdrawn", nullptr); }

void DirectoryStore::sync_directory() const {
  posix::Fd fd(::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) fail("open", directory_, errno);
  if (const int error = journal_.fsync_directory(fd.get(), directory_); error != 0) fail("fsync", directory_, error);
}

}  // namespace safetune
