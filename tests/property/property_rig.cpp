#include "property_rig.h"

#include <sstream>

namespace safetune::property {
namespace {

ConfigSpace space_of(const Scenario& scenario) {
  std::vector<Config> configs;
  for (std::size_t i = 0; i < scenario.faults.size(); ++i) {
    configs.push_back(Config({{"BLOCK", std::int64_t{64} << i}}));
  }
  return ConfigSpace(std::move(configs));
}

std::vector<Config> configs_with(const Scenario& scenario, const ConfigSpace& space, Fault fault) {
  std::vector<Config> chosen;
  for (std::size_t i = 0; i < scenario.faults.size(); ++i) {
    if (scenario.faults[i] == fault) chosen.push_back(space[i]);
  }
  return chosen;
}

model::Header header_of(const Scenario& scenario, const ConfigSpace& space) {
  model::Header header;
  header.present = true;
  header.white_box = true;
  header.policy.wait = scenario.wait;
  header.policy.reentry = scenario.reentry;
  header.policy.fallback = kFallback;
  header.configs[kKernel] = space.strings();
  return header;
}

const char* fault_name(Fault fault) {
  switch (fault) {
    case Fault::None: return "none";
    case Fault::LaunchFails: return "launch_fails";
    case Fault::BenchmarkFails: return "benchmark_fails";
    case Fault::HookThrows: return "hook_throws";
  }
  return "?";
}

}  // namespace

void showValue(const Scenario& scenario, std::ostream& out) {
  out << "{seed=" << scenario.seed << " wait="
      << (scenario.wait == WaitPolicy::Block ? "block" : "fallback")
      << " reentry=" << (scenario.reentry == ReentryPolicy::Error ? "error" : "fallback")
      << " faults=[";
  for (Fault fault : scenario.faults) out << fault_name(fault) << ' ';
  out << "]}";
}

void showValue(const Outcome& outcome, std::ostream& out) {
  out << outcome.key << " -> " << (outcome.config ? *outcome.config : outcome.error_kind);
}

std::string key_name(int key) { return "k" + std::to_string(key); }

Rig::Rig(const Scenario& scenario, std::optional<sim::RandomDelayOptions> noise)
    : device({.seed = scenario.seed, .noise = noise}),
      space(space_of(scenario)),
      kernel(device, {.name = kKernel,
                      .fail_launch = configs_with(scenario, space, Fault::LaunchFails),
                      .fail_benchmark = configs_with(scenario, space, Fault::BenchmarkFails)}),
      recorder(header_of(scenario, space)),
      tuner(kernel, space,
            {.wait = scenario.wait,
             .reentry = scenario.reentry,
             .fallback = Config::parse(kFallback),
             .pre_bench_hook = sim::failing_pre_bench_hook(
                 configs_with(scenario, space, Fault::HookThrows),
                 [this](const Invocation& inv, const Config& config) {
                   if (hook_action) hook_action(inv, config);
                 }),
             .observer = &recorder}),
      scenario_(scenario) {}

Outcome Rig::recorded_call(const std::string& key, Stream& stream) {
  recorder.call_begin(kKernel, key, stream.id());
  Outcome outcome{key, std::nullopt, {}};
  std::string error;
  try {
    outcome.config = tuner.call(Invocation{key, stream}).str();
  } catch (const ReentrantTuning& e) {
    outcome.error_kind = "reentrant";
    error = e.what();
  } catch (const TuningFailed& e) {
    outcome.error_kind = "tuning_failed";
    error = e.what();
  } catch (const LaunchError& e) {
    outcome.error_kind = "launch_error";
    error = e.what();
  } catch (const std::exception& e) {
    outcome.error_kind = "other";
    error = e.what();
  }
  recorder.call_end(kKernel, key,
                    outcome.config ? CallOutcome::returned(*outcome.config)
                                   : CallOutcome::raised(error),
                    stream.id());
  return outcome;
}

std::optional<std::string> Rig::expected_winner(const std::string& key) const {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (scenario_.faults[i] != Fault::None) continue;
    // strict: a tie keeps the config benchmarked first
    if (!best || kernel.expected_time_ns(key, space[i]) < kernel.expected_time_ns(key, space[*best])) {
      best = i;
    }
  }
  if (!best) return std::nullopt;
  return space[*best].str();
}

std::string Rig::violations() const {
  const model::CheckResult result = model::check(recorder.snapshot());
  std::ostringstream out;
  for (const auto& violation : result.violations) {
    out << model::rule_id(violation.rule) << ": " << violation.message << " (seqs";
    for (auto seq : violation.seqs) out << ' ' << seq;
    out << ")\n";
  }
  return out.str();
}

}  // namespace safetune::property
