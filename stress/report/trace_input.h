// The input of `safetune check`: a trace file, or standard input ("-"), which is read more than
// once (the check, then the report's excerpts and the --chrome timeline). A file is simply read
// again; standard input is copied, as it is read, into an unlinked temporary file (in $TMPDIR,
// else /tmp) that the later passes read. Memory never holds the trace.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "model/input_error.h"
#include "model/line_source.h"
#include "model/trace_reader.h"

namespace safetune::stress {

class TraceInput {
 public:
  // Opens `path`; an input error names the OS's reason when it cannot be opened.
  static std::variant<std::unique_ptr<TraceInput>, model::InputError> open(const std::string& path);
  ~TraceInput();

  // The first pass: the reader, from the start of the input.
  model::TraceReader& reader() { return *reader_; }
  // After the first pass: why the copy of standard input could not be kept, if it could not.
  std::optional<std::string> copy_failure() const;
  // The bytes of the input from `offset` on, for a later pass.
  std::unique_ptr<model::ByteSource> bytes_from(std::uint64_t offset) const;

  struct Spool;  // standard input's copy (trace_input.cpp)

 private:
  TraceInput(int fd, std::unique_ptr<Spool> spool);

  int fd_;  // what later passes read: the file, or the copy of standard input
  std::unique_ptr<Spool> spool_;
  std::unique_ptr<model::TraceReader> reader_;
};

}  // namespace safetune::stress
