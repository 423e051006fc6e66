// `safetune stress --store redis://... | unix://...`, with `--hosts`: worker processes of several
// hosts on one real redis-server (redis_server.h), their traces merged and checked as one run, so
// that successful_tunings counts tunings per cluster (stress/harness/round_store.h).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "impl/store/redis/redis_connection.h"
#include "tests/store/redis_server.h"
#include "tests/store/stress_json.h"
#include "tests/stress/pause_gate_probe.h"
#include "tests/stress/run_binary.h"

namespace safetune::stress {
namespace {

using safetune::testing::RedisServer;
using testing::CommandResult;
using testing::run_safetune;
constexpr auto run_json = testing::run_stress_json;

long long keys_on(const RedisServer& server) {
  RedisConnection connection(server.parsed(), {});
  return connection.command({"DBSIZE"}).integer;
}

TEST(StressRedis, HostsOnOneServerTuneEachKeyOnceInEverySeed) {
  RedisServer server;
  for (int seed = 1; seed <= 5; ++seed) {
    const auto json = run_json("--hosts 3 --processes 4 --threads 4 --keys 4 --calls 50 --store " + server.address() +
                                   " --seed " + std::to_string(seed), 0);
    EXPECT_EQ(json.at("verdict"), "pass") << "seed " << seed;
    EXPECT_EQ(json.at("successful_tunings"), 4) << "seed " << seed;
    EXPECT_EQ(json.at("duplicate_tunings"), 0) << "seed " << seed;
    EXPECT_EQ(json.at("total_calls"), 3 * 4 * 4 * 50) << "every host's processes are in the one trace";
    EXPECT_EQ(json.at("hosts"), 3);
  }
  EXPECT_EQ(keys_on(server), 0) << "each round's namespace is deleted when it ends";
}

// Invalidations racing loads and publications across hosts, nested tuning and re-entry: the
// views and the graph of waits on the server (docs/store.md) order the first and refuse a cycle
// through two processes, so no mix is flagged and no call hangs.
TEST(StressRedis, EveryMixPassesAcrossHosts) {
  RedisServer server;
  for (const std::string mix : {"full", "nested", "reentry"}) {
    for (int seed = 1; seed <= 3; ++seed) {
      const auto json = run_json("--hosts 2 --processes 2 --threads 4 --keys 4 --configs 8 --calls 100 --mix " + mix +
                                     " --store " + server.address() + " --seed " + std::to_string(seed), 0);
      EXPECT_EQ(json.at("verdict"), "pass") << mix << " seed " << seed << ": " << json.dump();
      EXPECT_EQ(json.at("hung_calls"), 0) << mix << " seed " << seed;
    }
  }
}

// The trace names each process by its host. A run deletes its rounds' namespaces, and only them:
// what others keep under the same server and namespace prefix stays.
TEST(StressRedis, ProcessesAreNamedByTheirHostAndOnlyTheRunsOwnKeysAreDeleted) {
  RedisServer server;
  RedisConnection(server.parsed(), {}).command({"SET", "shared:entry:someone-else", "kept"});
  const std::string trace = testing::temp_path("hosts.jsonl");
  const auto json = run_json("--hosts 2 --processes 2 --threads 2 --keys 2 --calls 20 --seed 4 --trace " + trace +
                                 " --store " + server.address() + "#shared", 0);
  EXPECT_EQ(json.at("successful_tunings"), 2);
  std::ifstream in(trace);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"process\":\"host-0/0\""), std::string::npos);
  EXPECT_NE(text.find("\"process\":\"host-1/3\""), std::string::npos);
  EXPECT_EQ(keys_on(server), 1);
  EXPECT_EQ(RedisConnection(server.parsed(), {}).command({"GET", "shared:entry:someone-else"}).text, "kept");
}

TEST(StressRedis, ARestartTunesNothingThatTheFirstGenerationPublished) {
  RedisServer server;
  const auto json = run_json("--hosts 2 --processes 2 --threads 2 --keys 3 --configs 8 --calls 20 --restart --seed 7 --store " +
                                 server.address(), 0);
  EXPECT_EQ(json.at("successful_tunings"), 3);
  EXPECT_EQ(json.at("benches"), 3 * 8);  // the second generation benched nothing
  EXPECT_GE(json.at("loads"), 4 * 3);    // each of its processes loaded each key
}

// Seeds 1 to 4, and more (up to 12) until the fault was injected: whether a process drawn to be
// killed or paused owns an attempt (and so reaches its fault's bench) is the schedule's, and one
// process may own every key of a round; 4 seeds alone missed every fault about once in 20 runs.
bool more_seeds(int seed, int faults) { return seed <= 4 || (faults == 0 && seed <= 12); }

// An owner killed mid-bench holds its lease until it runs out (a quarter of the watchdog's
// limit): then a waiter takes over, every process ends, and each key has one successful tuning.
TEST(StressRedis, OwnersKilledMidBenchAreTakenOverWhenTheirLeaseRunsOut) {
  RedisServer server;
  int killed = 0;
  for (int seed = 1; more_seeds(seed, killed); ++seed) {
    const auto json = run_json("--hosts 2 --processes 3 --threads 3 --keys 3 --configs 8 --calls 30 --kill-owners 0.5 --seed " +
                                   std::to_string(seed) + " --store " + server.address(), 0);
    EXPECT_EQ(json.at("verdict"), "pass") << "seed " << seed;
    EXPECT_EQ(json.at("successful_tunings"), 3) << "seed " << seed;
    EXPECT_EQ(json.at("duplicate_tunings"), 0) << "seed " << seed;
    EXPECT_EQ(json.at("hung_calls"), 0) << "seed " << seed;
    killed += json.at("killed_processes").get<int>();
  }
  EXPECT_GT(killed, 0) << "no seed killed an owner: the fault was not injected";
}

// An owner stopped (SIGSTOP) mid-bench for twice its lease: another process takes the attempt
// over, and the paused one, continued, is fenced off: its attempt ends as lease_lost, never
// published (else the model's deferred R2 or R12), and each key has one successful tuning.
TEST(StressRedis, PausedOwnersAreFencedOffAndTheirAttemptsEndAsLeaseLost) {
  RedisServer server;
  int paused = 0;
  for (int seed = 1; more_seeds(seed, paused); ++seed) {
    const auto json = run_json("--hosts 2 --processes 3 --threads 4 --keys 4 --calls 30 --pause-owners 0.5 --seed " +
                                   std::to_string(seed) + " --store " + server.address(), 0);
    EXPECT_EQ(json.at("verdict"), "pass") << "seed " << seed;
    EXPECT_EQ(json.at("successful_tunings"), 4) << "seed " << seed;
    EXPECT_EQ(json.at("duplicate_tunings"), 0) << "seed " << seed;
    EXPECT_GE(json.at("lost_leases"), json.at("paused_processes")) << "seed " << seed << ": each paused owner lost its lease";
    paused += json.at("paused_processes").get<int>();
  }
  EXPECT_GT(paused, 0) << "no seed paused an owner: the fault was not injected";
}

// What a --pause-owners worker opens on Redis (process_round.cpp): the round's store, handed the
// worker's gate. Its views (leases on the server) must be steps of the gate's, or a stop can fall
// inside one (stress/harness/pause_gate.h).
TEST(StressRedis, TheRoundsStoreOpenedWithThePauseGateGatesItsViews) {
  RedisServer server;
  EXPECT_FALSE(testing::rounds_gated_store_stops_inside_a_view(server.address()))
      << "the round's Redis store let the process stop while it held a view";
}

// An owner that sleeps mid-bench for twice its lease, its process running on (a slow benchmark):
// its heartbeat keeps the lease, so no one takes over and nothing is lost, and the trace says so
// (live_owners: a lease lost would then be R2). A stall is sure to strike: with --stall-owners 1
// every process that owns an attempt stalls at a bench of its first, and the run lasts it.
TEST(StressRedis, StalledOwnersKeepTheirLeaseThroughASlowBenchmark) {
  RedisServer server;
  const std::string trace = testing::temp_path("stalled.jsonl");
  const auto json = run_json("--hosts 2 --processes 2 --threads 3 --keys 3 --configs 8 --calls 30 --stall-owners 1 "
                             "--watchdog-seconds 8 --seed 3 --trace " + trace + " --store " + server.address(), 0);
  EXPECT_EQ(json.at("successful_tunings"), 3);
  EXPECT_EQ(json.at("duplicate_tunings"), 0);
  EXPECT_EQ(json.at("lost_leases"), 0);
  EXPECT_GE(json.at("elapsed_s").get<double>(), 4.0) << "no owner stalled for twice its 2 s lease";
  std::ifstream in(trace);
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find("\"live_owners\":true"), std::string::npos) << header;
}

// --restart-store: the run's own redis-server (AOF on, fsynced at every write) is killed with
// SIGKILL between the generations and started again on its data: the second generation loads every
// winner and benches nothing. (With AOF off, the same runs fail by R3: the entries are gone.)
TEST(StressRedis, AServerKilledAndRestartedOnItsAofLosesNoPublishedWinner) {
  for (int seed = 1; seed <= 3; ++seed) {
    const auto json = run_json("--hosts 2 --processes 3 --threads 4 --keys 4 --configs 8 --calls 30 --restart --restart-store --seed " +
                                   std::to_string(seed), 0);
    EXPECT_EQ(json.at("verdict"), "pass") << "seed " << seed;
    EXPECT_EQ(json.at("store_restarts"), 1) << "seed " << seed;
    EXPECT_EQ(json.at("successful_tunings"), 4) << "seed " << seed;
    EXPECT_EQ(json.at("benches"), 4 * 8) << "seed " << seed << ": the second generation benched nothing";
  }
}

// A server that is not there: the run cannot record its workers' store steps, so it is
// incomplete (exit 3), and says which server, rather than passing or blaming the subject.
TEST(StressRedis, NoServerIsAnIncompleteRunThatNamesIt) {
  const std::string socket = testing::temp_path("no-server.sock");
  const CommandResult result = run_safetune("stress --processes 2 --threads 2 --keys 2 --calls 10 --seed 1 --store unix://" + socket);
  EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
  EXPECT_NE(result.err.find(socket), std::string::npos) << result.err;
}

// --store-down: a Redis store with no server at all. Every store step fails at once (no socket),
// each process warns once and tunes locally (the documented policy), every call ends, and each
// process, judged on its own, passes: one tuning per key per process.
TEST(StressRedis, WithTheStoreDownEveryProcessTunesLocallyOnceAndEveryCallEnds) {
  const CommandResult result =
      run_safetune("stress --json --hosts 2 --processes 3 --threads 4 --keys 4 --calls 30 --store-down --seed 3");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json.at("successful_tunings"), 2 * 3 * 4);
  EXPECT_EQ(json.at("duplicate_tunings"), 0) << "none within a process";
  EXPECT_EQ(json.at("hung_calls"), 0);
  EXPECT_EQ(json.at("store_down"), true);
  std::size_t warnings = 0;
  for (auto at = result.err.find("tuning locally"); at != std::string::npos; at = result.err.find("tuning locally", at + 1)) ++warnings;
  EXPECT_EQ(warnings, 2u * 3u) << "one warning per process: " << result.err;
}

// --store-failure fail with no server: each call's store step fails, and the call raises
// StoreFailed, tuning and launching nothing. Each trace shows the call's store_failed, the reason
// the checker needs for the error (R14): without it the run would fail.
TEST(StressRedis, WithTheStoreDownUnderPolicyFailEveryCallRaisesAndNothingIsTuned) {
  const auto json = run_json("--hosts 2 --processes 2 --threads 3 --keys 3 --calls 20 --store-down --store-failure fail --seed 4", 0);
  EXPECT_EQ(json.at("verdict"), "pass");
  EXPECT_EQ(json.at("store_failure"), "fail");
  EXPECT_EQ(json.at("successful_tunings"), 0);
  EXPECT_EQ(json.at("benches"), 0);
  EXPECT_EQ(json.at("hung_calls"), 0);
  EXPECT_GT(json.at("total_calls").get<int>(), 0);
  EXPECT_EQ(json.at("errors"), json.at("total_calls")) << "every call raised";
}

TEST(StressRedis, StoreDownFlagsThatMakeNoSenseAreUsageErrors) {
  EXPECT_EQ(run_safetune("stress --store-down --store /tmp").exit_code, 2);
  EXPECT_EQ(run_safetune("stress --store-down --processes 2 --restart").exit_code, 2);
  EXPECT_EQ(run_safetune("stress --store-down --subject store-last-writer-wins").exit_code, 2);
  EXPECT_EQ(run_safetune("stress --restart-store --processes 2").exit_code, 2);  // needs --restart
  EXPECT_EQ(run_safetune("stress --restart-store --restart --store /tmp").exit_code, 2);
  EXPECT_EQ(run_safetune("stress --restart-store --restart --store-down").exit_code, 2);
  for (const char* flags : {"--store-failure fail", "--store-failure fail --processes 2", "--store-failure maybe --store-down"}) {
    const CommandResult result = run_safetune(std::string("stress ") + flags);
    EXPECT_EQ(result.exit_code, 2) << flags << ": " << result.out << result.err;
    EXPECT_NE(result.err.find("--store-failure"), std::string::npos) << flags << ": " << result.err;
  }
}

// --own-redis: each round starts a redis-server of its own and kills it at its end; a Redis
// store subject's scenario asks for it when --store names no server.
TEST(StressRedis, ARunOnAServerOfItsOwnTunesEachKeyOnce) {
  const auto json = run_json("--own-redis --processes 3 --threads 4 --keys 3 --calls 30 --seconds 1 --seed 5", 0);
  EXPECT_EQ(json.at("verdict"), "pass");
  EXPECT_EQ(json.at("own_redis"), true);
  EXPECT_EQ(json.at("successful_tunings"), 3 * json.at("rounds").get<int>()) << "each round on a fresh server";
  EXPECT_EQ(json.at("duplicate_tunings"), 0);
}

TEST(StressRedis, OwnRedisFlagsThatMakeNoSenseAreUsageErrors) {
  for (const char* flags : {"--own-redis --store /tmp", "--own-redis --store-down", "--own-redis --restart --restart-store",
                            "--own-redis --processes 2 --restart --damage-store", "--own-redis --hosts 2 --subject store-last-writer-wins",
                            "--subject redis-last-writer-wins --store /tmp", "--subject store-stale-lock --store unix:///tmp/no.sock"}) {
    const CommandResult result = run_safetune(std::string("stress ") + flags);
    EXPECT_EQ(result.exit_code, 2) << flags << ": " << result.out << result.err;
    EXPECT_FALSE(result.err.empty()) << flags << ": a usage error names what is wrong";
  }
}

}  // namespace
}  // namespace safetune::stress
