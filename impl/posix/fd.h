// A file descriptor closed when it goes out of scope, so that every path out of a function that
// opened it, a throw included, closes it once.
#pragma once

#include <unistd.h>

namespace safetune::posix {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace safetune::posix
