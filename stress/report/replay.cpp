#include "stress/report/replay.h"

#include <sstream>

namespace safetune::stress {

std::string replay_command(const StressOptions& options, std::optional<std::uint64_t> round) {
  std::ostringstream line;
  line << options.program << " stress --subject " << options.subject << " --device " << options.device
       << " --threads " << options.shape.threads << " --keys " << options.shape.keys
       << " --configs " << options.shape.configs << " --calls " << options.shape.calls
       << " --mix " << options.mix_name
       << " --wait " << options.wait_name << " --reentry " << options.reentry_name;
  if (options.bench_lock) line << " --bench-lock";
  if (options.processes > 1) line << " --processes " << options.processes;
  if (options.store) line << " --store " << *options.store;
  if (options.restart) line << " --restart";
  if (round) line << " --round " << *round;
  line << " --watchdog-seconds " << options.watchdog_seconds << " --seed " << options.seed;
  return line.str();
}

}  // namespace safetune::stress
