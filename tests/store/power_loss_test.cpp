// The simulated power loss of --restart (stress/harness/power_loss.h) over real files, through a
// real DurabilityJournal: a step is undone unless the journal shows it made durable, and the
// directory store's own publication survives it whole.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "impl/posix/temp_directory.h"
#include "impl/store/directory_store.h"
#include "stress/harness/power_loss.h"

namespace safetune::stress {
namespace {

namespace fs = std::filesystem;

class PowerLossTest : public ::testing::Test {
 protected:
  posix::TempDirectory folder{"safetune-power-loss"};
  const std::string journal_file = folder.path() + "/journal.jsonl";
  const std::string dir = folder.path() + "/store";
  std::optional<DurabilityJournal> journal;

  void SetUp() override {
    fs::create_directories(dir);
    journal.emplace(journal_file);
  }

  // Writes `text` to `path` (fsynced when `sync`), through the journal.
  void write_file(const std::string& path, const std::string& text, bool sync) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    if (sync) {
      ASSERT_EQ(journal->fsync_file(fd, path), 0);
    }
    ::close(fd);
  }
  void sync_directory() {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_EQ(journal->fsync_directory(fd, dir), 0);
    ::close(fd);
  }
  static std::string text_of(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(PowerLossTest, ADurablePublicationSurvivesWhole) {
  write_file(dir + "/.tmp", "entry\n", true);
  ASSERT_EQ(journal->link(dir + "/.tmp", dir + "/a.json"), 0);
  ::unlink((dir + "/.tmp").c_str());
  sync_directory();
  const PowerLoss loss = lose_power(journal_file);
  EXPECT_EQ(loss.lost_names + loss.torn_files, 0);
  EXPECT_EQ(text_of(dir + "/a.json"), "entry\n");
}

TEST_F(PowerLossTest, ANameWhoseDirectoryWasNotSyncedIsLost) {
  write_file(dir + "/.tmp", "entry\n", true);
  ASSERT_EQ(journal->link(dir + "/.tmp", dir + "/a.json"), 0);
  EXPECT_EQ(lose_power(journal_file).lost_names, 1);
  EXPECT_FALSE(fs::exists(dir + "/a.json"));
}

TEST_F(PowerLossTest, ADurableNameWhoseDataWasNotSyncedIsTorn) {
  write_file(dir + "/.tmp", "entry\n", false);
  ASSERT_EQ(journal->link(dir + "/.tmp", dir + "/a.json"), 0);
  sync_directory();
  EXPECT_EQ(lose_power(journal_file).torn_files, 1);
  EXPECT_EQ(fs::file_size(dir + "/a.json"), 0u);
}

TEST_F(PowerLossTest, ARenameNotMadeDurableIsUndoneAndKeepsItsData) {
  write_file(dir + "/.tmp", "entry\n", true);
  ASSERT_EQ(journal->link(dir + "/.tmp", dir + "/a.json"), 0);
  sync_directory();
  ASSERT_EQ(journal->rename(dir + "/a.json", dir + "/aside.json"), 0);
  EXPECT_EQ(lose_power(journal_file).lost_names, 1);
  EXPECT_FALSE(fs::exists(dir + "/aside.json"));
  EXPECT_EQ(text_of(dir + "/a.json"), "entry\n");
}

TEST_F(PowerLossTest, TheDirectoryStoresOwnStepsAreAllDurable) {
  DirectoryStore store(dir, journal_file);
  const EntryId id{.kernel = "k", .key = "m=1", .device = "sim"};
  const auto claim = store.claim(id, ResultsStore::ClaimMode::Try);
  ASSERT_TRUE(store.publish(*claim, id, "{\"entry\":1}\n"));
  const EntryId other{.kernel = "k", .key = "m=2", .device = "sim"};
  ASSERT_TRUE(store.publish(*claim, other, "{\"entry\":2}\n"));
  store.withdraw(other);
  const PowerLoss loss = lose_power(journal_file);
  EXPECT_EQ(loss.lost_names + loss.torn_files, 0);
  EXPECT_EQ(store.read(id), "{\"entry\":1}\n");
  EXPECT_FALSE(store.read(other).has_value());
}

// A step that failed made nothing durable, so the journal must not note it: a link onto a taken
// name, a rename of a missing file, an fsync of a closed descriptor.
TEST_F(PowerLossTest, AFailedStepIsNotJournaled) {
  write_file(dir + "/a.json", "taken\n", true);
  const auto journaled = fs::file_size(journal_file);
  write_file(dir + "/.tmp", "entry\n", false);
  EXPECT_EQ(journal->link(dir + "/.tmp", dir + "/a.json"), EEXIST);
  EXPECT_EQ(journal->rename(dir + "/missing", dir + "/b.json"), ENOENT);
  EXPECT_EQ(journal->fsync_file(-1, dir + "/closed"), EBADF);
  EXPECT_EQ(journal->fsync_directory(-1, dir), EBADF);
  EXPECT_EQ(fs::file_size(journal_file), journaled);
  EXPECT_EQ(text_of(dir + "/a.json"), "taken\n");
}

TEST_F(PowerLossTest, NoJournalIsAMachineThatWroteNothing) {
  const PowerLoss loss = lose_power(folder.path() + "/none.jsonl");
  EXPECT_EQ(loss.lost_names + loss.torn_files, 0);
}

TEST_F(PowerLossTest, ABadJournalLineIsAnErrorNamingIt) {
  for (const char* bad : {"not json", R"({"step":"moved","path":"x"})", R"({"step":"linked","path":"x"})",
                          R"({"step":"synced","path":1})"}) {
    std::ofstream(journal_file) << "{\"step\":\"synced\",\"path\":\"x\"}\n" << bad << "\n";
    try {
      lose_power(journal_file);
      ADD_FAILURE() << "a bad line was read: " << bad;
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find("line 2"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace safetune::stress
