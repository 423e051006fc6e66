// `check-then-act` (black-box): the cache lookup is locked, but a miss tunes outside the lock
// with no in-flight marker, and the result is stored afterwards. Concurrent cold calls all miss
// and all tune: PyTorch TunableOp's and XLA's shape. Caught as R2 (exclusive tuning) or R3.
//
// It stands alone, as a user's autotuner would, but its lock and its cache go through the sync
// policy (impl/sync.h), so that the formal tests run this same code under Relacy.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "impl/sync.h"
#include "stress/subjects/subject.h"

namespace safetune::stress::subjects {

template <class Sync>
class CheckThenAct final : public Subject {
 public:
  explicit CheckThenAct(const SubjectEnvironment& environment) : env_(environment) {}

  Config call(const Invocation& inv) override {
    int config = lookup(inv.key);
    if (config < 0) {
      config = tune(inv);  // BUG: nothing tells other callers that this key is being tuned
      typename Sync::Lock guard(mutex_);
      cache_.mut()[std::string(inv.key)] = config;
    }
    const Config& chosen = env_.space[static_cast<std::size_t>(config)];
    env_.kernel.launch(inv, chosen);
    return chosen;
  }

  void invalidate(std::string_view key) override {
    typename Sync::Lock guard(mutex_);
    auto& cache = cache_.mut();
    if (auto it = cache.find(key); it != cache.end()) cache.erase(it);
  }

 private:
  int lookup(std::string_view key) {
    typename Sync::Lock guard(mutex_);
    const auto& cache = cache_.get();
    auto it = cache.find(key);
    return it == cache.end() ? -1 : it->second;
  }

  // Benches every config (hook, then benchmark); returns the fastest, or throws if all failed.
  int tune(const Invocation& inv) {
    int best = -1;
    double best_time = 0;
    for (std::size_t i = 0; i < env_.space.size(); ++i) {
      try {
        if (env_.pre_bench_hook) env_.pre_bench_hook(inv, env_.space[i]);
        const double time = env_.kernel.benchmark(inv, env_.space[i]);
        if (best < 0 || time < best_time) best = static_cast<int>(i), best_time = time;
      } catch (const std::exception&) {
        // a failed config is skipped (the harness's kernel recorded the failed bench)
      }
    }
    if (best < 0) throw std::runtime_error("key '" + std::string(inv.key) + "': every config failed");
    return best;
  }

  const SubjectEnvironment env_;
  typename Sync::Mutex mutex_;
  typename Sync::template Var<std::map<std::string, int, std::less<>>> cache_
      SAFETUNE_GUARDED_BY(mutex_);
};

}  // namespace safetune::stress::subjects
