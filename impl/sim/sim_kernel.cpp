#include "impl/sim/sim_kernel.h"

#include <string>
#include <utility>

namespace safetune::sim {
namespace {

// FNV-1a over the bytes of each part, with a separator so that ("ab","c") != ("a","bc").
// Chosen because its result is fixed by its definition, unlike std::hash.
class StableHash {
 public:
  explicit StableHash(std::uint64_t seed) { add_integer(seed); }
  void add(std::string_view text) {
    for (unsigned char byte : text) mix(byte);
    mix(0xff);
  }
  void add_integer(std::uint64_t value) {
    for (int shift = 0; shift < 64; shift += 8) mix(static_cast<unsigned char>(value >> shift));
  }
  std::uint64_t value() const { return state_; }

 private:
  void mix(unsigned char byte) { state_ = (state_ ^ byte) * 0x100000001b3ULL; }
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

std::unordered_set<std::string> canonical_strings(const std::vector<Config>& configs) {
  std::unordered_set<std::string> strings;
  for (const auto& config : configs) strings.insert(config.str());
  return strings;
}

void require(bool ok, const SimKernelOptions& options, const std::string& what) {
  if (!ok) throw std::invalid_argument("SimKernel '" + options.name + "': " + what);
}

SimStream& sim_stream_of(const Invocation& inv, const std::string& kernel) {
  if (inv.stream.kind() != &kSimStreamKind) {
    throw std::invalid_argument("SimKernel '" + kernel + "': stream " + std::to_string(inv.stream.id()) +
                                " is not a SimStream (" + kind_description(inv.stream) + ")");
  }
  return static_cast<SimStream&>(inv.stream);
}

void spin_for(std::chrono::nanoseconds duration) {
  // A spin, not a sleep: sleeps round up to tens of microseconds, which would make 100 configs
  // times several repetitions slow; a spin of a microsecond costs a microsecond.
  const auto deadline = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < deadline) {
  }
}

}  // namespace

void validate(const SimKernelOptions& options) {
  if (options.name.empty()) throw std::invalid_argument("SimKernel: name must not be empty");
  require(options.warmup >= 0 && options.warmup <= 100, options,
          "warmup must be in [0, 100], got " + std::to_string(options.warmup));
  require(options.repetitions >= 1 && options.repetitions <= 100, options,
          "repetitions must be in [1, 100], got " + std::to_string(options.repetitions));
  require(options.work.count() >= 0 && options.work <= std::chrono::milliseconds(1), options,
          "work must be in [0, 1000000] ns, got " + std::to_string(options.work.count()) + " ns");
  require(options.jitter >= 0.0 && options.jitter <= 1.0, options,
          "jitter must be in [0, 1], got " + std::to_string(options.jitter));
  require(options.time_levels >= 0 && options.time_levels <= 1'000'000, options,
          "time_levels must be in [0, 1000000], got " + std::to_string(options.time_levels));
}

SimKernel::SimKernel(const SimDevice& device, SimKernelOptions options)
    : seed_(device.seed()),
      options_((validate(options), std::move(options))),
      fail_launch_(canonical_strings(options_.fail_launch)),
      fail_benchmark_(canonical_strings(options_.fail_benchmark)) {}

void SimKernel::launch(const Invocation& inv, const Config& config) {
  if (!fail_launch_.empty() && fail_launch_.contains(config.str())) {
    throw LaunchError("SimKernel '" + options_.name + "': injected launch failure for config " +
                      config.str());
  }
  if (options_.noop) return;
  launches_.fetch_add(1, std::memory_order_relaxed);
  enqueue_work(sim_stream_of(inv, options_.name));
}

double SimKernel::benchmark(const Invocation& inv, const Config& config) {
  benchmarks_.fetch_add(1, std::memory_order_relaxed);
  if (options_.noop) return expected_time_ns(inv.key, config);
  SimStream& stream = sim_stream_of(inv, options_.name);
  stream.noise().at(SyncPoint::BeforeBenchmark);
  if (fail_launch_.contains(config.str()) || fail_benchmark_.contains(config.str())) {
    throw LaunchError("SimKernel '" + options_.name +
                      "': injected benchmark failure for config " + config.str());
  }
  for (int i = 0; i < options_.warmup; ++i) enqueue_work(stream);
  stream.synchronize();
  for (int i = 0; i < options_.repetitions; ++i) {
    enqueue_work(stream);
    stream.synchronize();
  }
  stream.noise().at(SyncPoint::AfterBenchmark);
  // Every repetition's simulated time is the same, so the median is that time.
  return expected_time_ns(inv.key, config);
}

double SimKernel::expected_time_ns(std::string_view key, const Config& config) const {
  StableHash hash(seed_);
  hash.add(options_.name);
  hash.add(key);
  hash.add(config.str());
  constexpr std::uint64_t kRange = 1'000'000;
  if (options_.time_levels == 0) return 1000.0 + static_cast<double>(hash.value() % kRange);
  const auto levels = static_cast<std::uint64_t>(options_.time_levels);
  return 1000.0 + static_cast<double>(hash.value() % levels * (kRange / levels));
}

void SimKernel::enqueue_work(SimStream& stream) {
  stream.enqueue([duration = jittered_work()] { spin_for(duration); });
}

std::chrono::nanoseconds SimKernel::jittered_work() {
  if (options_.jitter == 0.0) return options_.work;
  StableHash hash(seed_);
  hash.add_integer(work_items_.fetch_add(1, std::memory_order_relaxed));
  const double unit = static_cast<double>(hash.value() % 2001) / 1000.0 - 1.0;  // [-1, 1]
  const double factor = 1.0 + options_.jitter * unit;
  return std::chrono::nanoseconds{
      static_cast<std::int64_t>(static_cast<double>(options_.work.count()) * factor)};
}

PreBenchHook failing_pre_bench_hook(std::vector<Config> failing, PreBenchHook next) {
  return [failing = canonical_strings(failing), next = std::move(next)](const Invocation& inv,
                                                                       const Config& config) {
    if (failing.contains(config.str())) {
      throw InjectedHookFailure("injected pre-bench hook failure for config " + config.str() +
                                " (key " + std::string(inv.key) + ")");
    }
    if (next) next(inv, config);
  };
}

}  // namespace safetune::sim
