// An Observer that records what the autotuner and the harness do, as a model::Trace.
//
// Contract:
//   - Recording adds no synchronization between the recording threads, so that ThreadSanitizer
//     sees exactly the happens-before edges of the code under test, no more:
//       * each thread appends to its own log, in chunks that are never moved or copied;
//       * an event's seq is taken from one counter with a relaxed fetch_add. Read-modify-writes
//         of one atomic follow happens-before (coherence), so when one report happens before
//         another (the autotuner's own locks and atomics order them: impl/observer.h) its seq is
//         smaller: seq order is a causal total order. A relaxed RMW synchronizes nothing;
//       * a thread's first event in a recorder pushes its log on a lock-free list (a release
//         CAS, which no recording thread ever acquires).
//     On a machine whose RMWs are full fences (x86) seq order is also the order of the memory
//     effects around the reports; on a weaker one, two reports that no happens-before relates
//     may have their effects in either order.
//   - t_ns is steady_clock time since the recorder was built, taken just before the seq: it never
//     decreases along one thread's events, but two threads' clocks may be out of seq order (a
//     thread may be descheduled between the two). Taken before, the latest t_ns up to an event in
//     seq order, which a merge reads as its time, is at or before the event's place: taken after,
//     a thread descheduled after its seq would push later events of its process past another
//     process's observation of them.
//     A process of a multi-process run (as_process()) takes it from an origin all its processes
//     share instead, so that their files merge by t_ns (docs/trace-format.md, "Several
//     processes"); steady_clock is the machine's monotonic clock. A report comes after the
//     observation it reports (a load) and before the effect that follows it (a publication), so
//     t_ns shows causality across processes.
//   - An event that cannot be stored (out of memory) is counted in lost(), never dropped
//     silently, and takes no seq: the trace has no gaps, and a run with lost() > 0 is incomplete.
//     From the first lost event on, every event is counted as lost without being tried.
//   - A thread is named by an integer: the index it gave bind_thread(), or else, at its first
//     event in this recorder, the next integer above every index this recorder has seen. Bind a
//     thread before its first event to keep its name.
//   - call_begin/call_end are for the harness that makes the calls (the autotuner does not report
//     them).
//   - Recording never does I/O, never calls back into an autotuner and never throws.
//   - snapshot() may run while threads record (a watchdog's view of a stuck run); take() and the
//     destructor need every recording thread to have finished (joined).
//   - freeze() (stress runs with killed processes, after gate_for_freeze()): the recording stops
//     at once, and for good: every event whose recording began before it is in its snapshot, and
//     a thread that reports anything after it parks forever (its process is about to be killed),
//     so no thread acts past an event the snapshot lacks. The gate is one shared counter that
//     every event increments and decrements (sequentially consistent), which does order the
//     recording threads: only a run that may freeze has it.
//   - delay_before_seq() (stress runs): an event may wait a little before it takes its seq, so
//     that an effect made before its report (a winner stored before its tune_end is reported)
//     has time to be seen, and used, by other threads first. It draws from a per-thread
//     generator and sleeps: it adds no synchronization either, and leaves the core to the
//     threads that may act in the window.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "impl/observer.h"
#include "model/event.h"

namespace safetune {

// How a call ended: with the config it launched, or with an error.
struct CallOutcome {
  std::optional<std::string> config;
  std::optional<std::string> error;
  static CallOutcome returned(std::string config) { return {std::move(config), std::nullopt}; }
  static CallOutcome raised(std::string error) { return {std::nullopt, std::move(error)}; }
};

class TraceRecorder : public Observer {
 public:
  explicit TraceRecorder(model::Header header);
  ~TraceRecorder() override;
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // Names the calling thread `index` in every recorder from now on.
  static void bind_thread(int index);
  // Each event waits a uniform [0, max_delay] before taking its seq with this probability (0:
  // never, the default). Call it before any thread records.
  void delay_before_seq(double probability, std::chrono::nanoseconds max_delay);
  // Every event names this process, and t_ns counts from `origin`, shared by the processes of the
  // run. Call it before any thread records.
  void as_process(model::Name process, std::chrono::steady_clock::time_point origin);

  // Lets freeze() stop this recorder. Call it before any thread records.
  void gate_for_freeze();
  // Stops the recording for good (see the contract) and returns everything recorded; never call
  // it from inside a report. Needs gate_for_freeze().
  model::Trace freeze();

  void record(const ObservedEvent& event) noexcept override;
  void call_begin(std::string_view kernel, std::string_view key, int stream) noexcept;
  void call_end(std::string_view kernel, std::string_view key, const CallOutcome& outcome,
                int stream = -1) noexcept;

  // The header and every event stored so far, in seq order (a copy). While threads record, an
  // event whose seq was taken but that is not stored yet is not in it, nor any later event of
  // its thread.
  model::Trace snapshot() const;
  // The whole trace, moved out: the recorder holds no events afterwards (later ones start a new
  // trace, numbered on). Every recording thread must have finished.
  model::Trace take();

  // Events recorded or lost so far; a relaxed read, for a watchdog to see progress.
  std::int64_t progress() const noexcept;
  // Events that could not be stored.
  std::int64_t lost() const noexcept { return lost_.load(std::memory_order_relaxed); }

 private:
  struct Chunk;
  struct ThreadLog;
  ThreadLog* log_of_this_thread() noexcept;
  ThreadLog* new_log() noexcept;
  int name_for_new_log(int bound_index) noexcept;
  void append(const ObservedEvent& observed) noexcept;
  void store(const ObservedEvent& observed) noexcept;

  const model::Header header_;
  std::chrono::steady_clock::time_point start_;
  std::optional<model::Name> process_;
  const std::uint64_t recorder_id_;  // tells this recorder's thread logs from other recorders'
  // relaxed everywhere: a counter whose RMWs order the events (see the contract); no data is
  // published through it.
  std::atomic<std::int64_t> next_seq_{0};
  std::atomic<std::int64_t> lost_{0};        // relaxed: a count, read for reports only
  std::atomic<int> next_free_index_{0};      // relaxed: names only need to be distinct
  bool gated_ = false;                       // set before recording, then only read
  std::atomic<int> recording_{0};            // gated: events being recorded now
  std::atomic<bool> frozen_{false};          // gated: freeze() was called
  double delay_probability_ = 0;             // set before recording, then only read
  std::chrono::nanoseconds max_delay_{0};
  // The thread logs, newest first. Pushed with a release CAS (the log is built before it);
  // read with acquire by snapshot()/take(), never by a recording thread.
  std::atomic<ThreadLog*> logs_{nullptr};
};

}  // namespace safetune
