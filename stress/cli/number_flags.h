// Numeric flags of the command line, parsed strictly: an integer flag takes decimal digits only
// (no sign, no exponent, no wrap-around: `--seed -1` is an error, not 2^64-1), a seconds flag a
// finite number in its range (`--seconds nan` is an error). A bad value is a usage error that
// names the flag and says the range in words, e.g.
//   --seed: '-1' is not a whole number from 0 to 18446744073709551615
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace safetune::stress {

template <typename Integer>
CLI::Option* add_integer_flag(CLI::App& app, const std::string& name, Integer& target, std::uint64_t min,
                              std::uint64_t max, const std::string& description);
template <typename Integer>
CLI::Option* add_integer_flag(CLI::App& app, const std::string& name, std::optional<Integer>& target,
                              std::uint64_t min, std::uint64_t max, const std::string& description);
// Seconds: greater than 0 and at most `max`.
CLI::Option* add_seconds_flag(CLI::App& app, const std::string& name, double& target, double max,
                              const std::string& description);
CLI::Option* add_seconds_flag(CLI::App& app, const std::string& name, std::optional<double>& target,
                              double max, const std::string& description);

// A rate: greater than 0 and at most 1 (a probability of something happening).
CLI::Option* add_rate_flag(CLI::App& app, const std::string& name, double& target, const std::string& description);

// The checks alone, for tests: the value, or the reason it is refused.
std::optional<std::uint64_t> parse_whole_number(const std::string& text, std::uint64_t min, std::uint64_t max);
std::optional<double> parse_seconds(const std::string& text, double max);

}  // namespace safetune::stress
