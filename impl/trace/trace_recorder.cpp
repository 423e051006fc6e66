// Recording a trace (impl/trace/trace_recorder.h).
#include "impl/trace/trace_recorder.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <functional>
#include <new>
#include <queue>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace safetune {

// A fixed block of events, written by its thread only. Chunks are linked, never moved, so the
// events already stored stay where they are however long the run is.
struct TraceRecorder::Chunk {
  static constexpr std::size_t kEvents = 1024;
  std::array<model::Event, kEvents> events;
  Chunk* next = nullptr;  // set by the owner before it publishes an event in the next chunk
};

// One thread's events. Only its thread writes; `published` is how many are stored (a release
// store after each one), which snapshot() acquires to read them while the thread runs on.
struct TraceRecorder::ThreadLog {
  int index = 0;           // the thread's name
  Chunk* head = nullptr;
  Chunk* tail = nullptr;   // owner only
  std::size_t tail_used = Chunk::kEvents;  // owner only: events in `tail` (full: none yet)
  std::atomic<std::size_t> published{0};
  ThreadLog* next = nullptr;  // the list of logs; set before the log is pushed

  ~ThreadLog() {
    for (Chunk* chunk = head; chunk != nullptr;) delete std::exchange(chunk, chunk->next);
  }
  // After take() merged its events: frees what is left (a chunk no stored event reached) and is
  // empty, ready for more events.
  void clear() {
    for (Chunk* chunk = head; chunk != nullptr;) delete std::exchange(chunk, chunk->next);
    head = tail = nullptr;
    tail_used = Chunk::kEvents;
    published.store(0, std::memory_order_relaxed);
  }
  // A slot for one more event, or null when a new chunk cannot be allocated.
  model::Event* free_slot() noexcept {
    if (tail_used == Chunk::kEvents) {
      Chunk* chunk = new (std::nothrow) Chunk;
      if (chunk == nullptr) return nullptr;
      (tail == nullptr ? head : tail->next) = chunk;
      tail = chunk;
      tail_used = 0;
    }
    return &tail->events[tail_used];
  }
};

namespace {

// The calling thread's logs, one per recorder it recorded in lately. A recorder's id is never
// reused, so an entry of a destroyed recorder is never matched (and never dereferenced).
struct LogCacheEntry {
  std::uint64_t recorder = 0;
  void* log = nullptr;
};
constexpr std::size_t kLogCache = 4;
thread_local std::array<LogCacheEntry, kLogCache> this_thread_logs{};
thread_local std::size_t this_thread_next_entry = 0;
thread_local int this_thread_bound_index = -1;  // bind_thread(), for every recorder

std::uint64_t next_recorder_id() {
  // relaxed: only uniqueness matters, not ordering with anything else.
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

model::Event event_from(const ObservedEvent& observed) {
  model::Event event;
  event.kind = observed.kind;
  event.kernel = std::string(observed.kernel);
  event.key = std::string(observed.key);
  if (observed.config != nullptr) event.config = *observed.config;
  if (observed.error != nullptr) event.error = *observed.error;
  event.time_ns = observed.time_ns;
  if (observed.stream >= 0) event.stream = model::Name::integer(observed.stream);
  return event;
}

}  // namespace

TraceRecorder::TraceRecorder(model::Header header)
    : header_(std::move(header)), start_(std::chrono::steady_clock::now()), recorder_id_(next_recorder_id()) {}

TraceRecorder::~TraceRecorder() {
  for (ThreadLog* log = logs_.load(std::memory_order_acquire); log != nullptr;) delete std::exchange(log, log->next);
}

void TraceRecorder::bind_thread(int index) { this_thread_bound_index = index; }

void TraceRecorder::as_process(model::Name process, std::chrono::steady_clock::time_point origin) {
  process_ = std::move(process);
  start_ = origin;
}

int TraceRecorder::name_for_new_log(int bound_index) noexcept {
  int free = next_free_index_.load(std::memory_order_relaxed);
  for (;;) {
    const int name = bound_index >= 0 ? bound_index : free;
    if (next_free_index_.compare_exchange_weak(free, std::max(free, name + 1), std::memory_order_relaxed)) return name;
  }
}

TraceRecorder::ThreadLog* TraceRecorder::new_log() noexcept {
  auto* log = new (std::nothrow) ThreadLog;
  if (log == nullptr) return nullptr;
  log->index = name_for_new_log(this_thread_bound_index);
  log->next = logs_.load(std::memory_order_relaxed);
  // release: snapshot() and take() acquire the list and see the log built; no recording thread
  // acquires it, so pushing orders nothing between them.
  while (!logs_.compare_exchange_weak(log->next, log, std::memory_order_release, std::memory_order_relaxed)) {
  }
  return log;
}

TraceRecorder::ThreadLog* TraceRecorder::log_of_this_thread() noexcept {
  for (const LogCacheEntry& entry : this_thread_logs)
    if (entry.recorder == recorder_id_) return static_cast<ThreadLog*>(entry.log);
  ThreadLog* log = new_log();
  if (log != nullptr) {
    this_thread_logs[this_thread_next_entry] = {recorder_id_, log};
    this_thread_next_entry = (this_thread_next_entry + 1) % kLogCache;
  }
  return log;
}

void TraceRecorder::delay_before_seq(double probability, std::chrono::nanoseconds max_delay) {
  delay_probability_ = probability;
  max_delay_ = max_delay;
}

namespace {

// With `probability`, a uniform delay in [0, max]: from a generator of the calling thread's own.
void maybe_delay(double probability, std::chrono::nanoseconds max) noexcept {
  thread_local std::minstd_rand draws(static_cast<unsigned>(std::hash<std::thread::id>{}(std::this_thread::get_id())));
  const double unit = static_cast<double>(draws() - std::minstd_rand::min()) /
                      static_cast<double>(std::minstd_rand::max() - std::minstd_rand::min());
  if (unit >= probability) return;
  // A sleep, not a spin: on a machine with fewer cores than threads a spinning thread would take
  // the core that another thread needs to act in the window.
  const double fraction = unit / probability;  // uniform in [0, 1)
  std::this_thread::sleep_for(
      std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(max.count()) * fraction)));
}

// The process is about to be killed (freeze()): this thread waits for it.
[[noreturn]] void park_forever() noexcept {
  for (;;) ::pause();
}

}  // namespace

void TraceRecorder::gate_for_freeze() { gated_ = true; }

// seq_cst throughout: with frozen_ and recording_ in one total order, either the freezer sees
// this event counted (and waits for it to be stored) or this thread sees frozen_ (and parks
// before storing it).
model::Trace TraceRecorder::freeze() {
  frozen_.store(true, std::memory_order_seq_cst);
  while (recording_.load(std::memory_order_seq_cst) > 0) std::this_thread::yield();
  return snapshot();
}

void TraceRecorder::append(const ObservedEvent& observed) noexcept {
  if (!gated_) return store(observed);
  recording_.fetch_add(1, std::memory_order_seq_cst);
  if (frozen_.load(std::memory_order_seq_cst)) {
    recording_.fetch_sub(1, std::memory_order_seq_cst);
    park_forever();
  }
  store(observed);
  recording_.fetch_sub(1, std::memory_order_seq_cst);
  if (frozen_.load(std::memory_order_seq_cst)) park_forever();  // its event is in; it acts no more
}

void TraceRecorder::store(const ObservedEvent& observed) noexcept {
  if (delay_probability_ > 0) maybe_delay(delay_probability_, max_delay_);
  // Once an event is lost the trace is incomplete whatever follows, and allocating again under
  // memory pressure is slow: every later event is counted as lost at once.
  if (lost_.load(std::memory_order_relaxed) > 0) {
    lost_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ThreadLog* log = log_of_this_thread();
  model::Event* slot = log != nullptr ? log->free_slot() : nullptr;
  if (slot == nullptr) {
    lost_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  try {
    model::Event event = event_from(observed);
    event.thread = model::Name::integer(log->index);
    event.process = process_;
    // Before the seq (the header's contract): a merge reads a t_ns that goes back in seq order as
    // the latest before it, which then stays at or before the event's place.
    event.t_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
    // relaxed: see the contract; the RMW's place in the counter's order is the event's place.
    event.seq = next_seq_.fetch_add(1, std::memory_order_relaxed) + 1;
    *slot = std::move(event);
  } catch (...) {
    // Out of memory while copying the event's strings: it took no seq, and it is counted.
    lost_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ++log->tail_used;
  // release: a snapshot that reads this count sees the event stored.
  log->published.store(log->published.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

void TraceRecorder::record(const ObservedEvent& event) noexcept { append(event); }

void TraceRecorder::call_begin(std::string_view kernel, std::string_view key, int stream) noexcept {
  append(ObservedEvent{.kind = model::EventKind::CallBegin, .kernel = kernel, .key = key, .stream = stream});
}

void TraceRecorder::call_end(std::string_view kernel, std::string_view key, const CallOutcome& outcome,
                             int stream) noexcept {
  const std::string* config = outcome.config ? &*outcome.config : nullptr;
  const std::string* error = outcome.error ? &*outcome.error : nullptr;
  append(ObservedEvent{
      .kind = model::EventKind::CallEnd, .kernel = kernel, .key = key, .config = config, .error = error, .stream = stream});
}

std::int64_t TraceRecorder::progress() const noexcept {
  return next_seq_.load(std::memory_order_relaxed) + lost_.load(std::memory_order_relaxed);
}

namespace {

// Merges the logs' events in seq order (each log is already in seq order). `take(event)` copies
// or moves one event out. With `free_chunks` (take()), each chunk is freed as soon as it is merged,
// so that the trace and the chunks are never both held whole, and every log is left empty.
template <typename Log, typename Take>
std::vector<model::Event> merge_logs(Log* logs, Take take, bool free_chunks) {
  struct Cursor {
    Log* log = nullptr;
    decltype(Log::head) chunk{};
    std::size_t in_chunk = 0, left = 0;
  };
  std::vector<Cursor> cursors;
  std::size_t total = 0;
  for (Log* log = logs; log != nullptr; log = log->next) {
    // acquire: pairs with the release of each stored event; the events up to it are whole.
    const std::size_t count = log->published.load(std::memory_order_acquire);
    if (count > 0) cursors.push_back({.log = log, .chunk = log->head, .in_chunk = 0, .left = count});
    total += count;
  }
  auto seq_at = [&](std::size_t i) { return cursors[i].chunk->events[cursors[i].in_chunk].seq; };
  auto later = [&](std::size_t a, std::size_t b) { return seq_at(a) > seq_at(b); };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> next(later);
  for (std::size_t i = 0; i < cursors.size(); ++i) next.push(i);
  std::vector<model::Event> events;
  events.reserve(total);
  while (!next.empty()) {
    const std::size_t i = next.top();
    next.pop();
    Cursor& cursor = cursors[i];
    events.push_back(take(cursor.chunk->events[cursor.in_chunk]));
    const bool last = --cursor.left == 0;
    if (!last && ++cursor.in_chunk < std::size(cursor.chunk->events)) {
      next.push(i);
      continue;
    }
    auto* done = std::exchange(cursor.chunk, cursor.chunk->next);
    cursor.in_chunk = 0;
    if (free_chunks) {
      delete done;
      cursor.log->head = cursor.chunk;  // the log now starts after what was merged
    }
    if (!last) next.push(i);
  }
  if (free_chunks)
    for (Log* log = logs; log != nullptr; log = log->next) log->clear();
  return events;
}

}  // namespace

model::Trace TraceRecorder::snapshot() const {
  return {header_, merge_logs(logs_.load(std::memory_order_acquire), [](const model::Event& event) { return event; }, false)};
}

model::Trace TraceRecorder::take() {
  return {header_, merge_logs(logs_.load(std::memory_order_acquire), [](model::Event& event) { return std::move(event); }, true)};
}

}  // namespace safetune
