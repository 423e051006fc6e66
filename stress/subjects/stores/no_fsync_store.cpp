#include "stress/subjects/stores/no_fsync_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "impl/posix/write_all.h"

namespace safetune::stress::subjects {

bool NoFsyncStore::publish(const StoreClaim&, const EntryId& id, const std::string& text) {
  const std::string temp = directory_.new_temp_path();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw StoreError("no-fsync store: cannot create '" + temp + "': " + std::strerror(errno));
  const int written = posix::write_all(fd, text);
  ::close(fd);  // the bug: no fsync of the file
  const int linked = written != 0 ? written : directory_.journal().link(temp, directory_.where(id));
  ::unlink(temp.c_str());
  if (linked == EEXIST) return false;
  if (linked != 0) throw StoreError("no-fsync store: cannot publish '" + directory_.where(id) + "': " + std::strerror(linked));
  return true;  // the bug, again: no fsync of the directory
}

}  // namespace safetune::stress::subjects
