// A kernel whose benchmark first runs a hook: the stress harness's way to call into an autotuner
// from inside Kernel::benchmark, where the subject holds its bench lock (a benchmark whose own
// launch goes through another autotuned kernel). A nested tuning there must not deadlock: a
// waiter gives up its bench-lock holds before it blocks (impl/bench_lock.h), and only a call made
// under the lock shows whether it does; the pre-bench hook runs outside the lock.
#pragma once

#include <functional>
#include <memory>
#include <utility>

#include "impl/kernel.h"

namespace safetune::stress {

class BenchmarkHookKernel final : public Kernel {
 public:
  using Hook = std::function<void(const Invocation&, const Config&)>;
  BenchmarkHookKernel(Kernel& inner, Hook hook) : inner_(inner), hook_(std::move(hook)) {}

  const std::string& name() const override { return inner_.name(); }
  void launch(const Invocation& inv, const Config& config) override { inner_.launch(inv, config); }
  // The inner kernel's prepared launches: the tuned path is the one it has without the hook.
  std::unique_ptr<PreparedLaunch> prepare(const Config& config) override {
    return inner_.prepare(config);
  }
  // The hook's exception is the benchmark's failure, as a failing measurement's would be.
  double benchmark(const Invocation& inv, const Config& config) override {
    hook_(inv, config);
    return inner_.benchmark(inv, config);
  }

 private:
  Kernel& inner_;
  Hook hook_;
};

}  // namespace safetune::stress
