// `safetune check TRACE... [--chrome FILE] [--json]`: judges a trace file from any implementation,
// or the files of the processes of one run, merged into one order (check_source.h).
//
// One streaming pass reads and checks the trace; the report's excerpts and --chrome read it again
// (check_source.h). Nothing holds the whole trace. Exit codes: 0 valid, 1 violation, 2 input error (a bad trace, a
// path that cannot be read, an output that cannot be written, or running out of memory).
#include <iostream>
#include <new>
#include <variant>

#include "stress/cli/commands.h"
#include "stress/report/check_source.h"
#include "model/checker.h"
#include "model/chrome.h"
#include "model/printable.h"
#include "stress/report/outputs.h"
#include "stress/report/report.h"
#include "stress/report/summary.h"

namespace safetune::stress {
namespace {

class CheckRun {
 public:
  explicit CheckRun(const CheckOptions& options) : options_(options) {}

  int run() {
    try {
      return check();
    } catch (const std::bad_alloc&) {
      return input_error({"", {line_, "out of memory while checking the trace (the checker's state follows the calls, "
                                       "attempts, keys and threads the trace leaves open)"}});
    }
  }

 private:
  int check() {
    auto opened = open_check_source(options_.trace_paths);
    if (auto* error = std::get_if<SourceError>(&opened)) return input_error(*error);
    CheckSource& source = *std::get<std::unique_ptr<CheckSource>>(opened);
    shown_ = source.shown();
    if (auto error = source.start()) return input_error(*error);
    model::Checker checker(source.header());
    model::Event event;
    while (source.next(event) == model::TraceReader::Next::Event) {
      line_ = event.line;
      checker.add(event);
      time_base_.note(event);
    }
    if (auto failure = source.failure()) return input_error(*failure);
    const model::CheckResult result = checker.finish();
    if (options_.chrome_path && !write_chrome(source, result)) return kInputError;
    if (options_.json) print_json(result);
    else print_text(source, result);
    if (result.incomplete) {
      std::cerr << shown_ << ": incomplete: " << *result.incomplete << "; the trace was checked no further\n";
      return kIncomplete;
    }
    return result.ok() ? kPass : kViolation;
  }

  // The second pass: the timeline, written whole or not at all.
  bool write_chrome(const CheckSource& source, const model::CheckResult& result) {
    return write_file_whole(*options_.chrome_path, [&](std::ostream& out) {
      model::ChromeWriter chrome(out, source.header(), result.violations, time_base_.base());
      source.replay([&](const model::Event& event) { chrome.add(event); });
      chrome.finish();
    });
  }

  int input_error(const SourceError& error) {
    const std::string where = error.path.empty() ? shown_ : error.path;
    if (options_.json) {
      nlohmann::json out{{"verdict", "input_error"}, {"path", where}, {"message", error.error.message}};
      if (error.error.line > 0) out["line"] = error.error.line;
      std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    std::cerr << where << ':';
    if (error.error.line > 0) std::cerr << error.error.line << ':';
    std::cerr << ' ' << error.error.message << '\n';
    return kInputError;
  }

  void print_json(const model::CheckResult& result) const {
    nlohmann::json out = check_json(result);
    out["path"] = shown_;
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  }

  void print_text(const CheckSource& source, const model::CheckResult& result) const {
    if (result.violations_total() > 0) {
      if (const std::string numbering = source.numbering(); !numbering.empty()) std::cout << numbering << "\n\n";
      write_violation_report(std::cout, *source.excerpts(), result, std::nullopt);
      std::cout << shown_ << ": " << result.violations_total() << " violation(s)\n";
      return;
    }
    const model::TraceStats& stats = result.stats;
    std::cout << shown_ << ": valid: " << result.events << " events, " << stats.calls << " calls, "
              << stats.attempts << " attempts, " << stats.successful_tunings << " successful tunings, "
              << stats.benches << " benches, " << stats.errors << " errors\n";
  }

  const CheckOptions& options_;
  std::string shown_;  // the input, as reports name it
  model::TimeBaseFinder time_base_;
  std::int64_t line_ = 0;  // the line of the last event read, for a message on running out of memory
};

}  // namespace

int run_check(const CheckOptions& options) { return CheckRun(options).run(); }

}  // namespace safetune::stress
