// Reads every byte of the file at `path`, across short reads and EINTR. Returns 0 with the bytes in
// `text`, or the errno of the open or read that failed (ENOENT: there is no such file); `step` then
// names which ("open" or "read").
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "impl/posix/fd.h"

namespace safetune::posix {

inline int read_all(const std::string& path, std::string& text, const char*& step) {
  step = "open";
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return errno;
  step = "read";
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return 0;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace safetune::posix
