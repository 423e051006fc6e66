#include "impl/sim/sim_stream.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace safetune::sim {

SimStream::SimStream(int id, std::unique_ptr<ScheduleNoise> noise)
    : Stream(&kSimStreamKind), id_(id), noise_(std::move(noise)) {
  if (!noise_) {
    throw std::invalid_argument("SimStream " + std::to_string(id) + ": noise must not be null");
  }
  worker_ = std::thread([this] { run_worker(); });
}

SimStream::~SimStream() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_one();
  worker_.join();
}

void SimStream::enqueue(std::function<void()> work) {
  noise_->at(SyncPoint::Enqueue);
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
    ++enqueued_;
  }
  work_ready_.notify_one();
}

void SimStream::synchronize() {
  noise_->at(SyncPoint::Synchronize);
  std::unique_lock lock(mutex_);
  // Waiting for a target, not for an empty queue: work enqueued after this call began (by
  // another thread sharing the stream) must not extend the wait.
  const std::uint64_t target = enqueued_;
  progress_.wait(lock, [&] { return completed_ >= target; });
}

std::uint64_t SimStream::completed() const {
  std::lock_guard lock(mutex_);
  return completed_;
}

void SimStream::run_worker() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and every queued item has run
    auto work = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    work();  // outside the lock: enqueue and synchronize stay responsive while work runs
    lock.lock();
    ++completed_;
    progress_.notify_all();
  }
}

}  // namespace safetune::sim
