// Pins a benchmark thread to one CPU for the length of a benchmark run, then restores it.
//
// Why: scaling compares the aggregate rate at 2 threads with the rate at 1 thread, for the tuned
// and the direct loop. Virtual CPUs are not equal: on this project's 2-vCPU CI machines one vCPU
// runs the same loop 1.6 times slower than the other. Unpinned, the 1-thread run of one loop may
// land on the fast vCPU and the other loop's on the slow one, and the ratio of their scalings
// then measures the scheduler, not the autotuner. Pinned, benchmark thread i always runs on the
// i-th allowed CPU (round robin), so both loops are measured on the same CPUs.
//
// SAFETUNE_BENCH_NO_PIN=1 in the environment turns pinning off (for comparison).
#pragma once
#include <pthread.h>
#include <sched.h>

#include <cstdlib>

namespace safetune::bench {

class ScopedCpuPin {
 public:
  explicit ScopedCpuPin(int thread_index) {
    if (std::getenv("SAFETUNE_BENCH_NO_PIN") != nullptr) return;
    if (pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) != 0) return;
    const int cpu = nth_allowed_cpu(thread_index % CPU_COUNT(&saved_));
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
  }
  ~ScopedCpuPin() {
    if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
  }
  ScopedCpuPin(const ScopedCpuPin&) = delete;
  ScopedCpuPin& operator=(const ScopedCpuPin&) = delete;

 private:
  int nth_allowed_cpu(int n) const {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &saved_) && n-- == 0) return cpu;
    }
    return 0;  // unreachable: n < CPU_COUNT(&saved_)
  }

  cpu_set_t saved_{};
  bool pinned_ = false;
};

}  // namespace safetune::bench
