#include "event_timer.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace safetune::cuda {
namespace {

// One CUDA event, destroyed with its scope.
class Event {
 public:
  Event() { check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t stream) { check_cuda(cudaEventRecord(event_, stream), "cudaEventRecord"); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

double elapsed_ns(const Event& start, const Event& stop) {
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
  return static_cast<double>(ms) * 1e6;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

void validate(const BenchTiming& timing) {
  if (timing.warmup < 0 || timing.warmup > 1000) {
    throw std::invalid_argument("BenchTiming.warmup must be in [0, 1000], got " + std::to_string(timing.warmup));
  }
  if (timing.repetitions < 1 || timing.repetitions > 1000) {
    throw std::invalid_argument("BenchTiming.repetitions must be in [1, 1000], got " +
                                std::to_string(timing.repetitions));
  }
}

double time_median_ns(CudaDevice& device, cudaStream_t stream, const std::function<void()>& launch,
                      const BenchTiming& timing) {
  for (int i = 0; i < timing.warmup; ++i) launch();
  const auto reps = static_cast<std::size_t>(timing.repetitions);
  std::vector<Event> starts(reps);
  std::vector<Event> stops(reps);
  for (std::size_t i = 0; i < reps; ++i) {
    device.flush_l2(stream);
    starts[i].record(stream);
    launch();
    stops[i].record(stream);
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(benchmark)");
  std::vector<double> times;
  for (std::size_t i = 0; i < reps; ++i) times.push_back(elapsed_ns(starts[i], stops[i]));
  return median(std::move(times));
}

}  // namespace safetune::cuda
