// The entry format and file names that the C++ directory store shares with the Python one
// (stress/triton/safetune_triton/store/): both encode the entry of tests/store/interop/expected.json
// into the bytes of tests/store/interop/entry.json, decode those bytes as a valid entry, and name
// its file and hash its space alike. tests/triton/test_store_entry.py checks the Python side
// against the same two files, so a change on either side that the other does not make fails here
// or there.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <variant>

#include <nlohmann/json.hpp>

#include "impl/store/directory_store.h"
#include "impl/store/entry_codec.h"

namespace safetune {
namespace {

std::string file_text(const std::string& name) {
  std::ifstream in(std::string(SAFETUNE_INTEROP_DIR) + "/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Shared {
  nlohmann::json expected = nlohmann::json::parse(file_text("expected.json"));
  std::string entry_text = file_text("entry.json");

  DeviceIdentity device() const {
    const auto& d = expected.at("device");
    return {.name = d.at("name"), .compute_capability = d.at("compute_capability"), .driver = d.at("driver"),
            .toolkit = d.at("toolkit")};
  }
  ConfigSpace space() const {
    std::string joined;
    for (const auto& config : expected.at("space")) joined += (joined.empty() ? "" : ";") + config.get<std::string>();
    return ConfigSpace::parse(joined);
  }
  Fingerprint fingerprint() const { return fingerprint_of(expected.at("kernel"), space(), device()); }
  StoredEntry entry() const {
    StoredEntry entry{.key = expected.at("key"), .fingerprint = fingerprint(), .winner = expected.at("winner"), .times = {}};
    for (const auto& time : expected.at("times")) entry.times.push_back({.config = time.at(0), .time_ns = time.at(1)});
    return entry;
  }
};

TEST(StoreInterop, EncodesTheSharedEntryByteForByte) {
  const Shared shared;
  ASSERT_FALSE(shared.entry_text.empty()) << "no " << SAFETUNE_INTEROP_DIR << "/entry.json";
  EXPECT_EQ(encode_entry(shared.entry()), shared.entry_text);
}

TEST(StoreInterop, DecodesTheSharedEntryAsValid) {
  const Shared shared;
  auto decoded = decode_entry(shared.entry_text, shared.expected.at("key"), shared.fingerprint(), shared.space());
  ASSERT_TRUE(std::holds_alternative<StoredEntry>(decoded)) << std::get<EntryRejected>(decoded).reason;
  EXPECT_EQ(std::get<StoredEntry>(decoded).winner, shared.expected.at("winner"));
}

TEST(StoreInterop, NamesTheFileAndHashesTheSpaceAlike) {
  const Shared shared;
  EXPECT_EQ(space_hash(shared.space()), shared.expected.at("space_hash"));
  EXPECT_EQ(DirectoryStore::entry_name({.kernel = shared.expected.at("kernel"), .key = shared.expected.at("key"),
                                        .device = shared.expected.at("device").at("name")}),
            shared.expected.at("entry_name"));
}

}  // namespace
}  // namespace safetune
