// Does a trace recorder hide races from ThreadSanitizer? Two threads each make one racy access
// (a plain write, a plain read of one int) between two recorded events; a relaxed flag, which
// orders nothing for TSan, makes the read come after the write's events in time.
//
//   race_visibility lock-free   records with TraceRecorder: TSan must report the race.
//   race_visibility locked      records through one mutex per event (LockedRecorder below, the
//                               design the recorder had before): the mutex orders the write's
//                               events before the read's, so TSan cannot see the race.
//
// tests/impl/CMakeLists.txt runs both in a ThreadSanitizer build and requires exactly that.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "impl/trace/trace_recorder.h"

namespace {

// Kept only here: the old recorder's global lock, around the new recorder.
class LockedRecorder final : public safetune::Observer {
 public:
  void record(const safetune::ObservedEvent& event) noexcept override {
    std::lock_guard guard(mutex_);
    recorder_.record(event);
  }

 private:
  std::mutex mutex_;
  safetune::TraceRecorder recorder_{safetune::model::Header{}};
};

int shared_value = 0;  // the racy location
int seen_value = -1;

void record(safetune::Observer& observer, safetune::model::EventKind kind) {
  observer.record(safetune::ObservedEvent{.kind = kind, .kernel = "k", .key = "key", .stream = 0});
}

void run(safetune::Observer& observer) {
  std::atomic<bool> written{false};
  std::thread writer([&] {
    record(observer, safetune::model::EventKind::CallBegin);
    shared_value = 42;
    record(observer, safetune::model::EventKind::Invalidate);
    written.store(true, std::memory_order_relaxed);  // relaxed: no happens-before for TSan
  });
  std::thread reader([&] {
    while (!written.load(std::memory_order_relaxed)) std::this_thread::yield();
    record(observer, safetune::model::EventKind::CallBegin);
    seen_value = shared_value;
    record(observer, safetune::model::EventKind::Invalidate);
  });
  writer.join();
  reader.join();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "lock-free") != 0 && std::strcmp(argv[1], "locked") != 0)) {
    std::fprintf(stderr, "usage: race_visibility lock-free|locked\n");
    return 2;
  }
  if (std::strcmp(argv[1], "lock-free") == 0) {
    safetune::TraceRecorder recorder{safetune::model::Header{}};
    run(recorder);
  } else {
    LockedRecorder recorder;
    run(recorder);
  }
  std::printf("read %d\n", seen_value);
  return 0;
}
