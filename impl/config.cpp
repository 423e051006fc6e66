// Configs and config spaces (impl/config.h).
//
// Every constructor validates completely before it builds anything, so a ConfigError leaves no
// half-built value behind. Names follow the trace format's canonical-config rules: non-empty, and
// free of `,`, `=`, `;` and whitespace, so a canonical string always parses back to itself.
#include "impl/config.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace safetune {
namespace {

bool is_forbidden_name_char(char c) {
  return c == ',' || c == '=' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
         c == '\v' || c == '\f';
}

void check_name(const std::string& name) {
  if (name.empty()) throw ConfigError("config parameter has an empty name");
  if (std::any_of(name.begin(), name.end(), is_forbidden_name_char)) {
    throw ConfigError("config parameter name \"" + name +
                      "\" contains ',', '=', ';' or whitespace");
  }
}

std::string canonical_string(const std::vector<Config::Param>& sorted_params) {
  std::string text;
  for (const auto& [name, value] : sorted_params) {
    if (!text.empty()) text += ',';
    text += name + '=' + std::to_string(value);
  }
  return text;
}

std::int64_t parse_value(std::string_view pair, std::string_view value_text) {
  std::int64_t value = 0;
  const char* end = value_text.data() + value_text.size();
  auto [stop, error] = std::from_chars(value_text.data(), end, value);
  if (value_text.empty() || error != std::errc() || stop != end) {
    throw ConfigError("config pair \"" + std::string(pair) +
                      "\": value is not a 64-bit integer");
  }
  return value;
}

Config::Param parse_pair(std::string_view pair) {
  auto equals = pair.find('=');
  if (equals == std::string_view::npos) {
    throw ConfigError("config pair \"" + std::string(pair) + "\" has no '='");
  }
  return {std::string(pair.substr(0, equals)), parse_value(pair, pair.substr(equals + 1))};
}

// Splits on `separator`, keeping empty pieces so that "A=1,,B=2" is an error, not a shrug.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string_view::npos;
       at = text.find(separator, start)) {
    pieces.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

}  // namespace

Config::Config(std::vector<Param> params) {
  if (params.empty()) throw ConfigError("config has no parameters");
  std::sort(params.begin(), params.end(),
            [](const Param& a, const Param& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < params.size(); ++i) {
    check_name(params[i].first);
    if (i > 0 && params[i].first == params[i - 1].first) {
      throw ConfigError("config names parameter \"" + params[i].first + "\" twice");
    }
  }
  canonical_ = canonical_string(params);
  params_ = std::move(params);
}

Config Config::parse(std::string_view text) {
  if (text.empty()) throw ConfigError("config text is empty");
  std::vector<Param> params;
  for (std::string_view pair : split(text, ',')) params.push_back(parse_pair(pair));
  try {
    return Config(std::move(params));
  } catch (const ConfigError& error) {
    throw ConfigError("config \"" + std::string(text) + "\": " + error.what());
  }
}

std::optional<std::int64_t> Config::get(std::string_view name) const {
  auto it = std::lower_bound(params_.begin(), params_.end(), name,
                             [](const Param& p, std::string_view n) { return p.first < n; });
  if (it == params_.end() || it->first != name) return std::nullopt;
  return it->second;
}

ConfigSpace::ConfigSpace(std::vector<Config> configs) {
  if (configs.empty()) throw ConfigError("config space is empty");
  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (configs[i] == configs[j]) {
        throw ConfigError("config space holds \"" + configs[i].str() + "\" twice: entries " +
                          std::to_string(j + 1) + " and " + std::to_string(i + 1));
      }
    }
  }
  configs_ = std::move(configs);
}

ConfigSpace ConfigSpace::parse(std::string_view text) {
  std::vector<Config> configs;
  std::size_t position = 0;
  for (std::string_view entry : split(text, ';')) {
    ++position;
    try {
      configs.push_back(Config::parse(entry));
    } catch (const ConfigError& error) {
      throw ConfigError("config space entry " + std::to_string(position) + ": " + error.what());
    }
  }
  return ConfigSpace(std::move(configs));
}

std::optional<std::size_t> ConfigSpace::index_of(const Config& config) const {
  auto it = std::find(configs_.begin(), configs_.end(), config);
  if (it == configs_.end()) return std::nullopt;
  return static_cast<std::size_t>(it - configs_.begin());
}

std::vector<std::string> ConfigSpace::strings() const {
  std::vector<std::string> texts;
  texts.reserve(configs_.size());
  for (const Config& config : configs_) texts.push_back(config.str());
  return texts;
}

}  // namespace safetune
