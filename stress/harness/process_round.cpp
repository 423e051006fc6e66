#include "stress/harness/process_round.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "impl/posix/temp_directory.h"
#include "model/trace_merge.h"
#include "model/trace_reader.h"
#include "model/trace_writer.h"
#include "stress/harness/owner_kills.h"
#include "stress/harness/pause_gate.h"
#include "stress/harness/power_loss.h"
#include "stress/harness/program.h"
#include "stress/harness/round_progress.h"
#include "stress/harness/round_store.h"
#include "stress/harness/store_damage.h"

namespace safetune::stress {
namespace {

using Clock = std::chrono::steady_clock;

// A worker's exit status: its trace is whole, it lost something (its .lost file says what), or
// its watchdog found it stalled (its trace holds what it did until then).
enum WorkerExit : int { kWhole = 0, kLost = 3, kStalled = 4 };
// How often the parent looks for ended workers between kill requests.
constexpr std::chrono::milliseconds kServePeriod{10};

// Where a round's worker processes leave their traces, and their stores' durability journal
// (power_loss.h): a fresh folder, removed with the round.
class TraceFolder {
 public:
  std::string trace_of(int process) const { return folder_.path() + "/p" + std::to_string(process) + ".jsonl"; }
  std::string lost_of(int process) const { return folder_.path() + "/p" + std::to_string(process) + ".lost"; }
  std::string journal() const { return folder_.path() + "/durability.jsonl"; }

 private:
  posix::TempDirectory folder_{"safetune-processes"};
};

struct Generation {
  const StressOptions& options;
  const SubjectInfo& subject;
  std::uint64_t round = 0;
  Clock::time_point origin{};
  const RoundStore& store;
  std::optional<std::string> journal{};  // with --restart on a directory store: what it made durable
  const TraceFolder& traces;
  const ProcessPlan* plan = nullptr;
  RoundProgress& progress;  // every worker's watchdog reads the round's progress
};

Program program_of(const Generation& run, int process) {
  if (run.plan != nullptr) return run.plan->programs.at(static_cast<std::size_t>(process));
  return generate_program(run.options.shape, run.options.mix, run.options.seed + static_cast<std::uint64_t>(process), run.round);
}

int kill_point_of(const Generation& run, int process) {
  if (run.plan != nullptr) return run.plan->kill_at_bench.at(static_cast<std::size_t>(process));
  return kill_point(run.options, run.round, process);
}

// With --hosts H, a generation's processes are H groups of --processes, each named for its host.
std::optional<std::string> host_of(const StressOptions& options, int process) {
  if (options.hosts == 1) return std::nullopt;
  return "host-" + std::to_string(process % (options.hosts * options.processes) / options.processes);
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

void write_trace_file(const std::string& path, const model::Trace& trace) {
  std::ofstream out(path);
  model::write_trace(out, trace);
}

// The body of worker process `process`; returns its exit status, or is killed (--kill-owners).
int run_worker(const Generation& run, int process, const KillLine& kills) {
  try {
    const int pause_at_bench = pause_point(run.options, run.round, process);
    PauseGate gate;  // declared before the store, which steps through it
    const std::unique_ptr<ResultsStore> store = run.store.open(run.journal, pause_at_bench > 0 ? &gate : nullptr);
    const ProcessRole role{
        .process = process, .host = host_of(run.options, process), .origin = run.origin, .store = store.get(),
        .kill_at_bench = kill_point_of(run, process),
        .killed = [&](const model::Trace& until_killed) {
          write_trace_file(run.traces.trace_of(process), until_killed);
          kills.ask_to_be_killed(process);
        },
        .pause_at_bench = pause_at_bench,
        .paused = [&] { gate.stop_between_steps([&] { kills.ask_to_be_paused(process); }); },
        .stall_at_bench = stall_point(run.options, run.round, process),
        .stall_length = pause_length(run.options)};
    const Program program = program_of(run, process);
    RoundMonitor monitor;
    monitor.watchdog_limit = std::chrono::duration<double>(run.options.watchdog_seconds);
    monitor.round_progress = &run.progress.events();
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

// A forked worker: it dies with the parent (a killed `safetune stress` leaves no worker behind),
// and keeps only its end of the kill line.
[[noreturn]] void become_worker(const Generation& run, int process, KillLine& kills) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  kills.close_parent_end();
  std::_Exit(run_worker(run, process, kills));
}

// What a reaped worker lost, if anything: a worker killed at its request wrote its trace first.
std::optional<std::string> lost_by(const Generation& run, const WorkerProcess& worker) {
  const std::string who = "worker process " + std::to_string(worker.process);
  const int status = worker.status;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && worker.kill_asked) return std::nullopt;
  if (WIFSIGNALED(status)) return who + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (its trace is lost)";
  if (WEXITSTATUS(status) == kLost) return who + ": " + read_text(run.traces.lost_of(worker.process));
  if (WEXITSTATUS(status) != kWhole && WEXITSTATUS(status) != kStalled)
    return who + " exited with status " + std::to_string(WEXITSTATUS(status));
  return std::nullopt;
}

void reap_finished(std::vector<WorkerProcess>& workers) {
  for (WorkerProcess& worker : workers)
    if (!worker.reaped && ::waitpid(worker.pid, &worker.status, WNOHANG) == worker.pid) worker.reaped = true;
}

// What a generation lost (nothing, when whole), and how many of its workers were killed.
struct GenerationEnd {
  std::vector<std::string> lost;
  int killed = 0;
  int paused = 0;
};

// Starts the generation's processes, serves their kill requests until every one has ended, and
// says what was lost, if anything.
GenerationEnd run_generation(const Generation& run, int first_process, KillLine& kills) {
  std::vector<std::string> lost;
  std::vector<WorkerProcess> workers;
  std::cout.flush();
  std::cerr.flush();
  for (int i = 0; i < run.options.hosts * run.options.processes; ++i) {
    const int process = first_process + i;
    const pid_t pid = ::fork();
    if (pid < 0) {
      lost.push_back("worker process " + std::to_string(process) + " could not start (fork failed)");
      break;
    }
    if (pid == 0) become_worker(run, process, kills);
    workers.push_back({.process = process, .pid = pid});
  }
  const auto running = [&] { return std::any_of(workers.begin(), workers.end(), [](const WorkerProcess& w) { return !w.reaped; }); };
  for (reap_finished(workers); running(); reap_finished(workers)) kills.serve(workers, kServePeriod);
  int killed = 0;
  int paused = 0;
  for (const WorkerProcess& worker : workers) {
    if (auto what = lost_by(run, worker)) lost.push_back(*what);
    killed += worker.kill_asked ? 1 : 0;
    paused += worker.pause_asked ? 1 : 0;
  }
  return {.lost = lost, .killed = killed, .paused = paused};
}

// The traces of processes 0 .. count-1, merged by t_ns into one trace (numbered in merged order).
model::Trace merged_trace(const TraceFolder& traces, int count) {
  std::vector<std::string> paths;
  for (int process = 0; process < count; ++process) paths.push_back(traces.trace_of(process));
  auto merged = model::read_merged_files(paths);
  if (auto* error = std::get_if<model::MergeError>(&merged))
    throw std::runtime_error("the trace of worker process " + std::to_string(error->file) + " cannot be read: " + error->error.show());
  return std::move(std::get<model::Trace>(merged));
}

int damaged_entries(const std::string& store_dir, std::uint64_t seed, std::uint64_t round) {
  int damaged = 0;
  for (const auto& [damage, count] : damage_store(store_dir, seed, round)) damaged += count;
  return damaged;
}

}  // namespace

RoundResult run_process_round(const StressOptions& options, const SubjectInfo& subject, std::uint64_t round,
                              const ProcessPlan* plan) {
  const TraceFolder traces;
  KillLine kills(pause_length(options));
  std::optional<RoundStore> made;
  try {
    made.emplace(options, round);
  } catch (const std::exception& error) {
    return RoundResult{.trace = {}, .incomplete = std::string("the round's store: ") + error.what(), .faults = {}};
  }
  const RoundStore& store = *made;
  RoundProgress progress;
  const Generation run{.options = options, .subject = subject, .round = round, .origin = Clock::now(),
                       .store = store,
                       .journal = options.restart && store.directory() ? std::optional(traces.journal()) : std::nullopt,
                       .traces = traces, .plan = plan, .progress = progress};
  const int generations = options.restart ? 2 : 1;
  RoundFaults faults;
  for (int generation = 0; generation < generations; ++generation) {
    // A restart comes back from a power loss: what the store did not make durable is gone.
    if (generation > 0 && run.journal) {
      try {
        const PowerLoss loss = lose_power(*run.journal);
        faults.lost_at_power_loss = loss.lost_names + loss.torn_files;
        if (options.damage_store) faults.damaged_entries = damaged_entries(*store.directory(), options.seed, round);
      } catch (const std::exception& error) {
        return RoundResult{.trace = {}, .incomplete = error.what(), .faults = faults};
      }
    }
    // --restart-store: the server dies with SIGKILL and comes back on its AOF; nothing the first
    // generation published may be lost (R3 counts a load as a success).
    if (generation > 0 && options.restart_store) {
      try {
        made->restart_server();
        ++faults.store_restarts;
      } catch (const std::exception& error) {
        return RoundResult{.trace = {}, .incomplete = std::string("restarting the store's server: ") + error.what(), .faults = faults};
      }
    }
    GenerationEnd end = run_generation(run, generation * options.hosts * options.processes, kills);
    faults.killed_processes += end.killed;
    faults.paused_processes += end.paused;
    if (end.lost.empty()) continue;
    std::string text;
    for (const std::string& each : end.lost) text += (text.empty() ? "" : "; ") + each;
    return RoundResult{.trace = {}, .incomplete = text, .faults = faults};
  }
  try {
    return RoundResult{.trace = merged_trace(traces, generations * options.hosts * options.processes), .incomplete = std::nullopt, .faults = faults};
  } catch (const std::exception& error) {
    return RoundResult{.trace = {}, .incomplete = error.what(), .faults = faults};
  }
}

}  // namespace safetune::stress
