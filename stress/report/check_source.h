// What `safetune check` reads: one trace file (or standard input), or the files of the processes
// of one run, merged into one order (model/trace_merge.h). Either way the check streams: a source
// holds what it needs to read the input again (for the report's excerpts and the --chrome
// timeline), never the trace.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "model/event.h"
#include "model/input_error.h"
#include "model/trace_reader.h"
#include "stress/report/excerpts.h"

namespace safetune::stress {

// An input error, with the file it is in (printable), or "" when no one file is to blame.
struct SourceError {
  std::string path;
  model::InputError error;
};

class CheckSource {
 public:
  virtual ~CheckSource() = default;
  // Reads the header (every file's); call once, before next().
  virtual std::optional<SourceError> start() = 0;
  virtual const model::Header& header() const = 0;
  // The next event of the first pass, in the order the checker takes them.
  virtual model::TraceReader::Next next(model::Event& event) = 0;
  // After next() stopped: why it failed, or why the input cannot be read again.
  virtual std::optional<SourceError> failure() const = 0;
  // After the first pass: the excerpts of the events a report names.
  virtual std::unique_ptr<ExcerptSource> excerpts() const = 0;
  // After the first pass: every event again, in the same order and numbering (for --chrome).
  virtual void replay(const std::function<void(const model::Event&)>& each) const = 0;
  // How reports name the input: its path, or the paths of every file (printable).
  virtual std::string shown() const = 0;
  // A line for the report on how its seqs read; "" for one file.
  virtual std::string numbering() const = 0;
};

// One path: that file ("-": standard input). Several: the files of one run, merged; "-" may be one
// of them, once.
std::variant<std::unique_ptr<CheckSource>, SourceError> open_check_source(const std::vector<std::string>& paths);

}  // namespace safetune::stress
