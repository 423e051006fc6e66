// The parsed, validated options of each command. Parsing (cli.h) guarantees the invariants
// stated here, so the commands never re-check them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/event.h"
#include "stress/harness/program.h"

namespace safetune::stress {

struct StressOptions {
  std::string program = "safetune";   // the command the replay line starts with (run_cli.h)
  std::string subject = "reference";  // a name find_subject() knows
  bool device_given = false;          // false: the default device was chosen (and said so)
  std::string device = "sim";         // "sim" or "cuda" (cuda only in a build with CUDA)
  std::string device_reason;          // when !device_given: why `device` is the default
  ProgramShape shape;                 // every count >= 1
  std::string mix_name = "plain";     // one of mix_names(); default: the subject's scenario
  ProgramMix mix;
  std::string wait_name = "block";    // "block" or "fallback"; `wait` is its value (default:
                                      // the subject's scenario, as for reentry_name)
  std::string reentry_name = "error"; // "error" or "fallback"; `reentry` is its value
  model::WaitPolicy wait = model::WaitPolicy::Block;
  model::ReentryPolicy reentry = model::ReentryPolicy::Error;
  bool bench_lock = false;            // share one BenchLock between the subject's benchmarks
  std::optional<double> seconds;     // > 0: repeated rounds until this much time has passed
  std::optional<std::uint64_t> round; // run only this round of the seed (replays a --seconds run)
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::optional<std::string> trace_path;   // writable (checked before the run)
  std::optional<std::string> chrome_path;  // writable (checked before the run)
  bool json = false;
  bool print_program = false;
  double watchdog_seconds = 2;        // > 0; the reference never stalls this long (tsan, 2 cores)
  int processes = 1;                  // worker processes per generation, each with `threads` threads
  int hosts = 1;                      // groups of `processes` with host names of their own (> 1
                                      // needs a Redis store: a directory is one machine's)
  std::optional<std::string> store;   // a directory store shared by the processes (round-N/ in it),
                                      // or a Redis server's address (a namespace per round in it)
  bool temporary_store = false;       // the scenario wants a store and --store named none: the run
                                      // makes a fresh temporary one (run_stress)
  bool restart = false;               // a second generation on the same store (needs `store`)
  double kill_owners = 0;             // in [0, 1]: the chance that a worker process is killed
                                      // (SIGKILL) in one of its benches; > 0 needs worker processes
  double pause_owners = 0;            // in [0, 1]: the chance that a worker process is stopped
                                      // (SIGSTOP) in one of its benches past the lease, then
                                      // continued; > 0 needs worker processes
  double stall_owners = 0;            // in [0, 1]: the chance that a worker process's owner sleeps
                                      // in one of its benches for as long as a pause, its process
                                      // running on (a slow benchmark); > 0 needs worker processes
  bool damage_store = false;          // damage the entries between generations (needs `restart`)

  // The run forks worker processes (process_round.h): several, or one on a store.
  bool restart_store = false;         // the run's own redis-server, killed and started again on its
                                      // data between the generations (needs `restart`, no `store`)
  bool store_down = false;            // a Redis store with no server at all (round_store.h); not
                                      // with `store` or `restart`
  bool store_failure_fails = false;   // --store-failure fail: the reference's store-failure policy
                                      // is fail (a call whose store step fails raises StoreFailed)
                                      // rather than tune locally; needs a store
  bool own_redis = false;             // --own-redis, or a scenario that wants a Redis store when
                                      // --store names none: each round starts a redis-server of
                                      // its own (round_store.h)
  bool forks_workers() const {
    return processes > 1 || hosts > 1 || store || temporary_store || store_down || restart_store || own_redis;
  }
};

struct CheckOptions {
  std::vector<std::string> trace_paths;  // one trace, or the files of the processes of one run
  std::optional<std::string> chrome_path;
  bool json = false;
};

}  // namespace safetune::stress
