// The per-device benchmark lock (impl/bench_lock.h), compiled once for real threads.
#include "impl/bench_lock.h"

namespace safetune {

template class BasicBenchLock<StdSync>;

}  // namespace safetune
