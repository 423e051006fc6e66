// SimStream: an in-order queue of device work, run by its own CPU thread.
//
// Contract:
// - Work runs in enqueue order, one item at a time, on the stream's worker thread.
// - synchronize() blocks the caller until every item enqueued before the call has finished.
// - Work items must not throw (the worker would terminate the process): they are the device's
//   side of a launch, and failures are reported by the kernel on the caller's side.
// - The destructor runs the items still queued, then joins the worker: no thread outlives the
//   stream and no queued work is silently dropped.
// - enqueue() and synchronize() call the stream's ScheduleNoise on the caller's thread first.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "impl/kernel.h"
#include "impl/sim/schedule_noise.h"

namespace safetune::sim {

// The kind of every SimStream, and of no other stream.
inline constexpr StreamKind kSimStreamKind{"sim"};

class SimStream final : public Stream {
 public:
  // `noise` must not be null (std::invalid_argument otherwise). Usually made by SimDevice,
  // which hands out unique ids and seeds the noise from (device seed, id).
  SimStream(int id, std::unique_ptr<ScheduleNoise> noise);
  ~SimStream() override;
  SimStream(const SimStream&) = delete;
  SimStream& operator=(const SimStream&) = delete;

  void enqueue(std::function<void()> work);
  void synchronize() override;
  int id() const override { return id_; }

  ScheduleNoise& noise() { return *noise_; }
  std::uint64_t completed() const;  // items finished so far

 private:
  void run_worker();

  const int id_;
  const std::unique_ptr<ScheduleNoise> noise_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;  // signalled on enqueue and on shutdown
  std::condition_variable progress_;    // signalled whenever an item finishes
  std::deque<std::function<void()>> queue_;  // guarded by mutex_
  std::uint64_t enqueued_ = 0;               // guarded by mutex_
  std::uint64_t completed_ = 0;              // guarded by mutex_; completed_ <= enqueued_
  bool stopping_ = false;                    // guarded by mutex_
  std::thread worker_;  // last: it starts only after every member above is constructed
};

}  // namespace safetune::sim
