// Short ways to build TunerOptions in tests (designated initializers warn under g++ -Wextra).
#pragma once

#include "impl/autotuner.h"

namespace safetune::testing {

inline TunerOptions observed_by(Observer* observer) {
  TunerOptions options;
  options.observer = observer;
  return options;
}

inline TunerOptions with_bench_lock(BenchLock* bench_lock) {
  TunerOptions options;
  options.bench_lock = bench_lock;
  return options;
}

inline TunerOptions with_fallback(WaitPolicy wait, ReentryPolicy reentry, const char* fallback) {
  TunerOptions options;
  options.wait = wait;
  options.reentry = reentry;
  options.fallback = Config::parse(fallback);
  return options;
}

}  // namespace safetune::testing
