// RecordingKernel: makes a black-box subject observable.
//
// A user's autotuner reports nothing, but it must bench and launch through the Kernel it was
// given. This wrapper forwards every benchmark() and launch() to the real kernel and reports a
// `bench` (with time_ns, or the error) and a `launch` event to the Observer, on the calling
// thread, right after the real operation returns. A launch that throws is reported as a
// `launch_failed` with the exception's message: the call then ends with an error, and the trace
// says why (R14). Exceptions pass through unchanged.
#pragma once

#include <string>

#include "impl/kernel.h"
#include "impl/observer.h"

namespace safetune::stress {

class RecordingKernel final : public Kernel {
 public:
  RecordingKernel(Kernel& inner, Observer& observer) : inner_(inner), observer_(observer) {}

  const std::string& name() const override { return inner_.name(); }
  void launch(const Invocation& inv, const Config& config) override;
  double benchmark(const Invocation& inv, const Config& config) override;

 private:
  Kernel& inner_;
  Observer& observer_;
};

}  // namespace safetune::stress
