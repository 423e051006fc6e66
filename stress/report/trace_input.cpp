#include "stress/report/trace_input.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace safetune::stress {

// Standard input, copied into the temporary file as it is read.
struct TraceInput::Spool {
  int fd = -1;
  int write_error = 0;  // errno of the first failed write; the copy is incomplete from there

  long read_some(char* into, std::size_t capacity) {
    const ssize_t n = ::read(STDIN_FILENO, into, capacity);
    if (n > 0 && write_error == 0) copy(into, static_cast<std::size_t>(n));
    return static_cast<long>(n);
  }
  void copy(const char* bytes, std::size_t size) {
    for (std::size_t done = 0; done < size;) {
      const ssize_t wrote = ::write(fd, bytes + done, size - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote < 0) {
        write_error = errno;
        return;
      }
      done += static_cast<std::size_t>(wrote);
    }
  }
};

namespace {

class SpoolSource final : public model::ByteSource {
 public:
  explicit SpoolSource(TraceInput::Spool& spool) : spool_(spool) {}
  long read_some(char* into, std::size_t capacity) override { return spool_.read_some(into, capacity); }

 private:
  TraceInput::Spool& spool_;
};

// Reads a file descriptor from an offset with pread, leaving the descriptor's own offset alone.
class PreadSource final : public model::ByteSource {
 public:
  PreadSource(int fd, std::uint64_t offset) : fd_(fd), offset_(offset) {}
  long read_some(char* into, std::size_t capacity) override {
    for (;;) {
      const ssize_t n = ::pread(fd_, into, capacity, static_cast<off_t>(offset_));
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) offset_ += static_cast<std::uint64_t>(n);
      return static_cast<long>(n);
    }
  }

 private:
  int fd_;
  std::uint64_t offset_;
};

std::string temp_dir() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

}  // namespace

TraceInput::TraceInput(int fd, std::unique_ptr<Spool> spool) : fd_(fd), spool_(std::move(spool)) {
  if (spool_) reader_ = std::make_unique<model::TraceReader>(std::make_unique<SpoolSource>(*spool_));
  else reader_ = std::make_unique<model::TraceReader>(bytes_from(0));
}

TraceInput::~TraceInput() {
  reader_.reset();
  ::close(fd_);
}

std::variant<std::unique_ptr<TraceInput>, model::InputError> TraceInput::open(const std::string& path) {
  if (path != "-") {
    auto opened = model::open_trace_file(path);
    if (auto* error = std::get_if<model::InputError>(&opened)) return *error;
    return std::unique_ptr<TraceInput>(new TraceInput(std::get<int>(opened), nullptr));
  }
  std::string name = temp_dir() + "/safetune-stdin-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0)
    return model::InputError{0, "cannot keep a copy of standard input in " + temp_dir() + ": " + std::strerror(errno)};
  ::unlink(name.c_str());  // the file lives as long as the descriptor
  auto spool = std::make_unique<Spool>();
  spool->fd = fd;
  return std::unique_ptr<TraceInput>(new TraceInput(fd, std::move(spool)));
}

std::optional<std::string> TraceInput::copy_failure() const {
  if (spool_ == nullptr || spool_->write_error == 0) return std::nullopt;
  return "cannot keep a copy of standard input in " + temp_dir() + ": " + std::strerror(spool_->write_error);
}

std::unique_ptr<model::ByteSource> TraceInput::bytes_from(std::uint64_t offset) const {
  return std::make_unique<PreadSource>(fd_, offset);
}

}  // namespace safetune::stress
