// The traces of the processes of one run, merged into one order (docs/trace-format.md, "Several
// processes"), so that the checker judges them as one trace.
//
//  * Every header says "seq_scope":"global": the processes shared one counter, and the files
//    merge by seq. A seq found in two files is an input error.
//  * Otherwise the files merge by t_ns, which every event must carry; equal t_ns go in the order
//    the files were given. Each file keeps its own (seq) order, its process's causal order: a t_ns
//    that goes back within a file, as two threads' clocks may by a little, is read as the latest
//    t_ns before it in that file. The merged events are numbered 1, 2, ... in the merged order
//    (their seq), and origin() says where each came from.
//  * The headers must agree on policies, config spaces and white_box.
//  * Each file is a process of its own: an event without a `process` field gets the process
//    "file N" (N its file's place in the list, from 1).
//
// TraceMerge streams: it holds one event per file (the next one of each), never the trace. Each
// next() costs O(files).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "event.h"
#include "input_error.h"
#include "trace_reader.h"

namespace safetune::model {

// An input error of one file of a merge (or of the merge itself, with line 0).
struct MergeError {
  std::size_t file = 0;  // the index of the file to blame
  InputError error;
};

class TraceMerge {
 public:
  // The readers of the files, in the order given, which must outlive the merge; their headers are
  // not read yet.
  explicit TraceMerge(const std::vector<TraceReader*>& readers);
  ~TraceMerge();
  TraceMerge(const TraceMerge&) = delete;
  TraceMerge& operator=(const TraceMerge&) = delete;

  // Reads every header and checks that they agree; call once, before next().
  std::optional<MergeError> read_headers();
  const Header& header() const { return header_; }  // the first file's
  bool by_seq() const { return by_seq_; }

  // The next event of the merged order; on Next::Error, error() says which file and why.
  TraceReader::Next next(Event& event);
  const MergeError& error() const { return error_; }

  // Where the last event returned by next() came from: its file, its seq there, its line.
  struct Origin {
    std::size_t file = 0;
    std::int64_t seq = 0;
    std::int64_t line = 0;
  };
  const Origin& origin() const { return origin_; }

 private:
  struct Input;
  bool fill(Input& input);
  bool sooner(const Input& a, const Input& b) const;
  TraceReader::Next fail(std::size_t file, std::int64_t line, std::string message);

  std::vector<Input> inputs_;
  Header header_;
  bool by_seq_ = false;
  std::int64_t merged_ = 0;  // events handed out
  Origin origin_;
  MergeError error_;
  bool failed_ = false;
};

// The files at `paths`, merged into one trace in memory: for runs small enough to hold (a stress
// round's worker processes, a test's). An error names the file by its index in `paths`.
std::variant<Trace, MergeError> read_merged_files(const std::vector<std::string>& paths);

}  // namespace safetune::model
