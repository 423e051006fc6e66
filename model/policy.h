// The two policies of an autotuner, and the one place that names them. The trace format's header
// ("policy": {"wait": ..., "reentry": ...}), the command line (--wait, --reentry) and a
// subject's scenario all spell them with these names and read them with these parsers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace safetune::model {

// What a call does when another caller owns its key's attempt: wait for it, or launch the
// declared fallback config.
enum class WaitPolicy : std::uint8_t { Block, Fallback };
// What a call does on a key whose attempt its own thread owns: raise, or launch the fallback.
enum class ReentryPolicy : std::uint8_t { Error, Fallback };

inline constexpr std::array<std::string_view, 2> kWaitPolicyNames = {"block", "fallback"};
inline constexpr std::array<std::string_view, 2> kReentryPolicyNames = {"error", "fallback"};

constexpr std::string_view policy_name(WaitPolicy wait) { return kWaitPolicyNames[static_cast<int>(wait)]; }
constexpr std::string_view policy_name(ReentryPolicy reentry) {
  return kReentryPolicyNames[static_cast<int>(reentry)];
}

// The policy `name` spells, or nullopt for a name that is none of them.
constexpr std::optional<WaitPolicy> parse_wait_policy(std::string_view name) {
  if (name == policy_name(WaitPolicy::Block)) return WaitPolicy::Block;
  if (name == policy_name(WaitPolicy::Fallback)) return WaitPolicy::Fallback;
  return std::nullopt;
}
constexpr std::optional<ReentryPolicy> parse_reentry_policy(std::string_view name) {
  if (name == policy_name(ReentryPolicy::Error)) return ReentryPolicy::Error;
  if (name == policy_name(ReentryPolicy::Fallback)) return ReentryPolicy::Fallback;
  return std::nullopt;
}

// Whether these policies can launch the fallback config: then one must be declared (the
// autotuner's options, a trace's header, a stress run's fallback).
constexpr bool needs_fallback(WaitPolicy wait, ReentryPolicy reentry) {
  return wait == WaitPolicy::Fallback || reentry == ReentryPolicy::Fallback;
}

}  // namespace safetune::model
