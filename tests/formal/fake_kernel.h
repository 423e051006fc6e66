// A kernel and a stream for Relacy executions: no device, no real threads, no clock.
//
// Relacy runs fibers of one OS thread, so a real device (sim threads, sleeps) cannot run under it.
// FakeKernel's times are fixed per config, so the winner is known; its faults are a count of
// benchmarks that fail first, so "every config fails, then a retry succeeds" is one setting.
// on_benchmark runs inside benchmark(), i.e. while the autotuner holds the bench lock: a nested
// call from there is nested tuning inside a benchmark.
// Its counter is plain: it is test scaffolding, touched only between Relacy operations.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "impl/config.h"
#include "impl/kernel.h"
#include "tests/common/fake_stream.h"

namespace safetune::formal {

using testing::FakeStream;

class FakeKernel : public Kernel {
 public:
  FakeKernel(std::string name, std::map<std::string, double> time_ns)
      : name_(std::move(name)), time_ns_(std::move(time_ns)) {}

  const std::string& name() const override { return name_; }
  void launch(const Invocation&, const Config&) override {}
  double benchmark(const Invocation& inv, const Config& config) override {
    if (on_benchmark) on_benchmark(inv, config);
    if (benchmarks_++ < failing_benchmarks) throw LaunchError("injected fault");
    return time_ns_.at(config.str());
  }

  int failing_benchmarks = 0;  // the first this many benchmarks fail
  std::function<void(const Invocation&, const Config&)> on_benchmark;

 private:
  std::string name_;
  std::map<std::string, double> time_ns_;
  int benchmarks_ = 0;
};

}  // namespace safetune::formal
