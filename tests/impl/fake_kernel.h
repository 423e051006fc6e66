// Test doubles for the autotuner's device interface: a stream with an id, and a kernel whose
// benchmark times, failures and in-benchmark callbacks the test controls.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/kernel.h"
#include "tests/common/fake_stream.h"

namespace safetune::testing {

// One launch as the kernel saw it.
struct LaunchRecord {
  std::string key;
  std::string config;
};

class FakeKernel : public Kernel {
 public:
  // `times`: canonical config -> benchmark time; a config not listed times at 100.
  explicit FakeKernel(std::map<std::string, double> times = {}, std::string name = "add")
      : name_(std::move(name)), times_(std::move(times)) {}

  const std::string& name() const override { return name_; }

  void launch(const Invocation& inv, const Config& config) override {
    std::lock_guard guard(mutex_);
    if (failing_launches_.count(config.str()) != 0) throw LaunchError("launch of " + config.str());
    launches_.push_back({std::string(inv.key), config.str()});
  }

  double benchmark(const Invocation& inv, const Config& config) override {
    {
      std::lock_guard guard(mutex_);
      benches_.push_back({std::string(inv.key), config.str()});
    }
    if (inside_benchmark) inside_benchmark(inv, config);
    std::lock_guard guard(mutex_);
    if (failing_benches_.count(config.str()) != 0) {
      throw LaunchError("injected fault in " + config.str());
    }
    auto it = times_.find(config.str());
    return it == times_.end() ? 100.0 : it->second;
  }

  void fail_bench(const std::string& config) {
    std::lock_guard guard(mutex_);
    failing_benches_.insert(config);
  }
  void heal_bench(const std::string& config) {
    std::lock_guard guard(mutex_);
    failing_benches_.erase(config);
  }
  void fail_launch(const std::string& config) {
    std::lock_guard guard(mutex_);
    failing_launches_.insert(config);
  }
  std::vector<LaunchRecord> benches() const {
    std::lock_guard guard(mutex_);
    return benches_;
  }
  std::vector<LaunchRecord> launches() const {
    std::lock_guard guard(mutex_);
    return launches_;
  }
  std::size_t benches_of(const std::string& key) const {
    std::size_t count = 0;
    for (const auto& bench : benches()) count += bench.key == key ? 1 : 0;
    return count;
  }

  // Runs inside benchmark(), before the time is returned; set before any thread calls.
  std::function<void(const Invocation&, const Config&)> inside_benchmark;

 private:
  const std::string name_;
  mutable std::mutex mutex_;
  std::map<std::string, double> times_;
  std::set<std::string> failing_benches_;
  std::set<std::string> failing_launches_;
  std::vector<LaunchRecord> benches_;
  std::vector<LaunchRecord> launches_;
};

}  // namespace safetune::testing
