#include "stress/harness/recording_kernel.h"

#include <exception>

namespace safetune::stress {
namespace {

ObservedEvent event_for(model::EventKind kind, const Kernel& kernel, const Invocation& inv,
                        const Config& config) {
  ObservedEvent event{};
  event.kind = kind;
  event.kernel = kernel.name();
  event.key = inv.key;
  event.config = &config.str();
  event.stream = inv.stream.id();
  return event;
}

}  // namespace

void RecordingKernel::launch(const Invocation& inv, const Config& config) {
  try {
    inner_.launch(inv, config);
  } catch (...) {
    report_launch_failed(&observer_, inner_.name(), inv.key, config.str(), inv.stream.id());
    throw;
  }
  observer_.record(event_for(model::EventKind::Launch, inner_, inv, config));
}

double RecordingKernel::benchmark(const Invocation& inv, const Config& config) {
  ObservedEvent event = event_for(model::EventKind::Bench, inner_, inv, config);
  try {
    const double time_ns = inner_.benchmark(inv, config);
    event.time_ns = time_ns;
    observer_.record(event);
    return time_ns;
  } catch (const std::exception& failure) {
    const std::string error = failure.what();
    event.error = &error;
    observer_.record(event);
    throw;
  }
}

}  // namespace safetune::stress
