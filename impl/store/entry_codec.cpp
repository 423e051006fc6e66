#include "impl/store/entry_codec.h"

#include "impl/store/hex_hash.h"

#include <nlohmann/json.hpp>

namespace safetune {
namespace {

using Json = nlohmann::json;

Json device_json(const DeviceIdentity& device) {
  return {{"name", device.name},
          {"compute_capability", device.compute_capability},
          {"driver", device.driver},
          {"toolkit", device.toolkit}};
}

Json fingerprint_json(const Fingerprint& fingerprint) {
  return {{"kernel", fingerprint.kernel},
          {"space_hash", fingerprint.space_hash},
          {"device", device_json(fingerprint.device)},
          {"safetune", fingerprint.safetune}};
}

Fingerprint fingerprint_from(const Json& json) {
  const Json& device = json.at("device");
  return {.kernel = json.at("kernel").get<std::string>(),
          .space_hash = json.at("space_hash").get<std::string>(),
          .device = {.name = device.at("name").get<std::string>(),
                     .compute_capability = device.at("compute_capability").get<std::string>(),
                     .driver = device.at("driver").get<std::string>(),
                     .toolkit = device.at("toolkit").get<std::string>()},
          .safetune = json.at("safetune").get<std::string>()};
}

// The first field in which `found` differs from `expected`, named for the warning.
std::string difference(const Fingerprint& found, const Fingerprint& expected) {
  auto differs = [](const char* what, const std::string& a, const std::string& b) {
    return std::string(what) + " is '" + a + "', not this autotuner's '" + b + "'";
  };
  if (found.kernel != expected.kernel) return differs("kernel", found.kernel, expected.kernel);
  if (found.space_hash != expected.space_hash) return differs("config space hash", found.space_hash, expected.space_hash);
  if (found.device.name != expected.device.name) return differs("device", found.device.name, expected.device.name);
  if (found.device.compute_capability != expected.device.compute_capability)
    return differs("compute capability", found.device.compute_capability, expected.device.compute_capability);
  if (found.device.driver != expected.device.driver) return differs("driver", found.device.driver, expected.device.driver);
  if (found.device.toolkit != expected.device.toolkit) return differs("toolkit", found.device.toolkit, expected.device.toolkit);
  return differs("safetune version", found.safetune, expected.safetune);
}

StoredEntry entry_from(const Json& json) {
  StoredEntry entry{.key = json.at("key").get<std::string>(),
                    .fingerprint = fingerprint_from(json.at("fingerprint")),
                    .winner = json.at("winner").get<std::string>(),
                    .times = {}};
  for (const Json& time : json.at("times"))
    entry.times.push_back({.config = time.at("config").get<std::string>(), .time_ns = time.at("time_ns").get<double>()});
  return entry;
}

}  // namespace

std::string space_hash(const ConfigSpace& space) {
  std::uint64_t hash = store_hash::kFnvOffset;
  for (const std::string& config : space.strings()) hash = store_hash::fnv1a(hash, config + "\n");
  return store_hash::hex64(hash);
}

Fingerprint fingerprint_of(const std::string& kernel, const ConfigSpace& space, const DeviceIdentity& device) {
  return {.kernel = kernel, .space_hash = space_hash(space), .device = device, .safetune = SAFETUNE_VERSION};
}

std::string encode_entry(const StoredEntry& entry) {
  Json times = Json::array();
  for (const BenchTime& time : entry.times) times.push_back({{"config", time.config}, {"time_ns", time.time_ns}});
  const Json json{{"schema", kEntrySchema},
                  {"key", entry.key},
                  {"fingerprint", fingerprint_json(entry.fingerprint)},
                  {"winner", entry.winner},
                  {"times", std::move(times)}};
  return json.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::variant<StoredEntry, EntryRejected> decode_entry(const std::string& text, const std::string& key,
                                                      const Fingerprint& expected, const ConfigSpace& space) {
  if (text.empty() || text.back() != '\n') return EntryRejected{"truncated: " + std::to_string(text.size()) + " bytes, with no final newline"};
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::exception& e) {
    return EntryRejected{std::string("not valid JSON: ") + e.what()};
  }
  try {
    if (!json.is_object() || !json.contains("schema") || json.at("schema") != kEntrySchema)
      return EntryRejected{"schema is " + (json.is_object() && json.contains("schema") ? json.at("schema").dump() : "missing") +
                           ", not " + std::to_string(kEntrySchema)};
    StoredEntry entry = entry_from(json);
    if (entry.key != key) return EntryRejected{"it is the entry of key '" + entry.key + "', not '" + key + "'", entry.winner};
    if (entry.fingerprint != expected) return EntryRejected{"foreign fingerprint: " + difference(entry.fingerprint, expected), entry.winner};
    const Config winner = Config::parse(entry.winner);
    if (!space.index_of(winner)) return EntryRejected{"its winner " + entry.winner + " is not in the config space", entry.winner};
    return entry;
  } catch (const Json::exception& e) {
    return EntryRejected{std::string("not a safetune entry: ") + e.what()};
  } catch (const ConfigError& e) {
    return EntryRejected{std::string("its winner is not a config: ") + e.what()};
  }
}

}  // namespace safetune
