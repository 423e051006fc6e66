#include "stress_workload.h"

#include <random>
#include <type_traits>
#include <unordered_map>

#include "cuda_device.h"
#include "vector_add_kernel.h"

namespace safetune::cuda {
namespace {

// Small enough that a copy back per call stays cheap, large enough to fill the device.
constexpr int kElementsPerStream = 1 << 18;

// Routes each launch to the problem of the caller's stream.
class PerStreamVectorAdd final : public Kernel {
 public:
  PerStreamVectorAdd(VectorAddKernel& add, std::string name,
                     const std::unordered_map<int, std::unique_ptr<VectorAddProblem>>& problems)
      : add_(add), name_(std::move(name)), problems_(problems) {}

  const std::string& name() const override { return name_; }
  void launch(const Invocation& inv, const Config& config) override {
    on_own_problem(inv, [&](const Invocation& routed) { add_.launch(routed, config); });
  }
  std::unique_ptr<PreparedLaunch> prepare(const Config& config) override {
    return std::make_unique<Prepared>(*this, add_.prepare(config));
  }
  double benchmark(const Invocation& inv, const Config& config) override {
    VectorAddArgs args = problem_of(inv.stream).args();
    return add_.benchmark(Invocation{inv.key, inv.stream, &args}, config);
  }
  // Read-only lookup: the map is complete before any launch (see the header's contract).
  VectorAddProblem& problem_of(Stream& stream) const {
    const auto found = problems_.find(stream.id());
    if (found == problems_.end()) throw LaunchError("stream " + std::to_string(stream.id()) + " has no buffers");
    return *found->second;
  }

 private:
  // The vector add's prepared launch, routed to the caller's problem like launch().
  class Prepared final : public PreparedLaunch {
   public:
    Prepared(const PerStreamVectorAdd& kernel, std::unique_ptr<PreparedLaunch> add)
        : kernel_(kernel), add_(std::move(add)) {}
    int enqueue(const Invocation& inv) const override {
      return kernel_.on_own_problem(inv, [&](const Invocation& routed) { return add_->enqueue(routed); });
    }
    void finish(int status) const override { add_->finish(status); }

   private:
    const PerStreamVectorAdd& kernel_;
    const std::unique_ptr<PreparedLaunch> add_;
  };

  // Poisons the output of the caller's stream, then runs `launch` with that stream's buffers, and
  // returns what it returns.
  template <class Launch>
  auto on_own_problem(const Invocation& inv, Launch&& launch) const -> std::invoke_result_t<Launch, const Invocation&> {
    VectorAddProblem& problem = problem_of(inv.stream);
    problem.poison(cuda_handle(inv.stream));
    VectorAddArgs args = problem.args();
    return launch(Invocation{inv.key, inv.stream, &args});
  }

  VectorAddKernel& add_;
  const std::string name_;
  const std::unordered_map<int, std::unique_ptr<VectorAddProblem>>& problems_;
};

class Workload final : public CudaStressWorkload {
 public:
  explicit Workload(std::string kernel_name)
      : add_(device_, 1), kernel_(add_, std::move(kernel_name), problems_) {}

  std::unique_ptr<Stream> new_stream() override {
    std::unique_ptr<CudaStream> stream = device_.new_stream();
    problems_.emplace(stream->id(), std::make_unique<VectorAddProblem>(kElementsPerStream, fresh_seed_for(stream->id())));
    return stream;
  }
  Kernel& kernel() override { return kernel_; }
  BenchLock& bench_lock() override { return device_.bench_lock(); }
  void verify(Stream& stream) override {
    const std::size_t wrong = kernel_.problem_of(stream).mismatches(cuda_handle(stream));
    if (wrong != 0) {
      throw OutputMismatch("vector_add on stream " + std::to_string(stream.id()) + ": " + std::to_string(wrong) +
                           " of " + std::to_string(kElementsPerStream) + " outputs differ from a + b");
    }
  }

 private:
  std::uint64_t fresh_seed_for(int id) { return (std::uint64_t{std::random_device{}()} << 32) ^ static_cast<std::uint64_t>(id); }

  CudaDevice device_;
  VectorAddKernel add_;  // its own built-in problem is one element: the streams' problems are used
  std::unordered_map<int, std::unique_ptr<VectorAddProblem>> problems_;
  PerStreamVectorAdd kernel_;
};

}  // namespace

std::unique_ptr<CudaStressWorkload> CudaStressWorkload::create(std::string kernel_name) {
  return std::make_unique<Workload>(std::move(kernel_name));
}

Config CudaStressWorkload::fallback_config() { return Config({{"BLOCK", 16}, {"ITEMS", 1}}); }

ConfigSpace CudaStressWorkload::config_space(int count) {
  std::vector<Config> configs;
  for (int i = 0; i < count; ++i) {
    configs.emplace_back(std::vector<Config::Param>{{"BLOCK", 32 * (i % 32 + 1)}, {"ITEMS", i / 32 + 1}});
  }
  return ConfigSpace(std::move(configs));
}

}  // namespace safetune::cuda
