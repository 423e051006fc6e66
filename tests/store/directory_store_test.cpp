// The directory store on real files: publication once and whole, claims that exclude other open
// file descriptions and die with their process (SIGKILL), quarantine and withdrawal by rename, and
// entries validated against the fingerprint and the space (entry_codec.h).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include "impl/store/directory_store.h"
#include "impl/store/entry_codec.h"
#include "tests/store/child_process.h"
#include "impl/posix/temp_directory.h"

namespace safetune {
namespace {

namespace fs = std::filesystem;
using posix::TempDirectory;

const EntryId kId{.kernel = "add", .key = "n=4096", .device = "sim"};

std::size_t files_in(const fs::path& folder) {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(folder)) ++count;
  return count;
}

TEST(DirectoryStore, PublishesOnceAndWhole) {
  TempDirectory dir;
  DirectoryStore store(dir.path());
  EXPECT_EQ(store.read(kId), std::nullopt);
  auto claim = store.claim(kId, ResultsStore::ClaimMode::Try);
  ASSERT_TRUE(claim);
  EXPECT_TRUE(store.publish(*claim, kId, "first\n"));
  EXPECT_FALSE(store.publish(*claim, kId, "second\n"));  // already there: left as is
  EXPECT_EQ(store.read(kId), "first\n");
  EXPECT_EQ(store.where(kId), dir.path() + "/" + DirectoryStore::entry_name(kId) + ".json");
  for (const auto& entry : fs::directory_iterator(dir.path()))  // no temp file is left behind
    EXPECT_NE(entry.path().filename().string().rfind(".tmp.", 0), 0u) << entry.path();
}

TEST(DirectoryStore, EntryNamesAreSafeAndDistinct) {
  const EntryId slashes{.kernel = "a/b", .key = "../../etc/passwd\n", .device = "sim"};
  const std::string name = DirectoryStore::entry_name(slashes);
  EXPECT_EQ(name.find_first_not_of("0123456789abcdef"), std::string::npos) << name;
  EXPECT_NE(DirectoryStore::entry_name({.kernel = "ab", .key = "c", .device = "d"}),
            DirectoryStore::entry_name({.kernel = "a", .key = "bc", .device = "d"}));
}

TEST(DirectoryStore, AClaimExcludesEveryOtherClaimUntilItIsGivenBack) {
  TempDirectory dir;
  DirectoryStore store(dir.path());
  auto first = store.claim(kId, ResultsStore::ClaimMode::Try);
  ASSERT_TRUE(first);
  EXPECT_FALSE(store.claim(kId, ResultsStore::ClaimMode::Try));  // another open file description
  first.reset();
  EXPECT_TRUE(store.claim(kId, ResultsStore::ClaimMode::Try));
}

TEST(DirectoryStore, AClaimDiesWithItsProcessOnSigkill) {
  TempDirectory dir;
  DirectoryStore store(dir.path());
  auto* claimed = testing::shared_object<std::atomic<int>>();
  const pid_t owner = testing::spawn([&] {
    auto claim = store.claim(kId, ResultsStore::ClaimMode::Try);
    claimed->store(claim ? 1 : -1);
    for (;;) ::pause();  // holds the claim until killed
    return true;
  });
  while (claimed->load() == 0) ::usleep(1000);
  ASSERT_EQ(claimed->load(), 1);
  EXPECT_FALSE(store.claim(kId, ResultsStore::ClaimMode::Try));
  ::kill(owner, SIGKILL);
  EXPECT_EQ(testing::wait_for(owner), "signal 9");
  EXPECT_TRUE(store.claim(kId, ResultsStore::ClaimMode::Wait));  // at once: no time-out guess
}

TEST(DirectoryStore, QuarantineAndWithdrawalMoveTheEntryAside) {
  TempDirectory dir;
  DirectoryStore store(dir.path());
  auto claim = store.claim(kId, ResultsStore::ClaimMode::Try);
  ASSERT_TRUE(store.publish(*claim, kId, "x\n"));
  store.quarantine(*claim, kId, "not valid JSON");
  EXPECT_EQ(store.read(kId), std::nullopt);
  EXPECT_EQ(files_in(dir.path() + "/quarantine"), 2u);  // the entry and its reason
  ASSERT_TRUE(store.publish(*claim, kId, "y\n"));
  store.withdraw(kId);
  EXPECT_EQ(store.read(kId), std::nullopt);
  EXPECT_EQ(files_in(dir.path() + "/withdrawn"), 1u);
  store.withdraw(kId);  // nothing to withdraw: no error
}

TEST(DirectoryStore, APathThatIsNotADirectoryIsAStoreError) {
  TempDirectory dir;
  std::ofstream(dir.path() + "/file") << "x";
  EXPECT_THROW(DirectoryStore(dir.path() + "/file"), StoreError);
  try {
    DirectoryStore bad(dir.path() + "/file/below");
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find(dir.path() + "/file/below"), std::string::npos) << error.what();
  }
}

// --- entries (entry_codec.h) ---

const ConfigSpace kSpace = ConfigSpace::parse("B=1;B=2");
const DeviceIdentity kDevice{.name = "sim", .compute_capability = "0.0", .driver = "1", .toolkit = "1"};

StoredEntry entry_with(std::string winner) {
  return {.key = "k", .fingerprint = fingerprint_of("add", kSpace, kDevice), .winner = std::move(winner),
          .times = {{.config = "B=1", .time_ns = 5}, {.config = "B=2", .time_ns = 3}}};
}

std::string rejection(const std::string& text, const Fingerprint& expected = fingerprint_of("add", kSpace, kDevice)) {
  auto decoded = decode_entry(text, "k", expected, kSpace);
  if (auto* rejected = std::get_if<EntryRejected>(&decoded)) return rejected->reason;
  return "";
}

TEST(StoreEntry, RoundTripsAndNamesWhatMakesItValid) {
  const std::string text = encode_entry(entry_with("B=2"));
  auto decoded = decode_entry(text, "k", fingerprint_of("add", kSpace, kDevice), kSpace);
  ASSERT_TRUE(std::holds_alternative<StoredEntry>(decoded)) << std::get<EntryRejected>(decoded).reason;
  EXPECT_EQ(std::get<StoredEntry>(decoded).winner, "B=2");
  EXPECT_NE(text.find("\"schema\":1"), std::string::npos) << text;
}

TEST(StoreEntry, EveryKindOfDamageIsAMissWithItsReason) {
  const std::string good = encode_entry(entry_with("B=2"));
  EXPECT_NE(rejection(good.substr(0, good.size() / 2)).find("truncated"), std::string::npos);
  EXPECT_NE(rejection("{\"schema\":1,\n").find("not valid JSON"), std::string::npos);
  EXPECT_NE(rejection("{not json}\n").find("not valid JSON"), std::string::npos);
  EXPECT_NE(rejection("[1,2]\n").find("schema is missing"), std::string::npos);
  std::string schema2 = good;
  schema2.replace(schema2.find("\"schema\":1"), 10, "\"schema\":2");
  EXPECT_NE(rejection(schema2).find("schema is 2, not 1"), std::string::npos);
  EXPECT_NE(rejection(encode_entry(entry_with("B=9"))).find("its winner B=9 is not in the config space"), std::string::npos);
  EXPECT_NE(rejection(encode_entry(entry_with("B"))).find("its winner is not a config"), std::string::npos);
  EXPECT_NE(rejection("{\"schema\":1}\n").find("not a safetune entry"), std::string::npos);
}

TEST(StoreEntry, AForeignFingerprintNamesTheFieldThatDiffers) {
  const std::string good = encode_entry(entry_with("B=2"));
  DeviceIdentity other = kDevice;
  other.driver = "2";
  EXPECT_NE(rejection(good, fingerprint_of("add", kSpace, other)).find("foreign fingerprint: driver is '1', not this autotuner's '2'"),
            std::string::npos);
  EXPECT_NE(rejection(good, fingerprint_of("add", ConfigSpace::parse("B=2;B=1"), kDevice)).find("config space hash"),
            std::string::npos);  // the same configs in another order are another space
  EXPECT_NE(rejection(good, fingerprint_of("mul", kSpace, kDevice)).find("kernel is 'add'"), std::string::npos);
}

}  // namespace
}  // namespace safetune
