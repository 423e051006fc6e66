#include "trace_merge.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace safetune::model {

// One file: its reader and its next event, read ahead.
struct TraceMerge::Input {
  TraceReader* reader = nullptr;
  std::optional<Event> next{};
  std::optional<std::int64_t> merge_t_ns{};  // the next event's place in time: the file's t_ns so far, at most
};

TraceMerge::TraceMerge(const std::vector<TraceReader*>& readers) {
  for (TraceReader* reader : readers) inputs_.push_back(Input{.reader = reader});
}

TraceMerge::~TraceMerge() = default;

namespace {

// What the checker reads from a header: `present` and the seq scope may differ between files.
bool same_contract(const Header& a, const Header& b) {
  return a.policy == b.policy && a.configs == b.configs && a.white_box == b.white_box && a.fresh_store == b.fresh_store &&
         a.live_owners == b.live_owners;
}

}  // namespace

std::optional<MergeError> TraceMerge::read_headers() {
  by_seq_ = !inputs_.empty();
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    if (auto error = inputs_[i].reader->read_header()) return MergeError{.file = i, .error = *error};
    const Header& header = inputs_[i].reader->header();
    if (i == 0) header_ = header;
    else if (!same_contract(header, header_))
      return MergeError{.file = i, .error = {1, "its header does not agree with the first file's on policies, config "
                                                "spaces, white_box, fresh_store or live_owners: the files of one run share one contract"}};
    by_seq_ = by_seq_ && header.global_seq;
  }
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    if (!fill(inputs_[i])) return error_;
  return std::nullopt;
}

// Reads the file's next event ahead; false on an input error (then error_ is set).
bool TraceMerge::fill(Input& input) {
  Event event;
  const std::size_t file = static_cast<std::size_t>(&input - inputs_.data());
  switch (input.reader->next(event)) {
    case TraceReader::Next::End: input.next.reset(); return true;
    case TraceReader::Next::Error:
      error_ = {.file = file, .error = input.reader->error()};
      failed_ = true;
      return false;
    case TraceReader::Next::Event: break;
  }
  if (!by_seq_) {
    if (!event.t_ns) {
      fail(file, event.line, "field \"t_ns\" is missing: files that do not all say \"seq_scope\":\"global\" merge by t_ns, which every event must then carry");
      return false;
    }
    // A file keeps its own order (its seq order is its process's causal order): a t_ns that goes
    // back, as two threads' clocks may, is read as the latest t_ns before it in the file.
    input.merge_t_ns = input.merge_t_ns ? std::max(*input.merge_t_ns, *event.t_ns) : *event.t_ns;
  }
  // Two files are two processes: threads named alike in two files without a `process` field
  // are different threads, not one (which would read as one thread's re-entrant calls).
  if (inputs_.size() > 1 && !event.process) event.process = Name::string("file " + std::to_string(file + 1));
  input.next = std::move(event);
  return true;
}

bool TraceMerge::sooner(const Input& a, const Input& b) const {
  if (by_seq_) return a.next->seq < b.next->seq;
  return *a.merge_t_ns < *b.merge_t_ns;  // a tie keeps the order of the files (a comes first)
}

TraceReader::Next TraceMerge::next(Event& event) {
  if (failed_) return TraceReader::Next::Error;
  Input* first = nullptr;
  for (Input& input : inputs_) {
    if (!input.next) continue;
    if (first != nullptr && by_seq_ && input.next->seq == first->next->seq) {
      const std::size_t a = static_cast<std::size_t>(first - inputs_.data());
      return fail(static_cast<std::size_t>(&input - inputs_.data()), input.next->line,
                  "field \"seq\": " + std::to_string(input.next->seq) + " is also on line " + std::to_string(first->next->line) +
                      " of file " + std::to_string(a + 1) + ": with \"seq_scope\":\"global\" the files share one counter");
    }
    if (first == nullptr || sooner(input, *first)) first = &input;
  }
  if (first == nullptr) return TraceReader::Next::End;
  event = std::move(*first->next);
  origin_ = {.file = static_cast<std::size_t>(first - inputs_.data()), .seq = event.seq, .line = event.line};
  ++merged_;
  if (!by_seq_) event.seq = merged_;
  if (!fill(*first)) {
    failed_ = true;
    return TraceReader::Next::Error;
  }
  return TraceReader::Next::Event;
}

TraceReader::Next TraceMerge::fail(std::size_t file, std::int64_t line, std::string message) {
  error_ = {.file = file, .error = {line, std::move(message)}};
  failed_ = true;
  return TraceReader::Next::Error;
}

std::variant<Trace, MergeError> read_merged_files(const std::vector<std::string>& paths) {
  std::vector<std::unique_ptr<TraceReader>> readers;
  std::vector<TraceReader*> pointers;
  for (const std::string& path : paths) {
    auto opened = TraceReader::open(path);
    if (auto* error = std::get_if<InputError>(&opened)) return MergeError{.file = readers.size(), .error = *error};
    readers.push_back(std::move(std::get<std::unique_ptr<TraceReader>>(opened)));
    pointers.push_back(readers.back().get());
  }
  TraceMerge merge(pointers);
  if (auto error = merge.read_headers()) return *error;
  Trace trace{.header = merge.header(), .events = {}};
  Event event;
  while (merge.next(event) == TraceReader::Next::Event) trace.events.push_back(event);
  if (!merge.error().error.message.empty()) return merge.error();
  return trace;
}

}  // namespace safetune::model
