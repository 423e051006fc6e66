// Recording a trace (impl/trace_recorder.h).
#include "impl/trace_recorder.h"

#include <algorithm>
#include <atomic>

namespace safetune {
namespace {

// The calling thread's name: bound by bind_thread (recorder 0 means "every recorder"), or
// auto-assigned by one recorder.
struct ThreadBinding {
  std::uint64_t recorder = 0;
  int index = -1;
};
thread_local ThreadBinding this_thread_binding;

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

TraceRecorder::TraceRecorder(model::Header header, std::size_t expected_events)
    : header_(std::move(header)),
      start_(std::chrono::steady_clock::now()),
      recorder_id_(next_recorder_id()) {
  events_.reserve(expected_events);
}

void TraceRecorder::bind_thread(int index) { this_thread_binding = {0, index}; }

void TraceRecorder::record(const ObservedEvent& event) noexcept {
  try {
    append(event_from(event));
  } catch (...) {
    // Out of memory while copying strings: the event is lost; record() must not throw.
  }
}

void TraceRecorder::call_begin(std::string_view kernel, std::string_view key, int stream) {
  ObservedEvent observed{model::EventKind::CallBegin, kernel, key, nullptr, nullptr, {}, stream};
  append(event_from(observed));
}

void TraceRecorder::call_end(std::string_view kernel, std::string_view key,
                             const CallOutcome& outcome, int stream) {
  const std::string* config = outcome.config ? &*outcome.config : nullptr;
  const std::string* error = outcome.error ? &*outcome.error : nullptr;
  ObservedEvent observed{model::EventKind::CallEnd, kernel, key, config, error, {}, stream};
  append(event_from(observed));
}

void TraceRecorder::append(model::Event event) noexcept {
  std::lock_guard guard(mutex_);
  event.seq = static_cast<std::int64_t>(events_.size()) + 1;
  event.thread = model::Name::integer(thread_index_locked());
  event.t_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - start_)
                   .count();
  try {
    events_.push_back(std::move(event));
  } catch (...) {
    // Growing past the reservation failed: drop the event rather than throw from an observer.
  }
}

int TraceRecorder::thread_index_locked() {
  ThreadBinding& binding = this_thread_binding;
  const bool named_here = binding.recorder == 0 ? binding.index >= 0
                                                : binding.recorder == recorder_id_;
  if (!named_here) binding = {recorder_id_, next_free_index_};
  next_free_index_ = std::max(next_free_index_, binding.index + 1);
  return binding.index;
}

model::Trace TraceRecorder::snapshot() const {
  std::lock_guard guard(mutex_);
  return model::Trace{header_, events_};
}

std::size_t TraceRecorder::size() const {
  std::lock_guard guard(mutex_);
  return events_.size();
}

}  // namespace safetune
