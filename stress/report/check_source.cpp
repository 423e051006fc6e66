#include "stress/report/check_source.h"

#include <algorithm>
#include <deque>
#include <set>
#include <sstream>
#include <utility>

#include "model/printable.h"
#include "model/trace_merge.h"
#include "model/trace_writer.h"
#include "stress/report/file_excerpts.h"
#include "stress/report/trace_input.h"

namespace safetune::stress {
namespace {

std::string shown_path(const std::string& path) { return model::printable(path, 256); }

// One file: checkpoints noted on the first pass let the excerpts seek instead of reading it all.
class OneTrace final : public CheckSource {
 public:
  OneTrace(std::string path, std::unique_ptr<TraceInput> input) : path_(std::move(path)), input_(std::move(input)) {}

  std::optional<SourceError> start() override {
    if (auto error = input_->reader().read_header()) return SourceError{shown(), *error};
    return std::nullopt;
  }
  const model::Header& header() const override { return input_->reader().header(); }

  model::TraceReader::Next next(model::Event& event) override {
    const auto next = input_->reader().next(event);
    if (next == model::TraceReader::Next::Event) checkpoints_.note(event, input_->reader().offset());
    return next;
  }

  std::optional<SourceError> failure() const override {
    if (auto failure = input_->copy_failure()) return SourceError{shown(), {0, *failure}};
    if (input_->reader().error().message.empty()) return std::nullopt;
    return SourceError{shown(), input_->reader().error()};
  }

  std::unique_ptr<ExcerptSource> excerpts() const override { return std::make_unique<FileExcerpts>(*input_, checkpoints_); }

  void replay(const std::function<void(const model::Event&)>& each) const override {
    model::TraceReader again(input_->bytes_from(0));
    (void)again.read_header();
    model::Event event;
    while (again.next(event) == model::TraceReader::Next::Event) each(event);
  }

  std::string shown() const override { return shown_path(path_); }
  std::string numbering() const override { return ""; }

 private:
  std::string path_;
  std::unique_ptr<TraceInput> input_;
  CheckpointLog checkpoints_;
};

// The files of a merge read again from their starts: the readers and their merge.
struct MergeAgain {
  std::vector<std::unique_ptr<model::TraceReader>> readers;
  std::unique_ptr<model::TraceMerge> merge;
};

// The excerpts of a merge: one more pass over the merged order, keeping only the context lines.
class MergedExcerpts final : public ExcerptSource {
 public:
  MergedExcerpts(MergeAgain again, std::vector<std::string> names) : again_(std::move(again)), names_(std::move(names)) {}

  std::vector<ExcerptLine> around(const std::vector<std::int64_t>& seqs) override {
    std::set<std::int64_t> wanted(seqs.begin(), seqs.end());
    std::vector<ExcerptLine> lines;
    std::deque<ExcerptLine> before;
    int after = 0;
    model::Event event;
    for (std::int64_t ordinal = 0; (!wanted.empty() || after > 0) && again_.merge->next(event) == model::TraceReader::Next::Event; ++ordinal) {
      ExcerptLine line = shown(event, ordinal);
      if (wanted.erase(event.seq) > 0) {
        lines.insert(lines.end(), before.begin(), before.end());
        before.clear();
        lines.push_back(std::move(line));
        after = kExcerptContext;
      } else if (after > 0) {
        --after;
        lines.push_back(std::move(line));
      } else {
        before.push_back(std::move(line));
        if (before.size() > static_cast<std::size_t>(kExcerptContext)) before.pop_front();
      }
    }
    return lines;
  }

 private:
  // The event as its file wrote it (its own seq), with the file it came from.
  ExcerptLine shown(model::Event event, std::int64_t ordinal) const {
    const model::TraceMerge::Origin& origin = again_.merge->origin();
    const std::int64_t merged_seq = event.seq;
    event.seq = origin.seq;
    std::ostringstream text;
    model::write_event(text, event);
    std::string line = text.str();
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return {.ordinal = ordinal, .seq = merged_seq, .line = origin.line, .text = model::printable_head(line, line.size(), kExcerptLineBytes),
            .file = names_.at(origin.file)};
  }

  MergeAgain again_;
  std::vector<std::string> names_;
};

// Several files: the merge of their readers (model/trace_merge.h).
class MergedTraces final : public CheckSource {
 public:
  MergedTraces(std::vector<std::string> paths, std::vector<std::unique_ptr<TraceInput>> inputs)
      : paths_(std::move(paths)), inputs_(std::move(inputs)), merge_(first_pass_readers()) {}

  std::optional<SourceError> start() override {
    if (auto error = merge_.read_headers()) return blame(*error);
    return std::nullopt;
  }
  const model::Header& header() const override { return merge_.header(); }
  model::TraceReader::Next next(model::Event& event) override { return merge_.next(event); }

  std::optional<SourceError> failure() const override {
    for (std::size_t i = 0; i < inputs_.size(); ++i)
      if (auto failure = inputs_[i]->copy_failure()) return SourceError{shown_path(paths_[i]), {0, *failure}};
    if (merge_.error().error.message.empty()) return std::nullopt;
    return blame(merge_.error());
  }

  std::unique_ptr<ExcerptSource> excerpts() const override {
    std::vector<std::string> names;
    for (const std::string& path : paths_) names.push_back(shown_path(path));
    return std::make_unique<MergedExcerpts>(again(), std::move(names));
  }

  void replay(const std::function<void(const model::Event&)>& each) const override {
    MergeAgain merged = again();
    model::Event event;
    while (merged.merge->next(event) == model::TraceReader::Next::Event) each(event);
  }

  std::string shown() const override {
    std::string text;
    for (const std::string& path : paths_) text += (text.empty() ? "" : " + ") + shown_path(path);
    return text;
  }

  std::string numbering() const override {
    if (merge_.by_seq()) return "";
    return "the " + std::to_string(paths_.size()) +
           " files merge by t_ns: a seq in this report is the event's place in the merged order (from 1); each "
           "excerpt line names its file, line and own seq";
  }

 private:
  // The first pass reads through each input's own reader: standard input is copied as it is read.
  std::vector<model::TraceReader*> first_pass_readers() const {
    std::vector<model::TraceReader*> out;
    for (const auto& input : inputs_) out.push_back(&input->reader());
    return out;
  }

  MergeAgain again() const {
    MergeAgain merged;
    std::vector<model::TraceReader*> readers;
    for (const auto& input : inputs_) {
      merged.readers.push_back(std::make_unique<model::TraceReader>(input->bytes_from(0)));
      readers.push_back(merged.readers.back().get());
    }
    merged.merge = std::make_unique<model::TraceMerge>(readers);
    (void)merged.merge->read_headers();  // read and accepted on the first pass
    return merged;
  }

  SourceError blame(const model::MergeError& error) const { return {shown_path(paths_.at(error.file)), error.error}; }

  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<TraceInput>> inputs_;
  model::TraceMerge merge_;
};

}  // namespace

std::variant<std::unique_ptr<CheckSource>, SourceError> open_check_source(const std::vector<std::string>& paths) {
  if (std::count(paths.begin(), paths.end(), "-") > 1)
    return SourceError{"-", {0, "standard input may be given once among the trace files"}};
  std::vector<std::unique_ptr<TraceInput>> inputs;
  for (const std::string& path : paths) {
    auto opened = TraceInput::open(path);
    if (auto* error = std::get_if<model::InputError>(&opened)) return SourceError{shown_path(path), *error};
    inputs.push_back(std::move(std::get<std::unique_ptr<TraceInput>>(opened)));
  }
  if (inputs.size() == 1) return std::make_unique<OneTrace>(paths.front(), std::move(inputs.front()));
  return std::make_unique<MergedTraces>(paths, std::move(inputs));
}

}  // namespace safetune::stress
