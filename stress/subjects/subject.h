// The subject interface: how `safetune stress` drives an autotuner under test.
//
// A subject is any autotuner wrapped so the harness can call it. The harness builds a
// SubjectEnvironment (the kernel to tune, its config space, the policies, the fallback, an
// Observer for white-box events, an optional bench lock, a pre-bench hook) and asks the
// subject's factory for an instance. One instance serves one stress round and is called from
// every worker thread at once, so call() and invalidate() must be safe to call concurrently:
// that is exactly what the harness is testing.
//
// White-box and black-box subjects:
//   - A white-box subject (SubjectInfo::white_box) reports its own tune_begin/tune_end,
//     wait_begin/wait_end, bench, launch and invalidate events to `environment.observer`.
//   - A black-box subject reports nothing (a user's autotuner). The harness then hands it a
//     RecordingKernel (recording_kernel.h) as `environment.kernel`, which reports each bench
//     and launch, and the harness reports invalidates itself. Its trace is a black-box trace.
//   In both cases the harness records call_begin/call_end around every call().
//
// Adding a built-in subject: write a factory and add one SubjectInfo to the list in
// subject_registry.cpp. Checking your own autotuner without touching safetune: write an adapter
// (a Subject and its SubjectInfo) and pass it to run_cli (run_cli.h) from a main of your own;
// docs/checking-your-own-autotuner.md walks through stress/adapters/cudnn_style_cache/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/config.h"
#include "impl/kernel.h"
#include "impl/observer.h"
#include "impl/store/entry_codec.h"
#include "impl/store/results_store.h"
#include "model/event.h"

namespace safetune {
class BenchLock;
}

namespace safetune::stress {

// What a subject is built from. Every reference stays valid for the subject's whole life.
struct SubjectEnvironment {
  Kernel& kernel;  // the kernel to tune; for black-box subjects it records benches and launches
  const ConfigSpace& space;
  model::WaitPolicy wait = model::WaitPolicy::Block;
  model::ReentryPolicy reentry = model::ReentryPolicy::Error;
  std::optional<Config> fallback;  // set whenever either policy is Fallback
  Observer* observer = nullptr;    // white-box events go here; null for black-box subjects
  BenchLock* bench_lock = nullptr; // shared per device; null: no bench lock
  // Must run before each config's benchmark, with no subject lock held. It may throw (a failed
  // bench of that config) and may call the subject again (re-entry, nested tuning).
  std::function<void(const Invocation&, const Config&)> pre_bench_hook;
  // `safetune stress --store`: the results store this process shares with the run's other
  // processes, and the device its entries are fingerprinted with. Null: none (a subject that
  // ignores it tunes in every process, which the model sees across processes as R3).
  ResultsStore* store = nullptr;
  DeviceIdentity device{};
  bool store_failure_fails = false;  // --store-failure fail: a call whose store step fails raises
                                     // (the reference's StoreFailurePolicy::Fail)
};

class Subject {
 public:
  virtual ~Subject() = default;
  // One autotuned call: launches on inv.stream and returns the config it launched.
  // Throws (any std::exception) when the call fails; the message goes into the trace.
  virtual Config call(const Invocation& inv) = 0;
  // Puts a tuned key back to not tuned.
  virtual void invalidate(std::string_view key) = 0;
};

using SubjectFactory = std::function<std::unique_ptr<Subject>(const SubjectEnvironment&)>;

// The factory of any subject class constructed from its environment alone: a registry row says
// `.make = make_subject<NotifyOne<StdSync>>`.
template <class SubjectClass>
std::unique_ptr<Subject> make_subject(const SubjectEnvironment& environment) {
  return std::make_unique<SubjectClass>(environment);
}

// The situation a subject's bug class lives in: the program mix (program.h: mix_names()) and
// the policies that `safetune stress --subject NAME` uses unless --mix, --wait or --reentry say
// otherwise. The summary prints it. It is the only thing the harness knows about a subject
// besides its trace: a catch comes from the model and the watchdog alone.
inline constexpr int kMaxProcesses = 256;  // --processes and Scenario::processes; also --hosts times --processes
inline constexpr int kMaxHosts = 64;       // --hosts

struct Scenario {
  std::string mix = "plain";
  std::string wait = "block";     // "block" or "fallback"
  std::string reentry = "error";  // "error" or "fallback"
  // Across processes, where a store subject's bug lives: worker processes per generation (1: the
  // harness's own process), a directory store (a fresh temporary one unless --store names one), a
  // second generation on it, and damage to its entries between the two (stress/cli/options.h).
  int processes = 1;
  bool store = false;
  bool restart = false;       // needs store
  bool damage_store = false;  // needs restart
  // With store: a Redis store, on a redis-server that the run starts itself unless --store names
  // one (stress/harness/round_store.h). Not with damage_store (a directory's files).
  bool redis = false;
  bool store_down = false;    // with redis: no server at all, as --store-down (not with restart)
  double pause_owners = 0;    // as --pause-owners, in [0, 1]; > 0 needs store or processes > 1
  double stall_owners = 0;    // as --stall-owners, the same
  // As --watchdog-seconds; 0: its default. A Redis lease is a quarter of it (round_store.h).
  double watchdog_seconds = 0;
};

struct SubjectInfo {
  std::string name;     // the --subject value
  std::string bug;      // one line: the bug it has, "none" for the reference
  bool white_box = false;
  bool listed = true;   // false: test-only, not shown by `safetune subjects`
  SubjectFactory make;
  Scenario scenario = {};
  // A broken subject: the rules its bug breaks (rule ids, "R2"). The catch table counts a run
  // as a catch only when one of them is among the violations; a catch for another rule is a
  // miss. Empty for a correct subject.
  std::vector<std::string> caught_by = {};
};

// Every known subject: the built-in ones, the reference first, then any added by add_subjects.
// The list never changes after start-up.
const std::vector<SubjectInfo>& subject_registry();
// The subject named `name` (listed or not), or null.
const SubjectInfo* find_subject(std::string_view name);

// Appends a program's own subjects to the registry, all or none. Part of start-up: call it
// before any other use of the registry (it may move the entries that find_subject points to),
// from one thread; run_cli (run_cli.h) does. Throws std::invalid_argument naming the subject
// and what is wrong with it: a name already taken (by a built-in subject or an earlier one), a
// name that is empty, starts with '-' or holds a character other than a letter, digit, '.', '_'
// or '-' (the name is pasted into the replay line), an empty or multi-line bug, no factory, or
// a scenario whose mix, wait or reentry `safetune stress` would not accept.
void add_subjects(std::vector<SubjectInfo> subjects);

}  // namespace safetune::stress
