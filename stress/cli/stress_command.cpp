// `safetune stress`: runs rounds of generated programs against a subject, checks each round's
// trace with the model, and prints the summary (and the report of any violation).
//
// Memory stays bounded in --seconds runs: each round's trace is checked as the round ends and
// only the latest (or the failing) round's trace is kept, for --trace and --chrome.
//
// A round that could not be recorded whole (events lost, a worker that could not start, out of
// memory anywhere in the run) ends the run as incomplete, exit 3: its trace proves nothing, so it
// is neither checked into a pass nor reported as a violation.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>
#include <system_error>

#include "impl/posix/temp_directory.h"
#include "stress/cli/commands.h"
#include "model/checker.h"
#include "stress/report/outputs.h"
#include "stress/harness/program.h"
#include "stress/harness/process_by_process.h"
#include "stress/harness/process_round.h"
#include "stress/harness/progress.h"
#include "stress/report/replay.h"
#include "stress/report/report.h"
#include "stress/harness/runner.h"
#include "stress/report/summary.h"
#include "stress/harness/watchdog.h"

namespace safetune::stress {
namespace {

using Clock = std::chrono::steady_clock;

class StressRun {
 public:
  explicit StressRun(const StressOptions& options)
      : options_(options),
        subject_(*find_subject(options.subject)),
        start_(Clock::now()),
        progress_(std::cerr, isatty(STDERR_FILENO) != 0, start_),
        summary_{.options = options} {}

  int run() {
    try {
      run_rounds();
    } catch (const std::bad_alloc&) {
      last_trace_ = {};
      summary_.incomplete = "out of memory in round " + std::to_string(current_round_) +
                            " (generating, running or checking it)";
    } catch (const std::system_error& error) {
      // The system refused a resource the round needs: a stream's thread, say (EAGAIN).
      last_trace_ = {};
      summary_.incomplete = "round " + std::to_string(current_round_) + " could not be set up: " + error.what();
    }
    progress_.finish();
    return finish(last_trace_);
  }

 private:
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void run_rounds() {
    if (options_.round) return run_one_round(*options_.round);
    std::uint64_t round = 0;
    do run_one_round(round++);
    while (summary_.passed() && options_.seconds && elapsed_s() < *options_.seconds);
  }

  void run_one_round(std::uint64_t round) {
    current_round_ = round;
    const Program program = generate_program(options_.shape, options_.mix, options_.seed, round);
    if (options_.print_program) std::cerr << "round " << round << ":\n" << describe(program);
    RoundResult ran = options_.forks_workers() ? run_process_round(options_, subject_, round)
                                                               : run_round(options_, subject_, program, monitor());
    last_trace_ = std::move(ran.trace);
    ++summary_.rounds;
    summary_.faults += ran.faults;
    if (ran.incomplete) {
      summary_.incomplete = "round " + std::to_string(round) + ": " + *ran.incomplete;
      return;
    }
    summary_.result = options_.store_down ? check_process_by_process(last_trace_) : model::check(last_trace_);
    if (summary_.result.incomplete) summary_.incomplete = "round " + std::to_string(round) + ": " + *summary_.result.incomplete;
    accumulate(summary_.stats, summary_.result.stats);
    calls_before_round_ += summary_.result.stats.calls;
  }

  RoundMonitor monitor() {
    RoundMonitor monitor;
    monitor.watchdog_limit = std::chrono::duration<double>(options_.watchdog_seconds);
    monitor.on_progress = [this](std::int64_t completed) {
      progress_.update(calls_before_round_ + completed, Clock::now());
    };
    monitor.on_hang = [this](const model::Trace& snapshot, const std::optional<std::string>& incomplete) {
      on_hang(snapshot, incomplete);
    };
    return monitor;
  }

  // Reports the hang as R7 for each stuck call (plus whatever else the partial trace breaks) and
  // ends the process without joining the stuck workers. A run that also lost events is
  // incomplete: a lost call_end would look like a stuck call.
  [[noreturn]] void on_hang(const model::Trace& snapshot, const std::optional<std::string>& incomplete) {
    progress_.finish();
    ++summary_.rounds;
    if (incomplete) {
      summary_.incomplete = "round " + std::to_string(current_round_) + " stalled for " +
                            std::to_string(options_.watchdog_seconds) + " s, and " + *incomplete;
    } else {
      summary_.result = model::check(snapshot);
      accumulate(summary_.stats, summary_.result.stats);
      mark_stuck_calls(summary_.result, options_.watchdog_seconds);
    }
    const int exit_code = finish(snapshot);
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(exit_code);
  }

  std::optional<std::uint64_t> replay_round() const {
    if (options_.round || options_.seconds) return current_round_;
    return std::nullopt;
  }

  int finish(const model::Trace& trace) {
    summary_.elapsed_s = elapsed_s();
    const bool written =
        write_trace_outputs(trace, summary_.result.violations, options_.trace_path, options_.chrome_path);
    const std::string replay = replay_command(options_, replay_round());
    // With --json, stdout holds exactly one JSON object; the human report goes to stderr.
    std::ostream& report_out = options_.json ? std::cerr : std::cout;
    TraceExcerpts excerpts(trace);
    if (!summary_.incomplete) write_violation_report(report_out, excerpts, summary_.result, replay);
    if (options_.json) {
      std::cout << stress_json(summary_).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
      write_stress_text(std::cout, summary_);
    }
    if (summary_.incomplete) {
      std::cerr << "incomplete: " << *summary_.incomplete << "; this run proves nothing either way\n";
      return kIncomplete;
    }
    // A violation outranks a lost output file: exit 1 says the subject is broken either way.
    if (!summary_.passed()) return kViolation;
    return written ? kPass : kInputError;
  }

  const StressOptions& options_;
  const SubjectInfo& subject_;
  const Clock::time_point start_;
  Progress progress_;
  StressSummary summary_;
  model::Trace last_trace_;
  std::uint64_t current_round_ = 0;
  std::int64_t calls_before_round_ = 0;
};

}  // namespace

int run_stress(const StressOptions& given) {
  if (!given.device_given) std::cerr << given.device_reason << ": using the " << given.device << " device\n";
  // A scenario's store with no --store: a fresh folder, removed after the run (the replay line
  // names it; replayed, it is made again).
  std::optional<posix::TempDirectory> temporary;
  StressOptions options = given;
  if (options.temporary_store) options.store = temporary.emplace("safetune-store").path();
  return StressRun(options).run();
}

}  // namespace safetune::stress
