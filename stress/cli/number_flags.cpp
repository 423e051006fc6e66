#include "stress/cli/number_flags.h"

#include <charconv>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace safetune::stress {

namespace {

std::string whole_range(std::uint64_t min, std::uint64_t max) {
  return "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
}

std::string seconds_range(double max) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(max == std::floor(max) ? 0 : 3) << max;
  return "a number of seconds (digits and a point) greater than 0 and at most " + text.str();
}

template <typename Setter>
CLI::Option* integer_option(CLI::App& app, const std::string& name, std::uint64_t min, std::uint64_t max,
                            const std::string& description, Setter set) {
  return app
      .add_option_function<std::string>(
          name,
          [name, min, max, set](const std::string& text) {
            const auto value = parse_whole_number(text, min, max);
            if (!value) throw CLI::ValidationError(name, "'" + text + "' is not " + whole_range(min, max));
            set(*value);
          },
          description)
      ->type_name("N");
}

// A positive number up to `max`; `range` says which in words, `type` names it in the help.
template <typename Setter>
CLI::Option* positive_option(CLI::App& app, const std::string& name, double max, std::string range,
                             const std::string& type, const std::string& description, Setter set) {
  return app
      .add_option_function<std::string>(
          name,
          [name, max, range, set](const std::string& text) {
            const auto value = parse_seconds(text, max);
            if (!value) throw CLI::ValidationError(name, "'" + text + "' is not " + range);
            set(*value);
          },
          description)
      ->type_name(type);
}

template <typename Setter>
CLI::Option* seconds_option(CLI::App& app, const std::string& name, double max, const std::string& description,
                            Setter set) {
  return positive_option(app, name, max, seconds_range(max), "S", description, set);
}

}  // namespace

std::optional<std::uint64_t> parse_whole_number(const std::string& text, std::uint64_t min, std::uint64_t max) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) return std::nullopt;
  return value;
}

std::optional<double> parse_seconds(const std::string& text, double max) {
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value <= 0 || value > max)
    return std::nullopt;
  return value;
}

template <typename Integer>
CLI::Option* add_integer_flag(CLI::App& app, const std::string& name, Integer& target, std::uint64_t min,
                              std::uint64_t max, const std::string& description) {
  return integer_option(app, name, min, max, description,
                        [&target](std::uint64_t value) { target = static_cast<Integer>(value); });
}

template <typename Integer>
CLI::Option* add_integer_flag(CLI::App& app, const std::string& name, std::optional<Integer>& target,
                              std::uint64_t min, std::uint64_t max, const std::string& description) {
  return integer_option(app, name, min, max, description,
                        [&target](std::uint64_t value) { target = static_cast<Integer>(value); });
}

CLI::Option* add_seconds_flag(CLI::App& app, const std::string& name, double& target, double max,
                              const std::string& description) {
  return seconds_option(app, name, max, description, [&target](double value) { target = value; });
}

CLI::Option* add_seconds_flag(CLI::App& app, const std::string& name, std::optional<double>& target, double max,
                              const std::string& description) {
  return seconds_option(app, name, max, description, [&target](double value) { target = value; });
}

template CLI::Option* add_integer_flag<int>(CLI::App&, const std::string&, int&, std::uint64_t, std::uint64_t,
                                            const std::string&);
template CLI::Option* add_integer_flag<std::uint64_t>(CLI::App&, const std::string&, std::uint64_t&, std::uint64_t,
                                                      std::uint64_t, const std::string&);
template CLI::Option* add_integer_flag<std::uint64_t>(CLI::App&, const std::string&, std::optional<std::uint64_t>&,
                                                      std::uint64_t, std::uint64_t, const std::string&);

CLI::Option* add_rate_flag(CLI::App& app, const std::string& name, double& target, const std::string& description) {
  return positive_option(app, name, 1.0, "a rate (digits and a point) greater than 0 and at most 1", "RATE", description,
                         [&target](double value) { target = value; });
}

}  // namespace safetune::stress
