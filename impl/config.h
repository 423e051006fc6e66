// Configs and config spaces.
//
// A config is a set of named integer parameters, e.g. BLOCK=256,WARPS=4. Its canonical string
// (names sorted in byte order, `name=value` joined by `,`) is its identity: two configs are the
// same when their canonical strings are equal. This is the form traces use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace safetune {

// Bad config text or a bad config space; the message names what was wrong and where.
struct ConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class Config {
 public:
  using Param = std::pair<std::string, std::int64_t>;

  Config() = default;
  // Throws ConfigError on an empty or malformed name, or a repeated name.
  explicit Config(std::vector<Param> params);
  // Parses "BLOCK=256,WARPS=4" (any order; spaces are not allowed). Throws ConfigError.
  static Config parse(std::string_view text);

  const std::vector<Param>& params() const { return params_; }  // sorted by name
  std::optional<std::int64_t> get(std::string_view name) const;
  const std::string& str() const { return canonical_; }

  bool operator==(const Config& other) const { return canonical_ == other.canonical_; }

 private:
  std::vector<Param> params_;
  std::string canonical_;
};

// An ordered list of distinct configs. Benchmarks run in this order, and a tie goes to the
// config benchmarked first.
class ConfigSpace {
 public:
  // Throws ConfigError when `configs` is empty or holds the same config twice (naming both).
  explicit ConfigSpace(std::vector<Config> configs);
  // Parses configs separated by ';', e.g. "BLOCK=64;BLOCK=128". Throws ConfigError naming the
  // position of the bad entry.
  static ConfigSpace parse(std::string_view text);

  std::size_t size() const { return configs_.size(); }
  const Config& operator[](std::size_t i) const { return configs_[i]; }
  const std::vector<Config>& configs() const { return configs_; }
  std::optional<std::size_t> index_of(const Config& config) const;
  std::vector<std::string> strings() const;  // canonical strings, in order

 private:
  std::vector<Config> configs_;
};

}  // namespace safetune
