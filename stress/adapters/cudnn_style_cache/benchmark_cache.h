// The user's autotuner: a tiny algorithm cache in the style of PyTorch's cuDNN benchmark cache
// (`BenchmarkCache` in aten/src/ATen/native/cudnn/), as someone would write it for their own
// kernels. It knows nothing about safetune.
//
// A std::mutex guards a std::unordered_map from key to the chosen algorithm. On a miss the
// caller benchmarks every algorithm with the lock released (a benchmark takes milliseconds and
// must not block other keys), then inserts the fastest under the lock; the last insert wins.
// Nothing marks a key as "being tuned", so callers that miss the same cold key at the same
// time all benchmark it: duplicate tuning. The map itself is always locked, so there is no data
// race for ThreadSanitizer to see; the bug is in the protocol, not in the memory accesses.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace example {

template <typename Algo>
class BenchmarkCache {
 public:
  // Runs one algorithm for timing and returns its time; throws when it cannot run.
  using Benchmark = std::function<double(const Algo&)>;

  // The algorithm to use for `key`: the cached one, or else the fastest of `algos` (the first
  // on a tie), measured now and cached. Throws std::runtime_error when every algorithm fails.
  Algo choose(const std::string& key, const std::vector<Algo>& algos, const Benchmark& benchmark) {
    if (std::optional<Algo> cached = find(key)) return *cached;
    const Algo best = fastest(key, algos, benchmark);  // no lock held: other keys go on
    insert(key, best);
    return best;
  }

  // Forgets `key`, so that its next call measures again.
  void erase(const std::string& key) {
    std::lock_guard<std::mutex> guard(mutex_);
    cache_.erase(key);
  }

 private:
  std::optional<Algo> find(const std::string& key) {
    std::lock_guard<std::mutex> guard(mutex_);
    const auto it = cache_.find(key);
    if (it == cache_.end()) return std::nullopt;
    return it->second;
  }

  void insert(const std::string& key, const Algo& algo) {
    std::lock_guard<std::mutex> guard(mutex_);
    cache_.insert_or_assign(key, algo);
  }

  // An algorithm that throws is skipped, as cudnnFind reports a failed algorithm and moves on.
  static Algo fastest(const std::string& key, const std::vector<Algo>& algos,
                      const Benchmark& benchmark) {
    std::optional<Algo> best;
    double best_time = 0;
    for (const Algo& algo : algos) {
      try {
        const double time = benchmark(algo);
        if (!best || time < best_time) best = algo, best_time = time;
      } catch (const std::exception&) {
      }
    }
    if (!best) throw std::runtime_error("no algorithm could run for key '" + key + "'");
    return *best;
  }

  std::mutex mutex_;
  std::unordered_map<std::string, Algo> cache_;  // guarded by mutex_
};

}  // namespace example
