// The Redis store's graph of waits (impl/store/redis/redis_waits.h): shared_waits_cases.h, and
// what only a lock with leases has: a change whose turn was dropped while its process was paused.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "impl/store/redis/redis_connection.h"
#include "impl/store/redis/redis_fifo_lock.h"
#include "impl/store/redis/redis_waits.h"
#include "tests/store/redis_store_kind.h"
#include "tests/store/shared_waits_cases.h"

namespace safetune::store_cases {

INSTANTIATE_TYPED_TEST_SUITE_P(Redis, WaitsAcrossProcesses, testing::RedisStoreKind);
INSTANTIATE_TYPED_TEST_SUITE_P(Redis, AutotunerAcrossProcesses, testing::RedisStoreKind);

namespace {

using namespace std::chrono_literals;

constexpr auto kLease = 300ms;

long long tickets_taken(RedisConnection& connection) {
  const std::string tickets = "safetune:" + std::string(RedisWaits::kLockName) + ":tickets";
  return std::atoll(connection.command({"GET", tickets}).text.c_str());
}

// A process stopped (SIGSTOP) past its lease while it holds the graph's lock, between its read of
// the graph and its write, is taken for dead: the next to lock drops its turn, and its write is
// refused. That is no failure of the server: the change is made again on a new turn (it was a
// StoreError, and the call tuned locally, beside another process's attempt). The child changes the
// graph in a loop, and is stopped at random moments until one stop fell in that window: a change
// that took two turns, seen as more tickets taken than changes made.
TEST(RedisWaits, AChangeWhoseTurnWasDroppedWhilePausedIsMadeAgain) {
  testing::RedisServer server;
  std::atomic<long long>* const changes = testing::shared_object<std::atomic<long long>>();
  std::atomic<int>* const stop = testing::shared_object<std::atomic<int>>();
  const pid_t child = testing::spawn([&] {
    RedisStore store(server.parsed(), RedisStoreOptions{.lease = kLease});
    SharedWaits& waits = *store.waits();
    while (stop->load() == 0) {
      waits.attempt_began(kFirst, kNoReport);  // a StoreError ends the child: exit 1
      changes->fetch_add(1);
      waits.attempt_ended(kFirst, kNoReport);
      changes->fetch_add(1);
    }
    return true;
  });
  RedisStore store(server.parsed(), RedisStoreOptions{.lease = kLease});
  RedisConnection connection(server.parsed(), RedisConnection::Timeouts{});
  RedisFifoLock lock(store, RedisWaits::kLockName, "parent", [&](const auto& argv) { return connection.command(argv); });
  std::mt19937 random(7);
  long long turns_of_the_parent = 0;
  int stops = 0;
  // At most one change in flight holds a ticket not yet counted: two more mean a change made again.
  while (tickets_taken(connection) - changes->load() - turns_of_the_parent < 2 && stops < 60) {
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 3000));
    ::kill(child, SIGSTOP);
    ++stops;
    std::this_thread::sleep_for(3 * kLease);
    { const RedisFifoLock::Held held = lock.lock(); }  // drops the child's turn, if it held one
    ++turns_of_the_parent;
    ::kill(child, SIGCONT);
    std::this_thread::sleep_for(20ms);
  }
  stop->store(1);
  EXPECT_EQ(testing::wait_for(child), "exit 0") << "a change whose turn was dropped failed";
  EXPECT_GT(tickets_taken(connection) - changes->load() - turns_of_the_parent, 0)
      << "no stop of " << stops << " fell between a read of the graph and its write";
}

}  // namespace
}  // namespace safetune::store_cases
