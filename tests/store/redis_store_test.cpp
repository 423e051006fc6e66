// The Redis store (impl/store/redis/) on a real redis-server that each test starts: the lease and
// its fencing, waiters, a killed owner, a paused owner, a server that is down or stalled, and AOF
// across a server restart (label: redis).
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "impl/store/redis/redis_connection.h"
#include "impl/store/redis/redis_store.h"
#include "tests/store/child_process.h"
#include "tests/store/redis_server.h"

namespace safetune {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const EntryId kEntry{.kernel = "add", .key = "k", .device = "sim"};

RedisStoreOptions with_lease(std::chrono::milliseconds lease) {
  return RedisStoreOptions{.connect_timeout = 1000ms, .read_timeout = 1000ms, .lease = lease, .longest_poll = 20ms};
}

void wait_for_flag(const std::atomic<int>& flag) {
  const auto deadline = Clock::now() + 20s;
  while (flag.load() == 0 && Clock::now() < deadline) std::this_thread::sleep_for(1ms);
}

TEST(RedisAddress, ParsesEachFormAndNamesWhatIsWrong) {
  const RedisAddress tcp = RedisAddress::parse("redis://cache.local:7000/team-a");
  EXPECT_EQ(tcp.host, "cache.local");
  EXPECT_EQ(tcp.port, 7000);
  EXPECT_EQ(tcp.space, "team-a");
  EXPECT_EQ(RedisAddress::parse("redis://h").port, 6379);
  const RedisAddress local = RedisAddress::parse("unix:///run/redis.sock#ns1");
  EXPECT_EQ(local.unix_socket, "/run/redis.sock");
  EXPECT_EQ(local.space, "ns1");
  EXPECT_EQ(RedisAddress::parse(local.show()).unix_socket, local.unix_socket);
  for (const auto& [text, why] : std::initializer_list<std::pair<const char*, const char*>>{
           {"redis://h:0/x", "port"}, {"redis://h:99999", "port"}, {"redis://h:x", "port"}, {"redis://:1/x", "host"},
           {"redis://h/a b", "namespace"}, {"redis://h/", "namespace"}, {"unix://relative.sock", "absolute"},
           {"http://h", "neither"}}) {
    try {
      RedisAddress::parse(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << text << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  }
}

TEST(RedisStore, PublishesOnceAndASecondPublisherFindsTheEntryThere) {
  const testing::RedisServer server;
  RedisStore store(server.parsed());
  EXPECT_EQ(store.read(kEntry), std::nullopt);
  {
    const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Try);
    ASSERT_NE(claim, nullptr);
    EXPECT_TRUE(store.publish(*claim, kEntry, "first"));
  }
  const auto again = store.claim(kEntry, ResultsStore::ClaimMode::Try);
  ASSERT_NE(again, nullptr);
  EXPECT_FALSE(store.publish(*again, kEntry, "second"));
  EXPECT_EQ(store.read(kEntry), "first");
}

TEST(RedisStore, AClaimIsExclusiveUntilGivenBackAndAWaiterWakesThen) {
  const testing::RedisServer server;
  RedisStore store(server.parsed(), with_lease(30s));  // only a give-back frees it in this test
  RedisStore other(server.parsed(), with_lease(30s));
  auto held = store.claim(kEntry, ResultsStore::ClaimMode::Try);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(other.claim(kEntry, ResultsStore::ClaimMode::Try), nullptr);
  std::atomic<int> woke{0};
  std::thread waiter([&] {
    const auto claim = other.claim(kEntry, ResultsStore::ClaimMode::Wait);
    woke.store(claim != nullptr ? 1 : 2);
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(woke.load(), 0) << "the waiter did not wait";
  const auto given_back = Clock::now();
  held.reset();
  waiter.join();
  EXPECT_EQ(woke.load(), 1);
  EXPECT_LT(Clock::now() - given_back, 10s);
}

TEST(RedisStore, ALiveOwnersLeaseIsRenewedPastItsTimeToLive) {
  const testing::RedisServer server;
  RedisStore store(server.parsed(), with_lease(150ms));
  RedisStore other(server.parsed(), with_lease(150ms));
  const auto held = store.claim(kEntry, ResultsStore::ClaimMode::Try);
  ASSERT_NE(held, nullptr);
  std::this_thread::sleep_for(600ms);  // four leases: the heartbeat renewed it
  EXPECT_EQ(other.claim(kEntry, ResultsStore::ClaimMode::Try), nullptr);
  EXPECT_TRUE(store.publish(*held, kEntry, "mine"));
}

// A process whose liveness key ran out (paused past the lease) may have been dropped from the graph
// of waits, and its attempts with it: the graph then sees no cycle through them, and a wait that
// closes one is not refused. So a claim taken before the lapse is lost, renewed no more, and taken
// over within a lease. The key is deleted here, as the server expires it: the liveness key and a
// claim's lease are renewed out of phase, so a pause may outlast the one and not the other; the
// deletion makes that gap as wide as the test needs.
TEST(RedisStore, AClaimTakenBeforeItsProcesssLivenessLapsedIsLostAndTakenOver) {
  const testing::RedisServer server;
  RedisStore store(server.parsed(), with_lease(200ms));
  RedisStore other(server.parsed(), with_lease(200ms));
  const auto held = store.claim(kEntry, ResultsStore::ClaimMode::Try);
  ASSERT_NE(held, nullptr);
  store.waits()->attempt_began(kEntry, [] {});  // this process is live in the graph from now on
  std::this_thread::sleep_for(600ms);           // three leases, each renewed
  ASSERT_FALSE(held->lost()) << "a live process's claim was lost";
  RedisConnection connection(server.parsed(), RedisConnection::Timeouts{});
  const RedisReply live = connection.command({"KEYS", "safetune:waits:live:*"});
  ASSERT_EQ(live.items.size(), 1u);
  connection.command({"DEL", live.items.front().text});
  const auto deadline = Clock::now() + 2s;
  while (!held->lost() && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(held->lost()) << "a claim taken before its process's liveness lapsed is still held";
  EXPECT_FALSE(held->held_now());
  std::unique_ptr<StoreClaim> taken;  // once it ran out; a claim still renewed would block Wait for ever
  while (taken == nullptr && Clock::now() < deadline + 2s) {
    taken = other.claim(kEntry, ResultsStore::ClaimMode::Try);
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_NE(taken, nullptr) << "no other process could take the claim over";
  EXPECT_TRUE(other.publish(*taken, kEntry, "taken over"));
  EXPECT_THROW(store.publish(*held, kEntry, "stale"), LeaseLost);
  EXPECT_EQ(connection.command({"EXISTS", live.items.front().text}).integer, 1) << "the keeper set the key again";
  const auto later = store.claim(EntryId{.kernel = "add", .key = "k2", .device = "sim"}, ResultsStore::ClaimMode::Try);
  ASSERT_NE(later, nullptr);
  std::this_thread::sleep_for(600ms);
  EXPECT_FALSE(later->lost()) << "a claim taken after the lapse was lost with the older ones";
}

TEST(RedisStore, AKilledOwnersLeaseExpiresAndAWaiterTakesOver) {
  const testing::RedisServer server;
  auto* holds = testing::shared_object<std::atomic<int>>();
  const pid_t owner = testing::spawn([&] {
    RedisStore store(server.parsed(), with_lease(300ms));
    const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Try);
    holds->store(claim != nullptr ? 1 : 2);
    for (;;) std::this_thread::sleep_for(1s);
    return true;
  });
  wait_for_flag(*holds);
  ASSERT_EQ(holds->load(), 1);
  ::kill(owner, SIGKILL);
  EXPECT_EQ(testing::wait_for(owner), "signal 9");
  RedisStore store(server.parsed(), with_lease(300ms));
  const auto taken = store.claim(kEntry, ResultsStore::ClaimMode::Wait);
  ASSERT_NE(taken, nullptr);
  EXPECT_TRUE(store.publish(*taken, kEntry, "taken over"));
}

// The fencing case: an owner stopped (SIGSTOP) past its lease, whose lease another process took
// and published under, cannot publish once it runs again.
TEST(RedisStore, AnOwnerPausedPastItsLeaseIsFencedOff) {
  const testing::RedisServer server;
  struct Shared {
    std::atomic<int> holds{0};
    std::atomic<int> go{0};
  };
  auto* shared = testing::shared_object<Shared>();
  const pid_t owner = testing::spawn([&] {
    RedisStore store(server.parsed(), with_lease(200ms));
    const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Try);
    shared->holds.store(claim != nullptr ? 1 : 2);
    wait_for_flag(shared->go);
    try {
      store.publish(*claim, kEntry, "stale");
      return false;
    } catch (const LeaseLost&) {
      return true;
    }
  });
  wait_for_flag(shared->holds);
  ASSERT_EQ(shared->holds.load(), 1);
  ::kill(owner, SIGSTOP);
  RedisStore store(server.parsed(), with_lease(200ms));
  {
    const auto taken = store.claim(kEntry, ResultsStore::ClaimMode::Wait);  // once the lease expired
    ASSERT_NE(taken, nullptr);
    EXPECT_TRUE(store.publish(*taken, kEntry, "fresh"));
  }
  shared->go.store(1);
  ::kill(owner, SIGCONT);
  EXPECT_EQ(testing::wait_for(owner), "exit 0") << "the paused owner published, or failed otherwise";
  EXPECT_EQ(store.read(kEntry), "fresh");
}

TEST(RedisStore, AServerThatIsDownOrStalledIsAStoreErrorWithinTheTimeout) {
  const posix::TempDirectory nowhere("safetune-no-redis");
  const auto started = Clock::now();
  RedisStore nothing_there(RedisAddress::parse("unix://" + nowhere.path() + "/none.sock"));  // made while down
  try {
    nothing_there.read(kEntry);
    ADD_FAILURE() << "a store with no server read an entry";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("none.sock"), std::string::npos) << "names the server: " << e.what();
  }
  const testing::RedisServer server;
  RedisStore store(server.parsed(), RedisStoreOptions{.connect_timeout = 200ms, .read_timeout = 200ms, .lease = 1s, .longest_poll = 20ms});
  server.pause();
  try {
    store.read(kEntry);
    ADD_FAILURE() << "a stalled server answered";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("read timeout"), std::string::npos) << e.what();
  }
  EXPECT_THROW(store.claim(kEntry, ResultsStore::ClaimMode::Wait), StoreError);
  EXPECT_LT(Clock::now() - started, 10s);
  server.resume();
  EXPECT_EQ(store.read(kEntry), std::nullopt) << "the store connects again once the server answers";
}

TEST(RedisStore, WithdrawalAndQuarantineRenameTheEntryAsideWithItsReason) {
  const testing::RedisServer server;
  RedisStore store(server.parsed());
  {
    const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Try);
    ASSERT_TRUE(store.publish(*claim, kEntry, "one"));
  }
  store.withdraw(kEntry);
  EXPECT_EQ(store.read(kEntry), std::nullopt);
  store.withdraw(kEntry);  // nothing there: nothing happens
  {
    const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Try);
    ASSERT_TRUE(store.publish(*claim, kEntry, "two"));
    store.quarantine(*claim, kEntry, "bad JSON");
  }
  EXPECT_EQ(store.read(kEntry), std::nullopt);
  const RedisReply withdrawn = store.run({"KEYS", "safetune:withdrawn:*"});
  ASSERT_EQ(withdrawn.items.size(), 1u);
  EXPECT_EQ(store.run({"GET", withdrawn.items[0].text}).text, "one");
  const RedisReply reasons = store.run({"KEYS", "safetune:quarantine:*:reason"});
  ASSERT_EQ(reasons.items.size(), 1u);
  EXPECT_EQ(store.run({"GET", reasons.items[0].text}).text, "bad JSON");
}

TEST(RedisStore, APublishedEntrySurvivesAServerKilledAndRestartedWithItsAof) {
  testing::RedisServer server;
  {
    RedisStore store(server.parsed());
    const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Try);
    ASSERT_TRUE(store.publish(*claim, kEntry, "durable"));
  }
  server.kill_and_restart();
  RedisStore store(server.parsed());
  EXPECT_EQ(store.read(kEntry), "durable");
}

}  // namespace
}  // namespace safetune
