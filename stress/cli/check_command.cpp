// `safetune check TRACE [--chrome FILE] [--json]`: judges a trace file from any implementation.
//
// One streaming pass reads and checks the trace, noting a checkpoint every few thousand events;
// the report's excerpts then seek to checkpoints, and --chrome reads the trace a second time.
// Nothing holds the whole trace. Exit codes: 0 valid, 1 violation, 2 input error (a bad trace, a
// path that cannot be read, an output that cannot be written, or running out of memory).
#include <iostream>
#include <new>
#include <variant>

#include "stress/cli/commands.h"
#include "stress/report/file_excerpts.h"
#include "model/checker.h"
#include "model/chrome.h"
#include "model/printable.h"
#include "stress/report/outputs.h"
#include "stress/report/report.h"
#include "stress/report/summary.h"
#include "stress/report/trace_input.h"

namespace safetune::stress {
namespace {

class CheckRun {
 public:
  explicit CheckRun(const CheckOptions& options) : options_(options) {}

  int run() {
    try {
      return check();
    } catch (const std::bad_alloc&) {
      return input_error({line_, "out of memory while checking the trace (the checker's state follows the calls, "
                                 "attempts, keys and threads the trace leaves open)"});
    }
  }

 private:
  int check() {
    auto opened = TraceInput::open(options_.trace_path);
    if (auto* error = std::get_if<model::InputError>(&opened)) return input_error(*error);
    TraceInput& input = *std::get<std::unique_ptr<TraceInput>>(opened);
    model::TraceReader& reader = input.reader();
    if (auto error = reader.read_header()) return input_error(*error);
    model::Checker checker(reader.header());
    model::Event event;
    model::TraceReader::Next next;
    while ((next = reader.next(event)) == model::TraceReader::Next::Event) {
      line_ = event.line;
      checker.add(event);
      checkpoints_.note(event, reader.offset());
      time_base_.note(event);
    }
    if (auto failure = input.copy_failure()) return input_error({0, *failure});
    if (next == model::TraceReader::Next::Error) return input_error(reader.error());
    const model::CheckResult result = checker.finish();
    if (options_.chrome_path && !write_chrome(input, reader.header(), result)) return kInputError;
    FileExcerpts excerpts(input, checkpoints_);
    if (options_.json) print_json(result);
    else print_text(excerpts, result);
    if (result.incomplete) {
      std::cerr << shown_path() << ": incomplete: " << *result.incomplete << "; the trace was checked no further\n";
      return kIncomplete;
    }
    return result.ok() ? kPass : kViolation;
  }

  // The second pass: the timeline, written whole or not at all.
  bool write_chrome(const TraceInput& input, const model::Header& header, const model::CheckResult& result) {
    return write_file_whole(*options_.chrome_path, [&](std::ostream& out) {
      model::TraceReader again(input.bytes_from(0));
      (void)again.read_header();
      model::ChromeWriter chrome(out, header, result.violations, time_base_.base());
      model::Event event;
      while (again.next(event) == model::TraceReader::Next::Event) chrome.add(event);
      chrome.finish();
    });
  }

  std::string shown_path() const { return model::printable(options_.trace_path, 256); }

  int input_error(const model::InputError& error) {
    if (options_.json) {
      nlohmann::json out{{"verdict", "input_error"}, {"path", shown_path()}, {"message", error.message}};
      if (error.line > 0) out["line"] = error.line;
      std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    std::cerr << shown_path() << ':';
    if (error.line > 0) std::cerr << error.line << ':';
    std::cerr << ' ' << error.message << '\n';
    return kInputError;
  }

  void print_json(const model::CheckResult& result) const {
    nlohmann::json out = check_json(result);
    out["path"] = shown_path();
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  }

  void print_text(ExcerptSource& excerpts, const model::CheckResult& result) const {
    if (result.violations_total() > 0) {
      write_violation_report(std::cout, excerpts, result, std::nullopt);
      std::cout << shown_path() << ": " << result.violations_total() << " violation(s)\n";
      return;
    }
    const model::TraceStats& stats = result.stats;
    std::cout << shown_path() << ": valid: " << result.events << " events, " << stats.calls << " calls, "
              << stats.attempts << " attempts, " << stats.successful_tunings << " successful tunings, "
              << stats.benches << " benches, " << stats.errors << " errors\n";
  }

  const CheckOptions& options_;
  CheckpointLog checkpoints_;
  model::TimeBaseFinder time_base_;
  std::int64_t line_ = 0;  // the line of the last event read, for a message on running out of memory
};

}  // namespace

int run_check(const CheckOptions& options) { return CheckRun(options).run(); }

}  // namespace safetune::stress
