#include "stress/report/replay.h"

#include <array>
#include <charconv>
#include <sstream>

namespace safetune::stress {

namespace {

// The shortest digits-and-point text that reads back as the same number (the flags take no
// exponent), so that the line replays the run's very rates and limits.
std::string exact(double value) {
  std::array<char, 400> text{};
  const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  return error == std::errc() ? std::string(text.data(), end) : std::to_string(value);
}

}  // namespace

std::string replay_command(const StressOptions& options, std::optional<std::uint64_t> round) {
  std::ostringstream line;
  line << options.program << " stress --subject " << options.subject << " --device " << options.device
       << " --threads " << options.shape.threads << " --keys " << options.shape.keys
       << " --configs " << options.shape.configs << " --calls " << options.shape.calls
       << " --mix " << options.mix_name
       << " --wait " << options.wait_name << " --reentry " << options.reentry_name;
  if (options.bench_lock) line << " --bench-lock";
  if (options.processes > 1) line << " --processes " << options.processes;
  if (options.hosts > 1) line << " --hosts " << options.hosts;
  if (options.store) line << " --store " << *options.store;
  if (options.store_down) line << " --store-down";
  if (options.store_failure_fails) line << " --store-failure fail";
  if (options.restart_store) line << " --restart-store";
  if (options.own_redis) line << " --own-redis";
  if (options.restart) line << " --restart";
  if (options.damage_store) line << " --damage-store";
  if (options.kill_owners > 0) line << " --kill-owners " << exact(options.kill_owners);
  if (options.pause_owners > 0) line << " --pause-owners " << exact(options.pause_owners);
  if (options.stall_owners > 0) line << " --stall-owners " << exact(options.stall_owners);
  if (round) line << " --round " << *round;
  line << " --watchdog-seconds " << exact(options.watchdog_seconds) << " --seed " << options.seed;
  return line.str();
}

}  // namespace safetune::stress
