#include "stress/harness/round_progress.h"

#include <sys/mman.h>

#include <new>

namespace safetune::stress {

static_assert(std::atomic<std::int64_t>::is_always_lock_free, "shared across processes, so it must not hold a lock");

RoundProgress::RoundProgress() {
  void* memory = ::mmap(nullptr, sizeof(std::atomic<std::int64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  events_ = new (memory) std::atomic<std::int64_t>(0);
}

RoundProgress::~RoundProgress() { ::munmap(events_, sizeof(std::atomic<std::int64_t>)); }

}  // namespace safetune::stress
