// `unlocked` (black-box): the shape of Triton's @autotune (3.x). Its tuning state is fields of one
// shared object, `nargs` (the current call's arguments), `cache`, `configs_timings` and
// `best_config`, and nothing marks a key as being tuned. Each call sets `nargs`, tunes on a miss
// (benchmarking every config, with a stream synchronize in each), fills the cache, launches and
// clears `nargs`. Concurrent cold calls all tune (R2, duplicate tunings), and a call still
// benchmarking when another call finished finds `nargs` cleared: it raises, as Triton raised
// "TypeError: 'NoneType' object is not a mapping". `safetune stress --subject unlocked --threads
// 10 --keys 1 --configs 100 --calls 1` reproduces the report's figures.
//
// Every single field access is atomic here (a mutex stands in for Python's GIL, which makes
// each bytecode atomic but nothing longer), so the bug is the protocol's, not a C++ data race.
#pragma once

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "stress/subjects/subject.h"

namespace safetune::stress::subjects {

class Unlocked final : public Subject {
 public:
  explicit Unlocked(const SubjectEnvironment& environment) : env_(environment) {}

  Config call(const Invocation& inv) override {
    set_nargs(&inv);
    int config = cached(inv.key);
    if (config < 0) {
      std::vector<double> timings = bench_all(inv);
      config = argmin(timings);
      if (config < 0) throw std::runtime_error("key '" + std::string(inv.key) + "': every config failed");
      std::lock_guard gil(gil_);
      cache_[std::string(inv.key)] = config;
      configs_timings_ = std::move(timings);
    }
    set_best_config(config);
    const Config& chosen = env_.space[static_cast<std::size_t>(config)];
    env_.kernel.launch(inv, chosen);
    set_nargs(nullptr);  // BUG: clears the field another thread's tuning still reads
    return chosen;
  }

  void invalidate(std::string_view key) override {
    std::lock_guard gil(gil_);
    if (auto it = cache_.find(key); it != cache_.end()) cache_.erase(it);
  }

 private:
  // Triton's _bench: the pre-hook is built from self.nargs, which may be None by now.
  std::vector<double> bench_all(const Invocation& inv) {
    std::vector<double> timings(env_.space.size(), -1);  // -1: failed (Triton: inf)
    for (std::size_t i = 0; i < env_.space.size(); ++i) {
      if (nargs() == nullptr) throw std::runtime_error("TypeError: 'NoneType' object is not a mapping");
      try {
        if (env_.pre_bench_hook) env_.pre_bench_hook(inv, env_.space[i]);
        timings[i] = env_.kernel.benchmark(inv, env_.space[i]);
      } catch (const std::exception&) {
        // a failed config is skipped (the harness's kernel recorded the failed bench)
      }
    }
    return timings;
  }

  static int argmin(const std::vector<double>& timings) {
    int best = -1;
    for (std::size_t i = 0; i < timings.size(); ++i) {
      if (timings[i] >= 0 && (best < 0 || timings[i] < timings[static_cast<std::size_t>(best)])) {
        best = static_cast<int>(i);
      }
    }
    return best;
  }

  void set_nargs(const Invocation* args) {
    std::lock_guard gil(gil_);
    nargs_ = args;
  }
  const Invocation* nargs() {
    std::lock_guard gil(gil_);
    return nargs_;
  }
  int cached(std::string_view key) {
    std::lock_guard gil(gil_);
    auto it = cache_.find(key);
    return it == cache_.end() ? -1 : it->second;
  }
  void set_best_config(int config) {
    std::lock_guard gil(gil_);
    best_config_ = config;
  }

  const SubjectEnvironment env_;
  std::mutex gil_;  // held for one field access at a time, never across a call's steps
  // The shared fields, each guarded by gil_ for a single access only.
  const Invocation* nargs_ = nullptr;  // only compared with null, never dereferenced
  std::map<std::string, int, std::less<>> cache_;
  std::vector<double> configs_timings_;
  int best_config_ = -1;
};

}  // namespace safetune::stress::subjects
