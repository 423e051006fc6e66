// `safetune check TRACE [--chrome FILE] [--json]`: judges a trace file from any implementation.
#include <iostream>
#include <variant>

#include "commands.h"
#include "model/checker.h"
#include "model/trace_reader.h"
#include "model/trace_writer.h"
#include "outputs.h"
#include "report.h"
#include "summary.h"

namespace safetune::stress {
namespace {

int input_error(const std::string& path, const model::InputError& error) {
  std::cerr << path << ':';
  if (error.line > 0) std::cerr << error.line << ':';
  std::cerr << ' ' << error.message << '\n';
  return kInputError;
}

void print_text(const CheckOptions& options, const model::Trace& trace,
                const model::CheckResult& result) {
  if (!result.ok()) {
    write_violation_report(std::cout, trace, result.violations, std::nullopt);
    std::cout << options.trace_path << ": " << result.violations.size() << " violation(s)\n";
    return;
  }
  const model::TraceStats& stats = result.stats;
  std::cout << options.trace_path << ": valid: " << trace.events.size() << " events, "
            << stats.calls << " calls, " << stats.attempts << " attempts, "
            << stats.successful_tunings << " successful tunings, " << stats.benches
            << " benches, " << stats.errors << " errors\n";
}

}  // namespace

int run_check(const CheckOptions& options) {
  const model::ReadResult read = model::read_trace_file(options.trace_path);
  if (const auto* error = std::get_if<model::InputError>(&read)) {
    return input_error(options.trace_path, *error);
  }
  const model::Trace& trace = std::get<model::Trace>(read);
  const model::CheckResult result = model::check(trace);
  if (!write_trace_outputs(trace, result.violations, std::nullopt, options.chrome_path)) {
    return kInputError;
  }
  if (options.json) {
    std::cout << nlohmann::json{{"verdict", result.ok() ? "pass" : "fail"},
                                {"violations", violations_json(result.violations)},
                                {"stats", stats_json(result.stats)}}
              << '\n';
  } else {
    print_text(options, trace, result);
  }
  return result.ok() ? kPass : kViolation;
}

}  // namespace safetune::stress
