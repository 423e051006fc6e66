#include "stress/subjects/stores/stale_lock_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

namespace safetune::stress::subjects {
namespace {

constexpr std::chrono::microseconds kPoll{100};

// The lock file, removed when the claim is given back (even if another process took it over).
class LockFileClaim final : public StoreClaim {
 public:
  explicit LockFileClaim(std::string path) : path_(std::move(path)) {}
  ~LockFileClaim() override { ::unlink(path_.c_str()); }

 private:
  std::string path_;
};

bool is_stale(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;  // gone: the next O_EXCL will tell
  const auto made = std::chrono::seconds(info.st_mtim.tv_sec) + std::chrono::nanoseconds(info.st_mtim.tv_nsec);
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return now - made > StaleLockStore::kStaleAfter;
}

}  // namespace

std::unique_ptr<StoreClaim> StaleLockStore::claim(const EntryId& id, ClaimMode mode) {
  const std::string path = store_.directory() + "/" + DirectoryStore::entry_name(id) + ".excl";
  for (;;) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return std::make_unique<LockFileClaim>(path);
    }
    if (errno != EEXIST) throw StoreError("stale-lock store: cannot create '" + path + "': " + std::strerror(errno));
    if (is_stale(path)) {
      ::unlink(path.c_str());  // the bug: its owner may be alive, only slow
      continue;
    }
    if (mode == ClaimMode::Try) return nullptr;
    std::this_thread::sleep_for(kPoll);
  }
}

}  // namespace safetune::stress::subjects
