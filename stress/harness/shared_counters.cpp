#include "stress/harness/shared_counters.h"

#include <sys/mman.h>

#include <cerrno>
#include <new>
#include <system_error>

namespace safetune::stress {

static_assert(SharedCounters::Counter::is_always_lock_free, "shared across processes, so it must not hold a lock");

SharedCounters::SharedCounters(std::size_t count, const char* what) : count_(count) {
  void* memory = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::system_error(errno, std::generic_category(), what);
  counters_ = static_cast<Counter*>(memory);
  for (std::size_t index = 0; index < count_; ++index) new (&counters_[index]) Counter(0);
}

SharedCounters::~SharedCounters() { ::munmap(counters_, bytes()); }

}  // namespace safetune::stress
