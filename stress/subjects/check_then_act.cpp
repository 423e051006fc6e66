// `check-then-act` (black-box): the cache lookup is locked, but a miss tunes outside the lock
// with no in-flight marker, and the result is stored afterwards. Concurrent cold calls all miss
// and all tune: PyTorch TunableOp's and XLA's shape. Caught as R2 (exclusive tuning) or R3.
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "subjects.h"

namespace safetune::stress::subjects {
namespace {

class CheckThenAct final : public Subject {
 public:
  explicit CheckThenAct(const SubjectEnvironment& environment) : env_(environment) {}

  Config call(const Invocation& inv) override {
    int config = lookup(inv.key);
    if (config < 0) {
      config = tune(inv);  // BUG: nothing tells other callers that this key is being tuned
      std::lock_guard guard(mutex_);
      cache_[std::string(inv.key)] = config;
    }
    const Config& chosen = env_.space[static_cast<std::size_t>(config)];
    env_.kernel.launch(inv, chosen);
    return chosen;
  }

  void invalidate(std::string_view key) override {
    std::lock_guard guard(mutex_);
    if (auto it = cache_.find(key); it != cache_.end()) cache_.erase(it);
  }

 private:
  int lookup(std::string_view key) {
    std::lock_guard guard(mutex_);
    auto it = cache_.find(key);
    return it == cache_.end() ? -1 : it->second;
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
  std::mutex mutex_;
  std::map<std::string, int, std::less<>> cache_;  // guarded by mutex_
};

}  // namespace

std::unique_ptr<Subject> make_check_then_act(const SubjectEnvironment& environment) {
  return std::make_unique<CheckThenAct>(environment);
}

}  // namespace safetune::stress::subjects
