#include "tests/impl/failing_allocation.h"

#include <cstdlib>
#include <new>

#include "tests/common/sanitizer_build.h"

namespace safetune::testing {
namespace {

// -1: unarmed. Otherwise the number of allocations still to let through before one fails.
thread_local int allocations_before_failure = -1;

}  // namespace

#ifdef SAFETUNE_TSAN_BUILD
bool allocation_failures_injectable() { return false; }
#else
bool allocation_failures_injectable() { return true; }
#endif

void fail_an_allocation_soon(int skipped) { allocations_before_failure = skipped; }

bool allocation_failure_pending() { return allocations_before_failure >= 0; }

}  // namespace safetune::testing

#ifndef SAFETUNE_TSAN_BUILD

void* operator new(std::size_t size) {
  using safetune::testing::allocations_before_failure;
  if (allocations_before_failure == 0) {
    allocations_before_failure = -1;  // one failure per arming
    throw std::bad_alloc();
  }
  if (allocations_before_failure > 0) --allocations_before_failure;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}

void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }

// The nothrow forms too, so that every scalar allocation and its release pair up in malloc/free.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }

#endif  // SAFETUNE_TSAN_BUILD
