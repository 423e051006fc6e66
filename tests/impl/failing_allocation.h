// Makes one chosen allocation of the calling thread fail with std::bad_alloc, for tests of what
// the autotuner does when its own bookkeeping runs out of memory.
//
// Only a test binary that links failing_allocation.cpp gets it: that file replaces the global
// scalar operator new and delete, plain and nothrow (with malloc and free, so a sanitizer sees
// matching pairs). Array and aligned forms keep their defaults, and an unarmed thread is never
// failed. Under ThreadSanitizer, whose static runtime defines every operator new and delete
// itself, nothing is replaced and allocation_failures_injectable() is false.
#pragma once

namespace safetune::testing {

bool allocation_failures_injectable();

// The `skipped`-th next scalar `operator new` on this thread (0: the very next) throws
// std::bad_alloc; the ones before it, and every one after it, succeed.
void fail_an_allocation_soon(int skipped = 0);

// Whether an armed failure has not happened yet on this thread.
bool allocation_failure_pending();

}  // namespace safetune::testing
