#include "stress/harness/process_round.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "impl/store/directory_store.h"
#include "model/trace_merge.h"
#include "model/trace_reader.h"
#include "model/trace_writer.h"
#include "stress/harness/program.h"

namespace safetune::stress {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A worker's exit status: its trace is whole, it lost something (its .lost file says what), or
// its watchdog found it stalled (its trace holds what it did until then).
enum WorkerExit : int { kWhole = 0, kLost = 3, kStalled = 4 };

// Where a round's worker processes leave their traces: a fresh folder under $TMPDIR (else /tmp),
// removed with the round.
class TraceFolder {
 public:
  TraceFolder() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/safetune-processes.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~TraceFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TraceFolder(const TraceFolder&) = delete;
  TraceFolder& operator=(const TraceFolder&) = delete;
  std::string trace_of(int process) const { return path_ + "/p" + std::to_string(process) + ".jsonl"; }
  std::string lost_of(int process) const { return path_ + "/p" + std::to_string(process) + ".lost"; }

 private:
  std::string path_;
};

struct Generation {
  const StressOptions& options;
  const SubjectInfo& subject;
  std::uint64_t round = 0;
  Clock::time_point origin{};
  std::optional<std::string> store_dir{};
  const TraceFolder& traces;
};

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

void write_trace_file(const std::string& path, const model::Trace& trace) {
  std::ofstream out(path);
  model::write_trace(out, trace);
}

// The body of worker process `process`; returns its exit status.
int run_worker(const Generation& run, int process) {
  try {
    std::optional<DirectoryStore> store;
    if (run.store_dir) store.emplace(*run.store_dir);
    const ProcessRole role{.process = process, .origin = run.origin, .store = store ? &*store : nullptr};
    const Program program = generate_program(run.options.shape, run.options.mix, run.options.seed + static_cast<std::uint64_t>(process), run.round);
    RoundMonitor monitor;
    monitor.watchdog_limit = std::chrono::duration<double>(run.options.watchdog_seconds);
    monitor.on_hang = [&](const model::Trace& snapshot, const std::optional<std::string>& lost) {
      write_trace_file(run.traces.trace_of(process), snapshot);
      if (lost) write_text(run.traces.lost_of(process), *lost);
      std::_Exit(lost ? kLost : kStalled);
    };
    const RoundResult ran = run_round(run.options, run.subject, program, monitor, &role);
    if (ran.incomplete) {
      write_text(run.traces.lost_of(process), *ran.incomplete);
      return kLost;
    }
    write_trace_file(run.traces.trace_of(process), ran.trace);
    return kWhole;
  } catch (const std::exception& error) {
    write_text(run.traces.lost_of(process), error.what());
    return kLost;
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts the generation's processes, waits for each, and says what was lost, if anything.
std::vector<std::string> run_generation(const Generation& run, int first_process) {
  std::vector<std::string> lost;
  std::vector<std::pair<int, pid_t>> workers;
  std::cout.flush();
  std::cerr.flush();
  for (int i = 0; i < run.options.processes; ++i) {
    const int process = first_process + i;
    const pid_t pid = ::fork();
    if (pid < 0) {
      lost.push_back("worker process " + std::to_string(process) + " could not start (fork failed)");
      break;
    }
    if (pid == 0) std::_Exit(run_worker(run, process));
    workers.emplace_back(process, pid);
  }
  for (const auto& [process, pid] : workers) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string who = "worker process " + std::to_string(process);
    if (WIFSIGNALED(status)) lost.push_back(who + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (its trace is lost)");
    else if (WEXITSTATUS(status) == kLost) lost.push_back(who + ": " + read_text(run.traces.lost_of(process)));
    else if (WEXITSTATUS(status) != kWhole && WEXITSTATUS(status) != kStalled)
      lost.push_back(who + " exited with status " + std::to_string(WEXITSTATUS(status)));
  }
  return lost;
}

// The traces of processes 0 .. count-1, merged by t_ns into one trace (numbered in merged order).
model::Trace merged_trace(const TraceFolder& traces, int count) {
  std::vector<std::unique_ptr<model::TraceReader>> readers;
  std::vector<model::TraceReader*> pointers;
  for (int process = 0; process < count; ++process) {
    auto opened = model::TraceReader::open(traces.trace_of(process));
    if (auto* error = std::get_if<model::InputError>(&opened))
      throw std::runtime_error("the trace of worker process " + std::to_string(process) + " cannot be read: " + error->message);
    readers.push_back(std::move(std::get<std::unique_ptr<model::TraceReader>>(opened)));
    pointers.push_back(readers.back().get());
  }
  model::TraceMerge merge(pointers);
  if (auto error = merge.read_headers()) throw std::runtime_error("worker process " + std::to_string(error->file) + "'s trace: " + error->error.show());
  model::Trace trace{.header = merge.header(), .events = {}};
  model::Event event;
  while (merge.next(event) == model::TraceReader::Next::Event) trace.events.push_back(event);
  if (!merge.error().error.message.empty())
    throw std::runtime_error("worker process " + std::to_string(merge.error().file) + "'s trace: " + merge.error().error.show());
  return trace;
}

// The round's store: DIR/round-N, emptied first (it is this command's own folder).
std::optional<std::string> fresh_store(const StressOptions& options, std::uint64_t round) {
  if (!options.store) return std::nullopt;
  const std::string dir = *options.store + "/round-" + std::to_string(round);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

RoundResult run_process_round(const StressOptions& options, const SubjectInfo& subject, std::uint64_t round) {
  const TraceFolder traces;
  const Generation run{.options = options, .subject = subject, .round = round, .origin = Clock::now(),
                       .store_dir = fresh_store(options, round), .traces = traces};
  const int generations = options.restart ? 2 : 1;
  for (int generation = 0; generation < generations; ++generation) {
    const std::vector<std::string> lost = run_generation(run, generation * options.processes);
    if (lost.empty()) continue;
    std::string text;
    for (const std::string& each : lost) text += (text.empty() ? "" : "; ") + each;
    return RoundResult{{}, text};
  }
  try {
    return RoundResult{merged_trace(traces, generations * options.processes), std::nullopt};
  } catch (const std::exception& error) {
    return RoundResult{{}, error.what()};
  }
}

}  // namespace safetune::stress
