// One byte's OFD lock (F_OFD_SETLK): owned by the open file description, so it excludes other
// descriptions in this process too, and the kernel drops it when the last descriptor of the
// description is closed or its process dies, SIGKILL included.
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <cerrno>

namespace safetune::posix {

// Locks byte `byte` of `fd` with `type` (F_RDLCK, F_WRLCK or F_UNLCK), waiting for a conflicting
// lock to go when `wait`. Returns 0; EAGAIN when `wait` is false and another description holds a
// conflicting lock; or the errno of the failure.
inline int ofd_lock(int fd, off_t byte, short type, bool wait) noexcept {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = byte;
  lock.l_len = 1;
  for (;;) {
    if (::fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock) == 0) return 0;
    if (errno == EINTR) continue;
    return errno == EACCES ? EAGAIN : errno;
  }
}

}  // namespace safetune::posix
