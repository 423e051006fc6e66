#include "impl/store/durability_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "impl/posix/write_all.h"
#include "impl/store/results_store.h"

namespace safetune {

DurabilityJournal::DurabilityJournal(const std::optional<std::string>& file) {
  if (!file) return;
  fd_ = ::open(file->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw StoreError("results store: cannot open the durability journal '" + *file + "': " + std::strerror(errno));
}

DurabilityJournal::~DurabilityJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void DurabilityJournal::note(const std::string& step, const std::string& from, const std::string& to) const {
  if (fd_ < 0) return;
  nlohmann::json line{{"step", step}, {"path", from}};
  if (!to.empty()) line["to"] = to;
  (void)posix::write_all(fd_, line.dump() + "\n");  // a lost note only makes the simulated loss harsher
}

int DurabilityJournal::fsync_file(int fd, const std::string& path) const {
  if (::fsync(fd) != 0) return errno;
  note("synced", path);
  return 0;
}

int DurabilityJournal::fsync_directory(int fd, const std::string& directory) const {
  if (::fsync(fd) != 0) return errno;
  note("synced_directory", directory);
  return 0;
}

int DurabilityJournal::link(const std::string& from, const std::string& to) const {
  if (::link(from.c_str(), to.c_str()) != 0) return errno;
  note("linked", from, to);
  return 0;
}

int DurabilityJournal::rename(const std::string& from, const std::string& to) const {
  if (::rename(from.c_str(), to.c_str()) != 0) return errno;
  note("renamed", from, to);
  return 0;
}

}  // namespace safetune
