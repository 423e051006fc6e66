// The reference autotuner on the Redis store: an owner whose lease another process took before it
// published is fenced off. Its attempt ends as lease_lost, and its call loads the winner of the
// process that took over; the two processes' traces, merged, satisfy the model (label: redis).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "impl/autotuner.h"
#include "impl/posix/temp_directory.h"
#include "impl/store/redis/redis_store.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "model/trace_merge.h"
#include "model/trace_writer.h"
#include "tests/common/checked_trace.h"
#include "tests/impl/deadline.h"
#include "tests/impl/fake_kernel.h"
#include "tests/store/redis_server.h"

namespace safetune {
namespace {

using testing::FakeKernel;
using testing::FakeStream;

const DeviceIdentity kDevice{.name = "sim", .compute_capability = "0.0", .driver = "test", .toolkit = "test"};

// One process of the test: its kernel, store, recorder (named as the process) and autotuner.
struct Process {
  Process(const testing::RedisServer& server, int number, std::chrono::steady_clock::time_point origin,
          RedisStoreOptions store_options = {})
      : kernel({{"B=0", 5}, {"B=1", 1}}), store(server.parsed(), store_options), recorder(header()) {
    recorder.as_process(model::Name::integer(number), origin);
    options.observer = &recorder;
    options.results = {.store = &store, .device = kDevice, .warn = {}};
  }
  model::Header header() const {
    model::Header header;
    header.present = true;
    header.white_box = true;
    header.configs["add"] = {"B=0", "B=1"};
    return header;
  }
  std::optional<Config> call(Autotuner& tuner) {
    TraceRecorder::bind_thread(0);
    FakeStream stream(0);
    return testing::recorded_call(tuner, recorder, kernel.name(), "k", stream);
  }
  void write(const std::string& path) {
    std::ofstream out(path);
    model::write_trace(out, recorder.take());
  }

  FakeKernel kernel;
  RedisStore store;
  TraceRecorder recorder;
  TunerOptions options;
};

// The two processes' traces, written to files, merged and checked as one run.
model::CheckResult check_both(Process& owner, Process& thief) {
  const posix::TempDirectory traces("safetune-redis-traces");
  const std::vector<std::string> files{traces.path() + "/trace.1.jsonl", traces.path() + "/trace.2.jsonl"};
  owner.write(files[0]);
  thief.write(files[1]);
  auto merged = model::read_merged_files(files);
  if (auto* error = std::get_if<model::MergeError>(&merged)) ADD_FAILURE() << "the traces do not merge: " << error->error.message;
  return std::holds_alternative<model::Trace>(merged) ? model::check(std::get<model::Trace>(merged)) : model::CheckResult{};
}

TEST(AutotunerRedis, AnOwnerWhoseLeaseWasTakenIsFencedOffAndLoadsTheNewWinner) {
  const testing::RedisServer server;
  const auto origin = std::chrono::steady_clock::now();
  Process owner(server, 1, origin), thief(server, 2, origin);
  Autotuner thief_tuner(thief.kernel, ConfigSpace::parse("B=0;B=1"), thief.options);
  std::optional<Config> thief_launched;
  int owner_benches = 0;
  owner.kernel.inside_benchmark = [&](const Invocation&, const Config&) {
    if (owner_benches++ != 0) return;
    // As if the owner had stalled past its lease: the lease goes, and another process tunes.
    thief.store.run({"DEL", thief.store.key("lease", EntryId{.kernel = "add", .key = "k", .device = "sim"})});
    std::thread other([&] { thief_launched = thief.call(thief_tuner); });
    other.join();
  };
  Autotuner owner_tuner(owner.kernel, ConfigSpace::parse("B=0;B=1"), owner.options);
  const std::optional<Config> owner_launched = owner.call(owner_tuner);

  EXPECT_EQ(thief_launched, Config::parse("B=1"));
  EXPECT_EQ(owner_launched, Config::parse("B=1"));  // loaded after its lease was lost
  EXPECT_EQ(owner_benches, 2) << "the fenced owner tuned again";
  EXPECT_EQ(owner_tuner.tuned_config("k"), Config::parse("B=1"));
  const model::CheckResult result = check_both(owner, thief);
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
  EXPECT_EQ(result.stats.lost_leases, 1);
  EXPECT_EQ(result.stats.successful_tunings, 1);
  EXPECT_EQ(result.stats.loads, 1);
  EXPECT_EQ(result.stats.duplicate_tunings, 0);
}

// An owner whose heartbeat finds its lease taken stops benchmarking at once: the store would
// refuse its publication. Its lease (300 ms, renewed every 100 ms) goes inside its first bench,
// where another process tunes and publishes the key; the bench then lasts a second, time for the
// heartbeat to see it. The owner benches no second config, ends its attempt as lease_lost, and
// loads the new winner.
TEST(AutotunerRedis, AnOwnerWhoseHeartbeatFindsItsLeaseTakenStopsBenching) {
  const testing::RedisServer server;
  const auto origin = std::chrono::steady_clock::now();
  Process owner(server, 1, origin, RedisStoreOptions{.lease = std::chrono::milliseconds(300)}), thief(server, 2, origin);
  Autotuner thief_tuner(thief.kernel, ConfigSpace::parse("B=0;B=1"), thief.options);
  int owner_benches = 0;
  owner.kernel.inside_benchmark = [&](const Invocation&, const Config&) {
    if (owner_benches++ != 0) return;
    thief.store.run({"DEL", thief.store.key("lease", EntryId{.kernel = "add", .key = "k", .device = "sim"})});
    std::thread([&] { thief.call(thief_tuner); }).join();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  };
  Autotuner owner_tuner(owner.kernel, ConfigSpace::parse("B=0;B=1"), owner.options);
  const std::optional<Config> owner_launched = owner.call(owner_tuner);

  EXPECT_EQ(owner_launched, Config::parse("B=1"));
  EXPECT_EQ(owner_benches, 1) << "the owner benched on after its heartbeat found the lease taken";
  const model::CheckResult result = check_both(owner, thief);
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
  EXPECT_EQ(result.stats.lost_leases, 1);
  EXPECT_EQ(result.stats.successful_tunings, 1);
}

// A failed attempt writes nothing, so no fenced write refuses it: its owner asks the store whether
// its claim is still held before it reports the failure. Here the owner's lease goes inside its
// first bench (as if paused past it), another process tunes and publishes the key, and every bench
// of the owner fails. The owner's attempt ends as lease_lost, not as a failure (which would leave
// the other process's attempt an R2 overlap), and its call loads the new winner.
TEST(AutotunerRedis, AnOwnerWhoseBenchesAllFailAfterItsLeaseWasTakenEndsItsAttemptAsLeaseLost) {
  const testing::RedisServer server;
  const auto origin = std::chrono::steady_clock::now();
  Process owner(server, 1, origin), thief(server, 2, origin);
  Autotuner thief_tuner(thief.kernel, ConfigSpace::parse("B=0;B=1"), thief.options);
  int owner_benches = 0;
  owner.kernel.fail_bench("B=0");
  owner.kernel.fail_bench("B=1");
  owner.kernel.inside_benchmark = [&](const Invocation&, const Config&) {
    if (owner_benches++ != 0) return;
    thief.store.run({"DEL", thief.store.key("lease", EntryId{.kernel = "add", .key = "k", .device = "sim"})});
    std::thread([&] { thief.call(thief_tuner); }).join();
  };
  Autotuner owner_tuner(owner.kernel, ConfigSpace::parse("B=0;B=1"), owner.options);
  const std::optional<Config> owner_launched = owner.call(owner_tuner);

  EXPECT_EQ(owner_launched, Config::parse("B=1")) << "the owner's call failed instead of loading the new winner";
  const model::CheckResult result = check_both(owner, thief);
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
  EXPECT_EQ(result.stats.lost_leases, 1);
  EXPECT_EQ(result.stats.successful_tunings, 1);
  EXPECT_EQ(result.stats.loads, 1);
}

// A process paused past its lease is taken for dead, and the next change of the store's graph of
// waits drops its records; when it goes on, a cycle of waits within it must still be refused.
// Here two threads of one process each own a key, and the graph is deleted (what a drop leaves of
// this process's records) once both attempts are in flight; then each calls the other's key from
// its hook. This process's own graph sees the cycle: one nested call gets TuningCycle, the other
// waits and launches, and both attempts end (a deadline catches a hang).
TEST(AutotunerRedis, ACycleWithinAProcessIsRefusedAfterTheStoreDroppedItsWaits) {
  const testing::RedisServer server;
  Process process(server, 1, std::chrono::steady_clock::now());
  std::mutex mutex;
  std::condition_variable changed;
  int in_attempts = 0;
  bool dropped = false;
  std::vector<std::string> errors;
  Autotuner* tuner = nullptr;
  process.options.pre_bench_hook = [&](const Invocation& inv, const Config&) {
    thread_local const Invocation* hooked = nullptr;  // the owning call whose hook ran
    if (hooked == &inv) return;
    hooked = &inv;
    {
      std::unique_lock lock(mutex);
      if (++in_attempts == 2) {
        process.store.run({"DEL", process.store.address().space + ":waits:graph"});
        dropped = true;
        changed.notify_all();
      }
      changed.wait(lock, [&] { return dropped; });
    }
    const std::string other = inv.key == "k0" ? "k1" : "k0";
    process.recorder.call_begin("add", other, inv.stream.id());
    try {
      const Config& config = tuner->call({other, inv.stream});
      process.recorder.call_end("add", other, CallOutcome::returned(config.str()), inv.stream.id());
    } catch (const std::exception& error) {
      process.recorder.call_end("add", other, CallOutcome::raised(error.what()), inv.stream.id());
      const std::lock_guard guard(mutex);
      errors.push_back(error.what());
    }
  };
  Autotuner autotuner(process.kernel, ConfigSpace::parse("B=0;B=1"), process.options);
  tuner = &autotuner;
  testing::run_with_deadline([&] {
    std::vector<std::thread> owners;
    for (int i = 0; i < 2; ++i)
      owners.emplace_back([&, i] {
        TraceRecorder::bind_thread(i);
        FakeStream stream(i);
        testing::recorded_call(autotuner, process.recorder, "add", "k" + std::to_string(i), stream);
      });
    for (auto& owner : owners) owner.join();
  });

  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("waiting would close a cycle of waits"), std::string::npos) << errors[0];
  EXPECT_EQ(autotuner.tuned_config("k0"), Config::parse("B=1"));
  EXPECT_EQ(autotuner.tuned_config("k1"), Config::parse("B=1"));
  const model::CheckResult result = model::check(process.recorder.snapshot());
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
}

// StoreFailurePolicy::Fail, on a real Unix socket where no server listens: the call ends with
// StoreFailed (naming the store, what failed and the policy) within the connect timeout, benching
// and launching nothing and warning of nothing; the key stays cold, so the next call fails the
// same way instead of hanging on a key left Tuning.
// Each call records its store_failed: the model then reads the StoreFailed as caused (R14).
TEST(AutotunerRedis, UnderPolicyFailACallOnADeadServerEndsWithStoreFailedAndTunesNothing) {
  const posix::TempDirectory folder("safetune-no-server");
  const std::string socket = folder.path() + "/no-server.sock";
  RedisStore store(RedisAddress::parse("unix://" + socket));
  FakeKernel kernel({{"B=0", 5}, {"B=1", 1}});
  const ConfigSpace space = ConfigSpace::parse("B=0;B=1");
  TraceRecorder recorder(testing::header_for(kernel, space));
  std::vector<std::string> warnings;
  TunerOptions options;
  options.observer = &recorder;
  options.results = {.store = &store,
                     .device = kDevice,
                     .warn = [&](const std::string& warning) { warnings.push_back(warning); },
                     .on_failure = StoreFailurePolicy::Fail};
  Autotuner tuner(kernel, space, options);
  TraceRecorder::bind_thread(0);
  FakeStream stream(0);
  for (int call = 0; call < 2; ++call) {
    recorder.call_begin(kernel.name(), "k", stream.id());
    try {
      const Config& launched = tuner.call({"k", stream});
      recorder.call_end(kernel.name(), "k", CallOutcome::returned(launched.str()), stream.id());
      ADD_FAILURE() << "call " << call << " launched with no store";
    } catch (const StoreFailed& failed) {
      const std::string what = failed.what();
      recorder.call_end(kernel.name(), "k", CallOutcome::raised(what), stream.id());
      EXPECT_NE(what.find(socket), std::string::npos) << what;
      EXPECT_NE(what.find("store-failure policy is fail"), std::string::npos) << what;
    }
  }
  EXPECT_TRUE(kernel.benches().empty());
  EXPECT_TRUE(kernel.launches().empty());
  EXPECT_TRUE(warnings.empty()) << warnings.front();

  const model::Trace trace = recorder.take();
  const auto failures = std::count_if(trace.events.begin(), trace.events.end(), [&](const model::Event& event) {
    return event.kind == model::EventKind::StoreFailed && event.error && event.error->find(socket) != std::string::npos;
  });
  EXPECT_EQ(failures, 2) << "one store_failed per recorded call, with the store's reason";
  const model::CheckResult result = model::check(trace);
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
  EXPECT_EQ(result.stats.errors, 2);
}

}  // namespace
}  // namespace safetune
