#include "impl/sim/sim_device.h"

namespace safetune::sim {

SimDevice::SimDevice(SimDeviceOptions options) : options_(options) {
  if (options_.noise) validate(*options_.noise);
}

std::unique_ptr<SimStream> SimDevice::new_stream() {
  const int id = next_stream_id_.fetch_add(1, std::memory_order_relaxed);
  return std::make_unique<SimStream>(id, noise_for(id));
}

std::unique_ptr<ScheduleNoise> SimDevice::noise_for(int stream_id) const {
  if (!options_.noise) return std::make_unique<NoScheduleNoise>();
  return std::make_unique<RandomDelayNoise>(stream_noise_seed(options_.seed, stream_id),
                                            *options_.noise);
}

}  // namespace safetune::sim
