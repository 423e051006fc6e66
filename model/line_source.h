// Physical lines of a trace, read in large blocks from a file descriptor or a stream, for the
// streaming reader. A line is handed out in place (no copy), followed by at least
// kLinePadding readable bytes, as simdjson's parser needs.
//
// Bounds: a line longer than kMaxLineBytes is an error found after reading at most that many
// bytes of it (plus one read of at most 1 MiB), so an endless line (/dev/zero) costs 16 MiB, not all memory.
// A read error carries the OS's reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace safetune::model {

inline constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;  // 16 MiB
inline constexpr std::size_t kLinePadding = 64;                      // simdjson::SIMDJSON_PADDING

// Where the bytes come from. read_some returns the bytes read (0 at the end), or -1 with errno.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual long read_some(char* into, std::size_t capacity) = 0;
};

// A file descriptor; `owned` closes it on destruction.
std::unique_ptr<ByteSource> fd_source(int fd, bool owned);
// A stream (tests, fuzzing, strings).
std::unique_ptr<ByteSource> stream_source(std::istream& in);

struct Line {
  enum class Status { Line, End, TooLong, ReadError } status = Status::End;
  std::string_view text;     // without its '\n'; valid until the next call
  std::int64_t number = 0;   // 1-based physical line number
  std::uint64_t offset = 0;  // byte offset of the line's first byte in the input
  int error = 0;             // errno, for ReadError
};

class LineSource {
 public:
  explicit LineSource(std::unique_ptr<ByteSource> source);
  Line next();

 private:
  bool fill();  // reads one more block; false at the end or on an error (read_error_ set)

  std::unique_ptr<ByteSource> source_;
  std::vector<char> buffer_;  // [begin_, end_) unconsumed; kLinePadding spare bytes after end_
  std::size_t begin_ = 0, end_ = 0, scanned_ = 0;  // scanned_: no '\n' in [begin_, scanned_)
  std::uint64_t buffer_offset_ = 0;  // input offset of buffer_[0]
  std::int64_t lines_ = 0;
  bool at_end_ = false;
  int read_error_ = 0;
};

}  // namespace safetune::model
