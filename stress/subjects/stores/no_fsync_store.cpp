#include "stress/subjects/stores/no_fsync_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "impl/posix/fd.h"
#include "impl/posix/write_all.h"

namespace safetune::stress::subjects {

bool NoFsyncStore::publish(const StoreClaim&, const EntryId& id, const std::string& text) {
  const std::string temp = store_.new_temp_path();
  int written = 0;
  {
    const posix::Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd.get() < 0) throw StoreError("no-fsync store: cannot create '" + temp + "': " + std::strerror(errno));
    written = posix::write_all(fd.get(), text);
  }  // the bug: closed with no fsync of the file
  const int linked = written != 0 ? written : store_.journal().link(temp, store_.where(id));
  ::unlink(temp.c_str());
  if (linked == EEXIST) return false;
  if (linked != 0) throw StoreError("no-fsync store: cannot publish '" + store_.where(id) + "': " + std::strerror(linked));
  return true;  // the bug, again: no fsync of the directory
}

}  // namespace safetune::stress::subjects
