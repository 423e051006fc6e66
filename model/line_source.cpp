#include "line_source.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace safetune::model {

namespace {

// Reads ask for at least this much, and for as much as the buffer has room for; the buffer starts
// at this size and doubles while a line needs it, so a short input (a fuzzed one) allocates
// 64 KiB, not the megabytes a long trace reads in at once.
constexpr std::size_t kMinReadBytes = std::size_t{64} << 10;
constexpr std::size_t kMaxReadBytes = std::size_t{1} << 20;

class FdSource final : public ByteSource {
 public:
  FdSource(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~FdSource() override {
    if (owned_) ::close(fd_);
  }
  long read_some(char* into, std::size_t capacity) override {
    for (;;) {
      const ssize_t n = ::read(fd_, into, capacity);
      if (n >= 0 || errno != EINTR) return static_cast<long>(n);
    }
  }

 private:
  int fd_;
  bool owned_;
};

class StreamSource final : public ByteSource {
 public:
  explicit StreamSource(std::istream& in) : in_(in) {}
  long read_some(char* into, std::size_t capacity) override {
    in_.read(into, static_cast<std::streamsize>(capacity));
    if (in_.bad()) {
      errno = EIO;
      return -1;
    }
    return static_cast<long>(in_.gcount());
  }

 private:
  std::istream& in_;
};

}  // namespace

std::unique_ptr<ByteSource> fd_source(int fd, bool owned) { return std::make_unique<FdSource>(fd, owned); }
std::unique_ptr<ByteSource> stream_source(std::istream& in) { return std::make_unique<StreamSource>(in); }

LineSource::LineSource(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {}

bool LineSource::fill() {
  if (at_end_) return false;
  if (begin_ > 0) {  // keep only the unconsumed bytes, at the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    buffer_offset_ += begin_;
    end_ -= begin_;
    scanned_ -= begin_;
    begin_ = 0;
  }
  if (buffer_.size() < end_ + kMinReadBytes + kLinePadding)
    buffer_.resize(std::max(end_ + kMinReadBytes + kLinePadding, buffer_.size() * 2));
  const std::size_t room = std::min(buffer_.size() - end_ - kLinePadding, kMaxReadBytes);
  const long n = source_->read_some(buffer_.data() + end_, room);
  if (n < 0) {
    read_error_ = errno;
    at_end_ = true;
    return false;
  }
  if (n == 0) {
    at_end_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(n);
  return true;
}

Line LineSource::next() {
  for (;;) {
    const void* newline = end_ > scanned_ ? std::memchr(buffer_.data() + scanned_, '\n', end_ - scanned_) : nullptr;
    if (newline != nullptr) {
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(newline) - buffer_.data());
      Line line{Line::Status::Line, {buffer_.data() + begin_, at - begin_}, ++lines_, buffer_offset_ + begin_, 0};
      begin_ = scanned_ = at + 1;
      if (line.text.size() <= kMaxLineBytes) return line;
      return Line{Line::Status::TooLong, {}, lines_, line.offset, 0};
    }
    scanned_ = end_;
    if (end_ - begin_ > kMaxLineBytes) return Line{Line::Status::TooLong, {}, lines_ + 1, buffer_offset_ + begin_, 0};
    if (fill()) continue;
    if (read_error_ != 0) return Line{Line::Status::ReadError, {}, lines_ + 1, buffer_offset_ + end_, read_error_};
    if (begin_ == end_) return Line{Line::Status::End, {}, lines_, buffer_offset_ + end_, 0};
    // The last line has no '\n'.
    Line line{Line::Status::Line, {buffer_.data() + begin_, end_ - begin_}, ++lines_, buffer_offset_ + begin_, 0};
    begin_ = scanned_ = end_;
    return line;
  }
}

}  // namespace safetune::model
