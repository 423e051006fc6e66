#include "stress/harness/pause_gate.h"

namespace safetune::stress {

namespace {

// How many steps the calling thread is inside (of its process's one gate).
thread_local int steps_of_this_thread = 0;

}  // namespace

void PauseGate::enter() {
  std::unique_lock lock(mutex_);
  if (steps_of_this_thread == 0) changed_.wait(lock, [&] { return !closed_; });
  ++in_steps_;
  ++steps_of_this_thread;
}

void PauseGate::leave() noexcept {
  std::lock_guard lock(mutex_);
  --steps_of_this_thread;
  if (--in_steps_ == 0) changed_.notify_all();
}

void PauseGate::stop_between_steps(const std::function<void()>& stop) {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !closed_; });  // one stop at a time
    closed_ = true;
    changed_.wait(lock, [&] { return in_steps_ == 0; });
  }
  struct Reopen {
    PauseGate& gate;
    ~Reopen() {
      std::lock_guard lock(gate.mutex_);
      gate.closed_ = false;
      gate.changed_.notify_all();
    }
  } reopen{*this};
  stop();
}

}  // namespace safetune::stress
