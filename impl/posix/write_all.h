// Writes every byte of `bytes` to `fd`, across short writes and EINTR. Returns 0, or the errno of
// the write that failed (a write that returns 0 counts as EIO: it would never finish).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace safetune::posix {

inline int write_all(int fd, std::string_view bytes) noexcept {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace safetune::posix
