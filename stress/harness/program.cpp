#include "stress/harness/program.h"

#include "stress/harness/dice.h"

#include <sstream>
#include <stdexcept>

namespace safetune::stress {
namespace {

// The share of nested calls made from inside the benchmark, under the bench lock.
constexpr double kNestedInBenchmark = 0.5;

HookAction pick_hook(Dice& dice, const ProgramMix& mix, bool can_nest) {
  if (dice.chance(mix.reenter)) return HookAction::Reenter;
  if (can_nest && dice.chance(mix.nested)) return HookAction::Nested;
  if (dice.chance(mix.throwing_hook)) return HookAction::Throw;
  if (dice.chance(mix.failing_attempt)) return HookAction::FailAll;
  return HookAction::None;
}

ProgramStep make_step(Dice& dice, const ProgramShape& shape, const ProgramMix& mix) {
  ProgramStep step;
  step.key = dice.below(shape.keys);
  if (dice.chance(mix.invalidate)) {
    step.invalidate = true;
    return step;
  }
  const bool can_nest = shape.keys > 1;
  step.hook = pick_hook(dice, mix, can_nest);
  if (step.hook == HookAction::None || step.hook == HookAction::FailAll) return step;
  step.hook_config = dice.below(shape.configs);
  if (step.hook == HookAction::Nested) {  // any key but its own: key + 1 .. key + keys - 1, wrapped
    step.nested_key = (step.key + 1 + dice.below(shape.keys - 1)) % shape.keys;
    step.in_benchmark = dice.chance(kNestedInBenchmark);
  }
  return step;
}

ThreadProgram make_thread(std::uint64_t thread_seed, const ProgramShape& shape,
                          const ProgramMix& mix) {
  Dice dice(thread_seed);
  ThreadProgram program;
  program.steps.reserve(static_cast<std::size_t>(shape.calls));
  for (int i = 0; i < shape.calls; ++i) program.steps.push_back(make_step(dice, shape, mix));
  return program;
}

std::vector<int> make_faults(Dice& dice, const ProgramShape& shape, const ProgramMix& mix) {
  std::vector<int> failing;
  for (int config = 0; config < shape.configs; ++config) {
    if (dice.chance(mix.failing_config)) failing.push_back(config);
  }
  return failing;
}

const char* hook_name(HookAction hook) {
  switch (hook) {
    case HookAction::None: return "";
    case HookAction::Reenter: return "+reenter";
    case HookAction::Nested: return "+nested:";
    case HookAction::Throw: return "+throw";
    case HookAction::FailAll: return "+failall";
  }
  return "";
}

}  // namespace

Program generate_program(const ProgramShape& shape, const ProgramMix& mix, std::uint64_t seed,
                         std::uint64_t round) {
  Program program;
  for (int thread = 0; thread < shape.threads; ++thread) {
    program.threads.push_back(make_thread(draw_seed(seed, round, 1 + static_cast<std::uint64_t>(thread)), shape, mix));
  }
  Dice device_dice(draw_seed(seed, round, 0));
  program.device_seed = device_dice.next();
  program.failing_configs = make_faults(device_dice, shape, mix);
  program.bench_lock = device_dice.chance(mix.bench_lock);
  program.time_levels = mix.time_levels;
  program.sync_noise = mix.sync_noise;
  program.recorder_delay = mix.recorder_delay;
  return program;
}

std::string describe(const Program& program) {
  std::ostringstream out;
  for (std::size_t thread = 0; thread < program.threads.size(); ++thread) {
    const ThreadProgram& thread_program = program.threads[thread];
    out << "thread " << thread << ":";
    for (const ProgramStep& step : thread_program.steps) {
      out << ' ' << (step.invalidate ? "inv:" : "") << key_name(step.key) << hook_name(step.hook);
      if (step.hook == HookAction::Nested)
        out << key_name(step.nested_key) << (step.in_benchmark ? "-in-bench" : "");
      if (step.hook != HookAction::None && step.hook != HookAction::FailAll) out << '@' << step.hook_config;
    }
    out << '\n';
  }
  out << "device seed " << program.device_seed << ", failing configs:";
  for (int config : program.failing_configs) out << ' ' << config;
  out << ", bench lock " << (program.bench_lock ? "on" : "off") << ", time levels " << program.time_levels
      << ", sync noise " << (program.sync_noise ? "on" : "off") << ", recorder delay "
      << program.recorder_delay << '\n';
  return out.str();
}

ProgramMix ProgramMix::full() {
  return ProgramMix{.invalidate = 0.15,
                    .reenter = 0.05,
                    .nested = 0.4,
                    .throwing_hook = 0.05,
                    .failing_attempt = 0.2,
                    .failing_config = 0.1,
                    .bench_lock = 0.5,
                    .time_levels = 4,
                    .sync_noise = true,
                    .recorder_delay = 0.1};
}

const std::vector<std::string>& mix_names() {
  static const std::vector<std::string> names = {"plain", "full", "reentry", "nested", "faults"};
  return names;
}

ProgramMix mix_named(const std::string& name) {
  if (name == "plain") return ProgramMix::plain();
  if (name == "full") return ProgramMix::full();
  ProgramMix mix;
  if (name == "reentry") mix.reenter = 0.5, mix.invalidate = 0.05;
  else if (name == "nested") mix.nested = 0.5, mix.invalidate = 0.05;
  else if (name == "faults") mix.failing_attempt = 0.7, mix.invalidate = 0.05;
  else throw std::invalid_argument("unknown program mix '" + name + "'");
  return mix;
}

std::string key_name(int key) { return "k" + std::to_string(key); }

}  // namespace safetune::stress
