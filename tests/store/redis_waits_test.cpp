// The Redis store's graph of waits (impl/store/redis/redis_waits.h): shared_waits_cases.h, and
// what only a lock with leases has: a change whose turn was dropped while its process was paused
// is made again, and one whose turns are dropped again and again is a StoreError, not a hang.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <random>
#include <string>
#include <string_view>
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

std::string lock_key(std::string_view part) { return "safetune:" + std::string(RedisWaits::kLockName) + ":" + std::string(part); }

long long tickets_taken(RedisConnection& connection) {
  return std::atoll(connection.command({"GET", lock_key("tickets")}).text.c_str());
}

// Drops whatever turn is at the head of the graph's lock's queue, over and over, as the next
// locker does to a turn whose key ran out, until stopped: a holder it catches between its lock
// and its fenced write has lost its turn.
class TurnThief {
 public:
  explicit TurnThief(const testing::RedisServer& server)
      : connection_(server.parsed(), RedisConnection::Timeouts{}), thread_([this] { run(); }) {}
  ~TurnThief() { stop(); }
  TurnThief(const TurnThief&) = delete;
  TurnThief& operator=(const TurnThief&) = delete;
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    const std::string queue = lock_key("queue");
    while (!stop_)
      connection_.command(
          {"EVAL", "local head = redis.call('ZRANGE', KEYS[1], 0, 0)[1] if head then redis.call('ZREM', KEYS[1], head) end", "1", queue});
  }
  RedisConnection connection_;
  std::atomic<bool> stop_ = false;
  std::thread thread_;  // last: it starts once the rest is made
};

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

// A change whose turn is dropped before its write on every turn (a lease too short for the
// server's round trips would do that) fails after three turns with a StoreError that says so,
// and reports nothing: it neither retries for good nor passes unwritten. The thief drops most
// turns, not always every one, so a change may get through; the calls go on until one fails. A
// change retried for good is stopped by stopping the thief, so that the test fails, not hangs.
TEST(RedisWaits, AChangeWhoseTurnIsDroppedThreeTimesInARowIsAStoreError) {
  testing::RedisServer server;
  RedisStore store(server.parsed(), RedisStoreOptions{});
  SharedWaits& waits = *store.waits();
  TurnThief thief(server);
  int changes = 0;
  int reports = 0;
  std::optional<std::string> error;
  auto calls = std::async(std::launch::async, [&] {
    for (int call = 0; call < 1000 && !error; ++call) {
      try {
        if (call % 2 == 0)
          waits.attempt_began(kFirst, [&] { ++reports; });
        else
          waits.attempt_ended(kFirst, [&] { ++reports; });
        ++changes;
      } catch (const StoreError& e) {
        error = e.what();
      }
    }
  });
  const bool retried_for_good = calls.wait_for(30s) == std::future_status::timeout;
  thief.stop();
  calls.get();
  EXPECT_FALSE(retried_for_good) << "a change whose turns were dropped was tried again for 30 s";
  ASSERT_TRUE(error) << changes << " changes went through while a thief dropped their turns";
  EXPECT_NE(error->find("results store " + server.parsed().show() +
                        ": the wait graph's lock ran out before its change was written, 3 turns in a row"),
            std::string::npos)
      << *error;
  EXPECT_EQ(reports, changes) << "the failed change was reported";
}

}  // namespace
}  // namespace safetune::store_cases
