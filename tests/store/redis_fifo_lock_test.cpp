// The Redis store's first-in-first-out lock (impl/store/redis/redis_fifo_lock.h), on a real
// redis-server: turns are held in the order they were taken, a live holder keeps its turn past
// its lease, a killed holder's turn is dropped, and a holder paused past its lease holds the lock
// no longer and cannot write through it (label: redis).
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "impl/store/redis/redis_connection.h"
#include "impl/store/redis/redis_fifo_lock.h"
#include "impl/store/redis/redis_store.h"
#include "tests/store/child_process.h"
#include "tests/store/redis_server.h"

namespace safetune {
namespace {

using namespace std::chrono_literals;

constexpr auto kLease = 300ms;
constexpr std::string_view kLockName = "test-lock";

// One client of the lock: a store (its options and keeper), a connection and the lock. Each
// client takes turns as a process would.
struct Client {
  Client(const RedisAddress& address, const std::string& name)
      : store(address, RedisStoreOptions{.lease = kLease}),
        connection(address, RedisConnection::Timeouts{}),
        lock(store, kLockName, name, [this](const auto& argv) { return connection.command(argv); }) {}
  RedisStore store;
  RedisConnection connection;
  RedisFifoLock lock;
};

// The lock held on the heap, to be let go before the test ends (Held is not movable).
std::unique_ptr<RedisFifoLock::Held> hold(RedisFifoLock& lock) {
  return std::unique_ptr<RedisFifoLock::Held>(new RedisFifoLock::Held(lock.lock()));
}

// How many turns are taken (held or waited for): the queue's length.
long long turns_taken(const testing::RedisServer& server) {
  RedisConnection connection(server.parsed(), RedisConnection::Timeouts{});
  return connection.command({"ZCARD", "safetune:" + std::string(kLockName) + ":queue"}).integer;
}

// False when they are not within 10 s (a turn that held the lock at once, out of its order).
bool wait_until_turns_taken(const testing::RedisServer& server, long long turns) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    if (turns_taken(server) >= turns) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
}

void wait_for_flag(const std::atomic<int>& flag) {
  while (flag.load() == 0) std::this_thread::sleep_for(1ms);
}

std::string value_of(const testing::RedisServer& server, const std::string& key) {
  RedisConnection connection(server.parsed(), RedisConnection::Timeouts{});
  return connection.command({"GET", key}).text;
}

// A lock taken by SET NX would let whichever waiter is fastest at each unlock hold it: here the
// five waiters, started one after another, would hold it in one of 120 orders.
TEST(RedisFifoLock, TurnsAreHeldInTheOrderTheyWereTaken) {
  testing::RedisServer server;
  Client first(server.parsed(), "first");
  auto held = hold(first.lock);
  std::mutex order_mutex;
  std::vector<int> order;
  std::vector<std::thread> waiters;
  // Named out of their order, so that an order of names is not taken for the order of turns.
  const std::vector<std::string> names{"", "c", "e", "a", "d", "b"};
  for (int waiter = 1; waiter <= 5; ++waiter) {
    waiters.emplace_back([&, waiter] {
      Client client(server.parsed(), names[waiter]);
      const RedisFifoLock::Held turn = client.lock.lock();
      const std::lock_guard guard(order_mutex);
      order.push_back(waiter);
    });
    if (!wait_until_turns_taken(server, 1 + waiter)) {  // this waiter's turn is taken before the next's
      ADD_FAILURE() << "waiter " << waiter << " did not wait behind the holder";
      break;
    }
  }
  held.reset();
  for (std::thread& waiter : waiters) waiter.join();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(turns_taken(server), 0);
}

// The store's keeper renews a held turn: a holder slower than its lease keeps the lock.
TEST(RedisFifoLock, ALiveHolderKeepsItsTurnPastItsLease) {
  testing::RedisServer server;
  Client holder(server.parsed(), "holder");
  auto held = hold(holder.lock);
  std::atomic<int> granted{0};
  std::thread waiter([&] {
    Client client(server.parsed(), "waiter");
    const RedisFifoLock::Held turn = client.lock.lock();
    granted.store(1);
  });
  EXPECT_TRUE(wait_until_turns_taken(server, 2));  // the waiter's turn is behind the holder's
  std::this_thread::sleep_for(4 * kLease);
  EXPECT_EQ(granted.load(), 0);
  EXPECT_TRUE(held->set_if_held("safetune:written", "by the holder"));
  held.reset();
  waiter.join();
  EXPECT_EQ(granted.load(), 1);
}

TEST(RedisFifoLock, AKilledHoldersTurnIsDroppedAndTheNextHoldsTheLock) {
  testing::RedisServer server;
  std::atomic<int>* const holds = testing::shared_object<std::atomic<int>>();
  const pid_t holder = testing::spawn([&] {
    Client client(server.parsed(), "holder");
    const RedisFifoLock::Held turn = client.lock.lock();
    holds->store(1);
    for (;;) std::this_thread::sleep_for(1s);
    return true;
  });
  wait_for_flag(*holds);
  ::kill(holder, SIGKILL);
  EXPECT_EQ(testing::wait_for(holder), "signal 9");
  Client next(server.parsed(), "next");
  RedisFifoLock::Held turn = next.lock.lock();  // its turn runs out within a lease: no hang
  EXPECT_TRUE(turn.set_if_held("safetune:written", "by the next"));
}

// The fencing of the graph's write (redis_waits.h): a holder stopped past its lease, while another
// took the lock, writes nothing when it goes on.
TEST(RedisFifoLock, AHolderPausedPastItsLeaseCannotWriteThroughIt) {
  testing::RedisServer server;
  std::atomic<int>* const holds = testing::shared_object<std::atomic<int>>();
  std::atomic<int>* const go_on = testing::shared_object<std::atomic<int>>();
  const pid_t paused = testing::spawn([&] {
    Client client(server.parsed(), "paused");
    RedisFifoLock::Held turn = client.lock.lock();
    holds->store(1);
    wait_for_flag(*go_on);
    return !turn.set_if_held("safetune:written", "by the paused holder");
  });
  wait_for_flag(*holds);
  ::kill(paused, SIGSTOP);
  Client next(server.parsed(), "next");
  const auto turn = hold(next.lock);  // once the paused holder's turn ran out
  ASSERT_TRUE(turn->set_if_held("safetune:written", "by the next"));
  go_on->store(1);
  ::kill(paused, SIGCONT);
  EXPECT_EQ(testing::wait_for(paused), "exit 0") << "the paused holder wrote, or failed";
  EXPECT_EQ(value_of(server, "safetune:written"), "by the next");
}

}  // namespace
}  // namespace safetune
