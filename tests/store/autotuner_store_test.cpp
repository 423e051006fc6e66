// The reference autotuner with a directory store, across real processes (fork, SIGKILL): one
// tuning per machine, none after a restart, damaged entries quarantined and tuned again once, a
// killed owner taken over, policy fallback while another process tunes, invalidate withdrawing
// the entry, and a failing store tuning locally. Each process records its white-box trace; the
// traces of a run are merged (model/trace_merge.h) and must satisfy the model.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "impl/autotuner.h"
#include "impl/posix/temp_directory.h"
#include "impl/store/directory_store.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "model/trace_merge.h"
#include "model/trace_writer.h"
#include "tests/common/checked_trace.h"
#include "tests/impl/fake_kernel.h"
#include "tests/store/child_process.h"

namespace safetune {
namespace {

namespace fs = std::filesystem;
using testing::FakeKernel;
using testing::FakeStream;
using posix::TempDirectory;

constexpr int kConfigs = 16;
constexpr int kThreads = 4;
const DeviceIdentity kDevice{.name = "sim", .compute_capability = "0.0", .driver = "test", .toolkit = "test"};

ConfigSpace space_of_16() {
  std::string text;
  for (int i = 0; i < kConfigs; ++i) text += (i ? ";" : "") + std::string("B=") + std::to_string(i);
  return ConfigSpace::parse(text);
}

// Config B=i times at 100 - i, except B=7, the fastest: the winner every run must agree on.
std::map<std::string, double> times_of_16() {
  std::map<std::string, double> times;
  for (int i = 0; i < kConfigs; ++i) times["B=" + std::to_string(i)] = 100.0 - i;
  times["B=7"] = 1.0;
  return times;
}

// What the processes of one test share: bench and warning counts, which survive a SIGKILL.
struct Shared {
  std::atomic<int> benches{0};
  std::atomic<int> warnings{0};
  std::atomic<int> owner_in_bench{0};  // set by an owner told to hang in its first bench
};

// One worker process: `threads` threads, each on its own stream, call `key` once; its trace goes
// to DIR/trace.<process>.jsonl. True when every call launched B=7 (or the fallback, when allowed).
struct Worker {
  std::string store_dir;
  std::string trace_dir;
  int process = 0;
  std::chrono::steady_clock::time_point origin;
  Shared* shared = nullptr;
  WaitPolicy wait = WaitPolicy::Block;
  bool hang_in_first_bench = false;
  bool invalidate_after = false;

  bool run(const std::string& key = "k") const {
    FakeKernel kernel(times_of_16());
    const ConfigSpace space = space_of_16();
    TraceRecorder recorder(header());
    recorder.as_process(model::Name::integer(process), origin);
    kernel.inside_benchmark = [this](const Invocation&, const Config&) {
      shared->benches.fetch_add(1);
      if (hang_in_first_bench) {
        shared->owner_in_bench.store(1);
        for (;;) ::pause();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // others come while it tunes
    };
    DirectoryStore store(store_dir);
    TunerOptions options;
    options.observer = &recorder;
    options.wait = wait;
    if (wait == WaitPolicy::Fallback) options.fallback = Config::parse("B=0");
    options.results = {.store = &store, .device = kDevice, .warn = [this](const std::string&) { shared->warnings.fetch_add(1); }};
    Autotuner tuner(kernel, space, options);
    std::atomic<int> right{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        TraceRecorder::bind_thread(t);
        FakeStream stream(t);
        const std::optional<Config> launched = testing::recorded_call(tuner, recorder, kernel.name(), key, stream);
        const bool fell_back = wait == WaitPolicy::Fallback && launched == Config::parse("B=0");
        if (launched == Config::parse("B=7") || fell_back) right.fetch_add(1);
      });
    for (auto& thread : threads) thread.join();
    if (invalidate_after) tuner.invalidate(key);
    std::ofstream out(trace_dir + "/trace." + std::to_string(process) + ".jsonl");
    model::write_trace(out, recorder.take());
    return right.load() == kThreads && out.good();
  }

  model::Header header() const {
    model::Header header;
    header.present = true;
    header.white_box = true;
    header.configs["add"] = space_of_16().strings();
    if (wait == WaitPolicy::Fallback) {
      header.policy.wait = WaitPolicy::Fallback;
      header.policy.fallback = "B=0";
    }
    return header;
  }
};

// The traces of a run, merged by t_ns, checked as one trace.
model::CheckResult check_run(const std::string& trace_dir) {
  std::vector<std::string> paths;
  for (const auto& file : fs::directory_iterator(trace_dir)) paths.push_back(file.path().string());
  auto merged = model::read_merged_files(paths);
  if (auto* error = std::get_if<model::MergeError>(&merged)) {
    ADD_FAILURE() << paths.at(error->file) << ": " << error->error.show();
    return {};
  }
  return model::check(std::get<model::Trace>(merged));
}

std::string report(const model::CheckResult& result) {
  std::string text;
  for (const auto& violation : result.violations) text += "\n  " + std::string(model::rule_id(violation.rule)) + ": " + violation.message;
  return text;
}

class AutotunerStore : public ::testing::Test {
 protected:
  Worker worker(int process) const {
    return {.store_dir = store_.path(), .trace_dir = traces_.path(), .process = process, .origin = origin_, .shared = shared_};
  }
  // Runs each worker in its own process, all at once; their exit statuses.
  std::vector<std::string> run_all(const std::vector<Worker>& workers) const {
    std::vector<pid_t> pids;
    for (const Worker& w : workers) pids.push_back(testing::spawn([w] { return w.run(); }));
    std::vector<std::string> statuses;
    for (pid_t pid : pids) statuses.push_back(testing::wait_for(pid));
    return statuses;
  }
  std::vector<Worker> workers(int count, int first = 0) const {
    std::vector<Worker> out;
    for (int i = 0; i < count; ++i) out.push_back(worker(first + i));
    return out;
  }
  std::string entry_path() const { return store_.path() + "/" + DirectoryStore::entry_name({"add", "k", "sim"}) + ".json"; }

  TempDirectory store_, traces_;
  Shared* shared_ = testing::shared_object<Shared>();
  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
};

const std::vector<std::string> kAllExitedZero(8, "exit 0");

TEST_F(AutotunerStore, EightProcessesOfFourThreadsTuneTheKeyOnceOnTheMachine) {
  EXPECT_EQ(run_all(workers(8)), kAllExitedZero);
  EXPECT_EQ(shared_->benches.load(), kConfigs);  // one tuning, whoever won the claim
  const model::CheckResult result = check_run(traces_.path());
  EXPECT_TRUE(result.ok()) << report(result);
  EXPECT_EQ(result.stats.successful_tunings, 1);
  EXPECT_GE(result.stats.loads, 7);  // every other process loaded it (a thread beside its owner may too)
  EXPECT_EQ(result.stats.calls, 8 * kThreads);
  EXPECT_TRUE(fs::exists(entry_path()));
}

TEST_F(AutotunerStore, ARestartedGenerationTunesNothingAndLoadsTheWinner) {
  ASSERT_EQ(run_all(workers(2)), std::vector<std::string>(2, "exit 0"));
  ASSERT_EQ(shared_->benches.load(), kConfigs);
  EXPECT_EQ(run_all(workers(4, 2)), std::vector<std::string>(4, "exit 0"));  // the second generation
  EXPECT_EQ(shared_->benches.load(), kConfigs);                              // no bench at all
  const model::CheckResult result = check_run(traces_.path());
  EXPECT_TRUE(result.ok()) << report(result);
  EXPECT_EQ(result.stats.successful_tunings, 1);
  EXPECT_GE(result.stats.loads, 1 + 4);
}

// Each kind of damage: the entry is reported as a rejected load, warned of once, quarantined,
// and the key is tuned again once; no foreign config is launched (the model's R13 and R5).
TEST_F(AutotunerStore, ADamagedEntryIsQuarantinedWithAWarningAndTunedAgainOnce) {
  const std::vector<std::string> damages = {
      "{\"schema\":1,\"key\":\"k\",\"win",  // truncated
      "{\"schema\":1,\"key\":k}\n",         // bad JSON
      "{\"schema\":7}\n",                   // another schema
  };
  int round = 0;
  for (const std::string& damage : damages) {
    SCOPED_TRACE(damage);
    { std::ofstream(entry_path()) << damage; }
    const int benches_before = shared_->benches.load();
    EXPECT_EQ(run_all(workers(2, 10 * round)), std::vector<std::string>(2, "exit 0"));
    EXPECT_EQ(shared_->benches.load() - benches_before, kConfigs);
    EXPECT_EQ(shared_->warnings.load(), round + 1);
    ++round;
  }
  std::size_t quarantined = 0;
  for ([[maybe_unused]] const auto& file : fs::directory_iterator(store_.path() + "/quarantine")) ++quarantined;
  EXPECT_EQ(quarantined, 2 * damages.size());  // each entry with its reason
  const model::CheckResult result = check_run(traces_.path());
  EXPECT_TRUE(result.ok()) << report(result);
  EXPECT_GE(result.stats.rejected_loads, static_cast<std::int64_t>(damages.size()));  // each read of one is one
}

TEST_F(AutotunerStore, AForeignEntryIsNeverLaunched) {
  // A valid entry of another device's driver, whose winner B=3 is not this machine's B=7.
  DeviceIdentity other = kDevice;
  other.driver = "old";
  const StoredEntry foreign{.key = "k", .fingerprint = fingerprint_of("add", space_of_16(), other), .winner = "B=3", .times = {}};
  { std::ofstream(entry_path()) << encode_entry(foreign); }
  EXPECT_EQ(run_all(workers(3)), std::vector<std::string>(3, "exit 0"));
  EXPECT_EQ(shared_->benches.load(), kConfigs);
  EXPECT_EQ(shared_->warnings.load(), 1);
  const model::CheckResult result = check_run(traces_.path());
  EXPECT_TRUE(result.ok()) << report(result);
}

TEST_F(AutotunerStore, AnOwnerKilledMidBenchIsTakenOverAndEveryOtherProcessEnds) {
  Worker owner = worker(0);
  owner.hang_in_first_bench = true;
  const pid_t owner_pid = testing::spawn([owner] { return owner.run(); });
  while (shared_->owner_in_bench.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::vector<pid_t> waiters;
  for (const Worker& w : workers(3, 1)) waiters.push_back(testing::spawn([w] { return w.run(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // they wait on the owner's claim
  ::kill(owner_pid, SIGKILL);
  EXPECT_EQ(testing::wait_for(owner_pid), "signal 9");
  for (pid_t pid : waiters) EXPECT_EQ(testing::wait_for(pid), "exit 0");
  EXPECT_EQ(shared_->benches.load(), 1 + kConfigs);  // the killed owner's first bench, then one tuning
  EXPECT_TRUE(fs::exists(entry_path()));
}

TEST_F(AutotunerStore, PolicyFallbackLaunchesTheFallbackWhileAnotherProcessTunes) {
  Worker owner = worker(0);
  owner.hang_in_first_bench = true;
  const pid_t owner_pid = testing::spawn([owner] { return owner.run(); });
  while (shared_->owner_in_bench.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Worker impatient = worker(1);
  impatient.wait = WaitPolicy::Fallback;
  const pid_t pid = testing::spawn([impatient] { return impatient.run(); });
  EXPECT_EQ(testing::wait_for(pid), "exit 0");  // returned while the owner still holds the claim
  ::kill(owner_pid, SIGKILL);
  testing::wait_for(owner_pid);
  EXPECT_EQ(shared_->benches.load(), 1);
  std::ifstream trace(traces_.path() + "/trace.1.jsonl");
  std::stringstream text;
  text << trace.rdbuf();
  EXPECT_NE(text.str().find("\"event\":\"launch\",\"kernel\":\"add\",\"key\":\"k\",\"config\":\"B=0\""), std::string::npos) << text.str();
}

TEST_F(AutotunerStore, InvalidateWithdrawsTheEntrySoTheNextProcessTunesAgain) {
  Worker first = worker(0);
  first.invalidate_after = true;
  ASSERT_EQ(run_all({first}), std::vector<std::string>{"exit 0"});
  EXPECT_FALSE(fs::exists(entry_path()));
  EXPECT_EQ(run_all({worker(1)}), std::vector<std::string>{"exit 0"});
  EXPECT_EQ(shared_->benches.load(), 2 * kConfigs);
  const model::CheckResult result = check_run(traces_.path());
  EXPECT_TRUE(result.ok()) << report(result);
}

// A store whose every operation fails: the call tunes locally, with one warning, and launches
// the winner it tuned.
class FailingStore final : public ResultsStore {
 public:
  std::optional<std::string> read(const EntryId&) override { throw StoreError("results store: disk on fire"); }
  std::unique_ptr<StoreClaim> claim(const EntryId&, ClaimMode) override { throw StoreError("results store: disk on fire"); }
  bool publish(const StoreClaim&, const EntryId&, const std::string&) override { throw StoreError("no"); }
  void quarantine(const StoreClaim&, const EntryId&, const std::string&) override { throw StoreError("no"); }
  void withdraw(const EntryId&) override { throw StoreError("no"); }
  std::string where(const EntryId&) const override { return "nowhere"; }
};

TEST(AutotunerFailingStore, TunesLocallyWithOneWarning) {
  FakeKernel kernel(times_of_16());
  FailingStore store;
  std::vector<std::string> warnings;
  TunerOptions options;
  options.results = {.store = &store, .device = kDevice, .warn = [&](const std::string& w) { warnings.push_back(w); }};
  Autotuner tuner(kernel, space_of_16(), options);
  FakeStream stream(0);
  EXPECT_EQ(tuner.call({"k", stream}).str(), "B=7");
  EXPECT_EQ(tuner.call({"k2", stream}).str(), "B=7");
  tuner.invalidate("k");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("disk on fire; tuning locally"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace safetune
