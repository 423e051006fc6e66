// What a results-store entry holds, and when it is valid (DESIGN.md, "Across processes").
//
// An entry is one JSON object: the schema version, the fingerprint of what makes the result
// valid, the winner and the benchmark times of the attempt that chose it. On load, an entry is a
// hit only when it parses whole, has this schema, matches this autotuner's fingerprint exactly,
// and its winner is a config of the current space; anything else is a miss with its reason, and
// the entry is never launched.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "impl/config.h"

namespace safetune {

inline constexpr int kEntrySchema = 1;

// The device an autotuner runs on, as far as its results depend on it.
struct DeviceIdentity {
  std::string name;                // e.g. "NVIDIA H200", "sim"
  std::string compute_capability;  // e.g. "9.0"
  std::string driver;              // the driver's version
  std::string toolkit;             // the toolkit (runtime) version
  bool operator==(const DeviceIdentity&) const = default;
};

struct Fingerprint {
  std::string kernel;
  std::string space_hash;  // of the config space, in order (space_hash())
  DeviceIdentity device;
  std::string safetune;    // safetune's version
  bool operator==(const Fingerprint&) const = default;
};

// FNV-1a (64 bits, hex) of the canonical configs in order, one per line: stable across processes,
// builds and machines.
std::string space_hash(const ConfigSpace& space);
Fingerprint fingerprint_of(const std::string& kernel, const ConfigSpace& space, const DeviceIdentity& device);

struct BenchTime {
  std::string config;
  double time_ns = 0;
};

struct StoredEntry {
  std::string key;
  Fingerprint fingerprint;
  std::string winner;  // a canonical config
  std::vector<BenchTime> times;
};

std::string encode_entry(const StoredEntry& entry);

// Why an entry was rejected: a miss, never launched.
struct EntryRejected {
  std::string reason;
  std::string winner{};  // the entry's winner, when it could be read
};

// The winner of the entry, when `text` is a valid entry of `key` for `expected` and its winner is
// a config of `space`; otherwise the reason it is not.
std::variant<StoredEntry, EntryRejected> decode_entry(const std::string& text, const std::string& key,
                                                      const Fingerprint& expected, const ConfigSpace& space);

}  // namespace safetune
