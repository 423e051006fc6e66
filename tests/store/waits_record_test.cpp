// The record of every process's waits (impl/store/waits_record.h), as a store keeps it: an
// attempt whose claim ran out (taken over, or its process dropped) stays in it until its owner
// ends it, and a wait across processes on it waits for the takeover, as the model reads it
// (model/model_wait_cycle.cpp, waited_now). A cycle through a takeover is then refused, where the
// record once read the wait as over and let the wait that closed it go (an R11 of a paused run).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "impl/store/waits_record.h"

namespace safetune {
namespace {

using Thread = WaitsRecord::Thread;

const EntryId kFirst{.kernel = "add", .key = "k0", .device = "sim"};
const EntryId kSecond{.kernel = "add", .key = "k1", .device = "sim"};
const Thread kStale{.process = "A", .thread = "1"};      // owns k0's first attempt, then loses its claim
const Thread kWaiter{.process = "B", .thread = "2"};     // owns k1, and from its hook waits on k0
const Thread kTakeover{.process = "C", .thread = "3"};   // takes k0 over, and from its hook calls k1
const Thread kStalesPeer{.process = "A", .thread = "4"};  // of the stale owner's process

// Returns the cycle that `me`'s wait on `id` would close, or nothing when it waits (recorded).
std::optional<std::string> wait(WaitsRecord& record, const Thread& me, const EntryId& id) {
  std::string cycle;
  if (record.wait_unless_cycle(me, id.key, id, cycle)) return std::nullopt;
  return cycle;
}

// k0's first attempt (kStale's) is waited on by `waiter`, who owns k1; kTakeover then begins k0's
// second attempt over the first.
WaitsRecord taken_over_while_waited_on(const Thread& waiter) {
  WaitsRecord record;
  record.begin_attempt(kStale, kFirst.key, kFirst);
  record.begin_attempt(waiter, kSecond.key, kSecond);
  EXPECT_EQ(wait(record, waiter, kFirst), std::nullopt);
  EXPECT_EQ(record.begin_attempt(kTakeover, kFirst.key, kFirst), 2u);
  return record;
}

TEST(WaitsRecord, AWaitAcrossProcessesOnAnAttemptTakenOverWaitsForTheTakeover) {
  WaitsRecord record = taken_over_while_waited_on(kWaiter);
  const std::optional<std::string> cycle = wait(record, kTakeover, kSecond);
  ASSERT_TRUE(cycle.has_value());
  EXPECT_NE(cycle->find("key 'k0', tuned by " + thread_text(kTakeover)), std::string::npos) << *cycle;
  EXPECT_EQ(record.attempt_to_wait_on(kWaiter, kFirst.key), 2u);  // its waiter wakes, and waits on the takeover
}

TEST(WaitsRecord, ATakenOverAttemptThatItsOwnerEndedIsWaitedForNoMore) {
  WaitsRecord record = taken_over_while_waited_on(kWaiter);
  EXPECT_TRUE(record.end_attempt(kStale, kFirst.key));  // its lease_lost
  EXPECT_EQ(wait(record, kTakeover, kSecond), std::nullopt);
}

TEST(WaitsRecord, AWaitOnItsOwnProcesssAttemptDoesNotFollowTheTakeover) {
  WaitsRecord record = taken_over_while_waited_on(kStalesPeer);
  EXPECT_EQ(wait(record, kTakeover, kSecond), std::nullopt);
}

TEST(WaitsRecord, ADroppedProcesssAttemptIsTakenOverAndKeptThroughItsText) {
  WaitsRecord record;
  record.begin_attempt(kStale, kFirst.key, kFirst);
  record.begin_attempt(kWaiter, kSecond.key, kSecond);
  EXPECT_EQ(wait(record, kWaiter, kFirst), std::nullopt);
  record.drop_lapsed_process(kStale.process);  // paused past its lease: its claim ran out
  EXPECT_EQ(record.attempt_to_wait_on(kWaiter, kFirst.key), 1u);  // in flight: its waiter waits on
  EXPECT_EQ(record.current_owner(kFirst.key, 1), nullptr);
  record = WaitsRecord::parse(record.text(), "the test's record");
  ASSERT_EQ(record.keys.at(kFirst.key).taken_over.size(), 1u);
  EXPECT_EQ(record.keys.at(kFirst.key).taken_over.at(1), kStale);
  record.begin_attempt(kTakeover, kFirst.key, kFirst);
  EXPECT_TRUE(wait(record, kTakeover, kSecond).has_value());
  EXPECT_TRUE(record.end_attempt(kStale, kFirst.key));  // when it goes on, and finds its lease lost
  EXPECT_TRUE(record.keys.at(kFirst.key).taken_over.empty());
  EXPECT_EQ(record.attempt_to_wait_on(kWaiter, kFirst.key), 2u);
}

// As the model reads a new wait: on its own process's attempt in flight, else on the latest in
// flight, taken over or not, else on the next to begin.
TEST(WaitsRecord, ANewWaitWaitsOnTheLatestAttemptInFlightAndOnItsOwnProcesssFirst) {
  WaitsRecord record;
  record.begin_attempt(kStale, kFirst.key, kFirst);
  record.drop_lapsed_process(kStale.process);
  ASSERT_EQ(wait(record, kWaiter, kFirst), std::nullopt);
  EXPECT_EQ(record.waits.at(kWaiter).attempt, 1u);  // the one taken over: the only one in flight
  record.begin_attempt(kTakeover, kFirst.key, kFirst);
  ASSERT_EQ(wait(record, kStalesPeer, kFirst), std::nullopt);
  EXPECT_EQ(record.waits.at(kStalesPeer).attempt, 1u);  // its own process's
  const Thread other{.process = "D", .thread = "5"};
  ASSERT_EQ(wait(record, other, kFirst), std::nullopt);
  EXPECT_EQ(record.waits.at(other).attempt, 2u);  // the latest
  EXPECT_TRUE(record.end_attempt(kTakeover, kFirst.key));
  EXPECT_TRUE(record.end_attempt(kStale, kFirst.key));
  const Thread late{.process = "E", .thread = "6"};
  ASSERT_EQ(wait(record, late, kFirst), std::nullopt);
  EXPECT_EQ(record.waits.at(late).attempt, 3u);  // none in flight: the next to begin
}

// An attempt taken over is in flight: its key's record stays though no one waits there, so that a
// later wait waits on it, as the model reads it, not on the next to begin.
TEST(WaitsRecord, AKeyWithAnAttemptTakenOverIsNoIdleKey) {
  WaitsRecord record;
  record.begin_attempt(kStale, kFirst.key, kFirst);
  EXPECT_TRUE(record.drop_lapsed_process(kStale.process));
  EXPECT_FALSE(record.drop_lapsed_process(kStale.process));  // nothing more to drop: no write
  record.drop_idle_keys();
  ASSERT_TRUE(record.keys.contains(kFirst.key));
  EXPECT_TRUE(record.processes().contains(kStale.process));  // so a store sees it die, and drops it
  EXPECT_TRUE(record.end_attempt(kStale, kFirst.key));
  record.drop_idle_keys();
  EXPECT_FALSE(record.keys.contains(kFirst.key));
}

TEST(WaitsRecord, ADeadProcesssAttemptsAreOverAndWaitedForNoMore) {
  WaitsRecord record = taken_over_while_waited_on(kWaiter);
  record.drop_process(kStale.process);  // its lock went with it: it died
  EXPECT_TRUE(record.keys.at(kFirst.key).taken_over.empty());
  EXPECT_EQ(wait(record, kTakeover, kSecond), std::nullopt);
}

TEST(WaitsRecord, ADamagedTakenOverListIsAStoreErrorNamingTheRecord) {
  const std::string text = R"({"keys":{"k0":{"kernel":"add","key":"k0","begun":2,"taken_over":[{"process":"A"}]}},"waits":[]})";
  try {
    (void)WaitsRecord::parse(text, "NS:waits:graph");
    FAIL() << "a damaged record was read";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("NS:waits:graph"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace safetune
