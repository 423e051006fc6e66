#include "cudnn_cache_subject.h"

#include <memory>
#include <string>

#include "benchmark_cache.h"

namespace example {
namespace {

using safetune::Config;
using safetune::Invocation;

class CudnnCacheSubject final : public safetune::stress::Subject {
 public:
  explicit CudnnCacheSubject(const safetune::stress::SubjectEnvironment& environment)
      : env_(environment) {}

  Config call(const Invocation& inv) override {
    const auto measure = [this, &inv](const Config& config) { return bench(inv, config); };
    const Config chosen = cache_.choose(std::string(inv.key), env_.space.configs(), measure);
    env_.kernel.launch(inv, chosen);
    return chosen;
  }

  void invalidate(std::string_view key) override { cache_.erase(std::string(key)); }

 private:
  // The hook runs first, as the subject contract asks: it may throw (a failed bench, which the
  // cache skips) or call this subject again (re-entry, nested tuning).
  double bench(const Invocation& inv, const Config& config) {
    if (env_.pre_bench_hook) env_.pre_bench_hook(inv, config);
    return env_.kernel.benchmark(inv, config);
  }

  const safetune::stress::SubjectEnvironment env_;
  BenchmarkCache<Config> cache_;
};

}  // namespace

safetune::stress::SubjectInfo cudnn_cache_subject() {
  safetune::stress::SubjectInfo info;
  info.name = "cudnn-cache";
  info.bug = "PyTorch cuDNN-style cache (stress/adapters/cudnn_style_cache): a miss is benchmarked "
             "outside the lock with no in-flight marker: duplicate tuning";
  info.white_box = false;
  info.make = [](const safetune::stress::SubjectEnvironment& environment) {
    return std::make_unique<CudnnCacheSubject>(environment);
  };
  return info;
}

}  // namespace example
