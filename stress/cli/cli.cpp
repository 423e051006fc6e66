#include "stress/cli/cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <iostream>
#include <random>

#include "model/policy.h"
#include "stress/cli/number_flags.h"
#include "stress/harness/redis_space.h"
#include "stress/harness/round_store.h"
#include "stress/subjects/subject.h"
#ifdef SAFETUNE_HAS_CUDA
#include "impl/cuda/cuda_probe.h"
#endif

namespace safetune::stress {
namespace {

constexpr int kUsageError = 2;

// Validators return "" when the value is good, else the reason (CLI11 prefixes the flag name).
std::string known_subject(const std::string& name) {
  return find_subject(name) ? "" : "unknown subject '" + name + "' (see `safetune subjects`)";
}

// The name only: whether a CUDA device is usable is asked once, after parsing (device_usable),
// when --processes says where it may be asked.
std::string known_device(const std::string& device) {
  if (device == "sim") return "";
#ifdef SAFETUNE_HAS_CUDA
  if (device == "cuda") return "";
#else
  if (device == "cuda") return "cuda: this build has no CUDA device (built without SAFETUNE_CUDA)";
#endif
  return "unknown device '" + device + "' (expected sim or cuda)";
}

// Probes without creating or truncating anything: a run that ends early leaves no file behind.
// A Redis server's address that this build can use, or a directory store: an existing directory
// that can be written, or one that can be created.
std::string store_location(const std::string& path) {
  if (names_redis_store(path)) return redis_store_problem(path);
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) return "'" + path + "' is not a directory";
    if (::access(path.c_str(), W_OK | X_OK) != 0) return "cannot write in '" + path + "': " + std::strerror(errno);
    return "";
  }
  const std::string parent = std::filesystem::path(path).parent_path().string();
  if (::access(parent.empty() ? "." : parent.c_str(), W_OK | X_OK) != 0)
    return "cannot create '" + path + "': " + std::strerror(errno);
  return "";
}

std::string writable_path(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return "cannot write '" + path + "': " + std::strerror(EISDIR);
    if (::access(path.c_str(), W_OK) != 0) return "cannot write '" + path + "': " + std::strerror(errno);
    return "";
  }
  const std::string parent = std::filesystem::path(path).parent_path().string();
  if (::access(parent.empty() ? "." : parent.c_str(), W_OK | X_OK) != 0)
    return "cannot create '" + path + "': " + std::strerror(errno);
  return "";
}

CLI::Validator validator(std::string (*check)(const std::string&), std::string description) {
  return CLI::Validator([check](std::string& value) { return check(value); }, std::move(description));
}

constexpr std::uint64_t kAnyUint64 = std::numeric_limits<std::uint64_t>::max();
constexpr double kAYear = 365.0 * 24 * 3600;

void add_shape_options(CLI::App& stress, StressOptions& options) {
  ProgramShape& shape = options.shape;
  add_integer_flag(stress, "--threads", shape.threads, 1, 1024, "worker threads, each with its own stream (16)");
  add_integer_flag(stress, "--keys", shape.keys, 1, 100000, "distinct tuning keys (4)");
  add_integer_flag(stress, "--configs", shape.configs, 1, 100000, "configs in the space (16)");
  add_integer_flag(stress, "--calls", shape.calls, 1, 10000000, "calls per thread per round (200)");
}

std::vector<std::string> names_of(const std::array<std::string_view, 2>& names) {
  return {names.begin(), names.end()};
}

void add_policy_options(CLI::App& stress, StressOptions& options) {
  stress.add_option("--wait", options.wait_name, "wait policy: block or fallback (default: the subject's scenario)")
      ->check(CLI::IsMember(names_of(model::kWaitPolicyNames)));
  stress.add_option("--reentry", options.reentry_name, "re-entry policy: error or fallback (default: the subject's scenario)")
      ->check(CLI::IsMember(names_of(model::kReentryPolicyNames)));
  stress.add_option("--mix", options.mix_name,
                    "program mix: plain (calls only), full (invalidations, re-entry, nested "
                    "calls, throwing hooks, failing configs at modest rates), reentry, nested or "
                    "faults (see docs/subjects.md); default: the subject's scenario")
      ->check(CLI::IsMember(mix_names()));
  stress.add_flag("--bench-lock", options.bench_lock,
                  "give the subject a per-device benchmark lock (off by default on sim)");
}

void add_run_options(CLI::App& stress, StressOptions& options) {
  stress.add_option("--subject", options.subject, "subject to stress (reference)")
      ->check(validator(known_subject, "SUBJECT"));
  stress.add_option("--device", options.device,
                    "device: sim or cuda (default: cuda where this build has CUDA and a GPU is "
                    "present, else sim)")
      ->check(validator(known_device, "DEVICE"));
  add_seconds_flag(stress, "--seconds", options.seconds, kAYear,
                   "repeat rounds (fresh autotuner, fresh program) for this long");
  add_integer_flag(stress, "--round", options.round, 0, kAnyUint64, "run only this round of the seed (replays --seconds)");
  add_integer_flag(stress, "--seed", options.seed, 0, kAnyUint64, "program seed (default: random; always printed)");
  add_seconds_flag(stress, "--watchdog-seconds", options.watchdog_seconds, 3600,
                   "a run in which no event is recorded for this long is a hang (2)");
  add_integer_flag(stress, "--processes", options.processes, 1, kMaxProcesses,
                   "worker processes, each with --threads threads, checked as one run (1)");
  add_integer_flag(stress, "--hosts", options.hosts, 1, kMaxHosts,
                   "groups of --processes, each with a host name of its own, on one Redis store (1)");
  stress.add_option("--store", options.store,
                    "the store that the processes share: a directory (each round in DIR/round-N), "
                    "redis://HOST:PORT/NS or unix:///SOCKET[#NS] (each round in a namespace of its own)")
      ->check(validator(store_location, "DIR|redis://HOST:PORT/NS|unix:///SOCKET"));
  stress.add_flag("--restart", options.restart,
                  "after the processes end, run a second generation on the same store (needs --store or --restart-store)");
  add_rate_flag(stress, "--kill-owners", options.kill_owners,
                "the chance that a worker process is killed (SIGKILL) while it benches, its attempt in flight");
  stress.add_flag("--restart-store", options.restart_store,
                  "the processes' store is a redis-server of the run's own (AOF on), killed with SIGKILL between "
                  "the generations of --restart and started again on its data: the second must tune nothing")
      ->needs("--restart")
      ->excludes("--store");
  stress.add_flag("--store-down", options.store_down,
                  "the processes' store is a Redis server that is not there: every store step fails, each process "
                  "tunes locally (the store-failure policy), and each is judged on its own")
      ->excludes("--store")
      ->excludes("--restart")
      ->excludes("--restart-store");
  stress
      .add_option_function<std::string>(
          "--store-failure", [&options](const std::string& policy) { options.store_failure_fails = policy == "fail"; },
          "what the reference does when a store step fails before its key is tuned: tune-locally (the default, "
          "with one warning) or fail (the call raises StoreFailed, naming the key, the store and the failure, "
          "and tunes nothing: the trace shows a store_failed). Needs a store")
      ->check(CLI::IsMember({"tune-locally", "fail"}));
  stress.add_flag("--own-redis", options.own_redis,
                  "the processes' store is a redis-server of the run's own, started for each round on a Unix socket "
                  "in a temporary folder (AOF on) and killed at its end")
      ->excludes("--store")
      ->excludes("--store-down")
      ->excludes("--restart-store");
  add_rate_flag(stress, "--pause-owners", options.pause_owners,
                "the chance that a worker process is stopped (SIGSTOP) while it benches, for twice a Redis lease "
                "(half the watchdog's limit), then continued: a paused owner's lease runs out, and it must not publish");
  add_rate_flag(stress, "--stall-owners", options.stall_owners,
                "the chance that a worker process's owner sleeps in one of its benches for as long as a pause (twice a "
                "Redis lease), its process running on (a slow benchmark): an owner that renews its lease keeps it. With "
                "no --pause-owners, the trace then says live_owners, and a lease lost is a violation");
  stress.add_flag("--damage-store", options.damage_store,
                  "between the generations, truncate, corrupt and swap the published entries")
      ->needs("--restart");
}

void add_output_options(CLI::App& stress, StressOptions& options) {
  stress.add_option("--trace", options.trace_path, "write the JSON Lines trace here")
      ->check(validator(writable_path, "FILE"));
  stress.add_option("--chrome", options.chrome_path, "write a Chrome timeline here")
      ->check(validator(writable_path, "FILE"));
  stress.add_flag("--json", options.json, "print one JSON object instead of the text summary");
  stress.add_flag("--print-program", options.print_program,
                  "print the generated program of each round (stderr) and run it");
}

#ifdef SAFETUNE_HAS_CUDA
// Is a CUDA device usable? A run that forks worker processes asks in a child, since CUDA does not
// survive a fork and the workers use the GPU; any other run asks here, once, as its run will.
cuda::CudaProbe probe_cuda_for(const StressOptions& options) {
  return options.forks_workers() ? cuda::probe_cuda_in_child() : cuda::probe_cuda();
}
#endif

// The device: --device cuda must find a usable device (else a usage error that says why); with
// no --device, cuda when this build has CUDA and the probe finds a device, else sim.
void choose_device(const CLI::App& stress, StressOptions& options) {
  options.device_given = stress.count("--device") > 0;
  if (options.device_given && options.device == "sim") return;
#ifdef SAFETUNE_HAS_CUDA
  const cuda::CudaProbe probe = probe_cuda_for(options);
  if (options.device_given) {
    if (probe.devices == 0) throw CLI::ValidationError("--device", "cuda: no usable CUDA device (" + probe.reason + ")");
    return;
  }
  options.device = probe.devices > 0 ? "cuda" : "sim";
  options.device_reason = probe.devices > 0 ? std::to_string(probe.devices) + " CUDA device(s) found"
                                            : "no usable CUDA device (" + probe.reason + ")";
#else
  options.device = "sim";
  options.device_reason = "no CUDA device in this build";
#endif
}

// The subject's scenario fills in whatever the command line left out.
void apply_scenario(const CLI::App& stress, StressOptions& options) {
  const Scenario& scenario = find_subject(options.subject)->scenario;
  if (stress.count("--mix") == 0) options.mix_name = scenario.mix;
  if (stress.count("--wait") == 0) options.wait_name = scenario.wait;
  if (stress.count("--reentry") == 0) options.reentry_name = scenario.reentry;
  if (stress.count("--processes") == 0) options.processes = scenario.processes;
  options.temporary_store = scenario.store && !scenario.redis && !options.store;
  options.store_down = options.store_down || (scenario.store_down && !options.store && !options.restart_store && !options.own_redis);
  options.own_redis = options.own_redis || (scenario.redis && !options.store && !options.restart_store && !options.store_down);
  options.restart = options.restart || scenario.restart;
  options.damage_store = options.damage_store || scenario.damage_store;
  if (stress.count("--pause-owners") == 0) options.pause_owners = scenario.pause_owners;
  if (stress.count("--stall-owners") == 0) options.stall_owners = scenario.stall_owners;
  if (stress.count("--watchdog-seconds") == 0 && scenario.watchdog_seconds > 0) options.watchdog_seconds = scenario.watchdog_seconds;
  if (scenario.store && !scenario.redis && options.store && names_redis_store(*options.store))
    throw CLI::ValidationError("--store", "subject " + options.subject + "'s scenario runs on a directory store: give --store DIR, or no --store");
  if (scenario.redis && options.store && !names_redis_store(*options.store))
    throw CLI::ValidationError("--store", "subject " + options.subject + "'s scenario runs on a Redis store: give --store redis://HOST:PORT/NS or unix:///SOCKET, or no --store (the run then starts a redis-server of its own)");
}

// What a Redis store cannot do, and what several hosts need.
void check_store_flags(const StressOptions& options) {
  if (options.restart && !options.store && !options.temporary_store && !options.restart_store && !options.own_redis)
    throw CLI::ValidationError("--restart", "needs a store to restart on: give --store DIR|redis://...|unix://... or --restart-store");
  const bool redis = options.store_down || options.restart_store || options.own_redis ||
                     (options.store && names_redis_store(*options.store));
  if (options.hosts > 1 && !redis)
    throw CLI::ValidationError("--hosts", "several hosts share a store only through a server: give --store redis://HOST:PORT/NS or unix:///SOCKET");
  if (options.hosts * options.processes > kMaxProcesses)
    throw CLI::ValidationError("--hosts", "--hosts times --processes is more than " + std::to_string(kMaxProcesses) + " worker processes");
  for (const auto& [flag, given] : {std::pair{"--store-down", options.store_down}, std::pair{"--restart-store", options.restart_store}})
    if (given && !this_build_has_redis())
      throw CLI::ValidationError(flag, kNoRedisInThisBuild);
  if (options.own_redis && !this_build_has_redis())
    throw CLI::ValidationError("--own-redis", std::string("(or subject ") + options.subject + "'s scenario): " + kNoRedisInThisBuild);
  if ((options.store_down || options.restart_store || options.own_redis) && options.temporary_store)
    throw CLI::ValidationError(options.store_down      ? "--store-down"
                               : options.restart_store ? "--restart-store"
                                                       : "--own-redis",
                               "subject " + options.subject + "'s scenario runs on a directory store of its own");
  const bool has_store = options.store || options.temporary_store || options.store_down || options.restart_store || options.own_redis;
  if (options.store_failure_fails && !has_store)
    throw CLI::ValidationError("--store-failure", "fail needs a store: give --store DIR|redis://...|unix://..., --store-down or --own-redis");
  if (redis && options.damage_store)
    throw CLI::ValidationError("--damage-store", "damages a directory store's files; this run's store is a Redis server");
}

void finish_stress_options(CLI::App& stress, StressOptions& options) {
  apply_scenario(stress, options);
  // The faults that strike an owner mid-bench strike worker processes.
  for (const auto& [flag, rate] : {std::pair{"--kill-owners", options.kill_owners}, std::pair{"--pause-owners", options.pause_owners},
                                   std::pair{"--stall-owners", options.stall_owners}})
    if (rate > 0 && !options.forks_workers())
      throw CLI::ValidationError(flag, "needs worker processes: give --processes P or --store DIR");
  check_store_flags(options);
  choose_device(stress, options);
  options.seed_given = stress.count("--seed") > 0;
  if (!options.seed_given) options.seed = (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
  options.mix = mix_named(options.mix_name);
  // Both names are known: the flags are checked against them, and the registry checks every
  // subject's scenario (subject_registry.cpp).
  options.wait = model::parse_wait_policy(options.wait_name).value();
  options.reentry = model::parse_reentry_policy(options.reentry_name).value();
}

void add_check_options(CLI::App& check, CheckOptions& options) {
  check.add_option("TRACE", options.trace_paths,
                   "JSON Lines trace file; - reads standard input; several files are the processes of one run")
      ->required();
  check.add_option("--chrome", options.chrome_path, "write a Chrome timeline here")
      ->check(validator(writable_path, "FILE"));
  check.add_flag("--json", options.json, "print one JSON object");
}

// CLI11 would call an unknown command a missing one; name it instead.
bool is_unknown_command(CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  const std::string name = argv[1];
  const auto named = app.get_subcommands([&name](CLI::App* sub) { return sub->get_name() == name; });
  return named.empty();
}

bool wants_json(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--json") return true;
  return false;
}

// The flag a usage error is about: "--seed" in "--seed: '-1' is not ...", the argument CLI11 did
// not expect, or the missing one; empty when none can be named.
std::string flag_of(const CLI::ParseError& error) {
  const std::string message = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    const auto last = message.find_last_of(' ');
    return last == std::string::npos ? "" : message.substr(last + 1);
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) return message.substr(0, message.find(' '));
  const auto colon = message.find(':');
  if (message.starts_with("-") && colon != std::string::npos) return message.substr(0, colon);
  return "";
}

// On --json, stdout holds one object even for a usage error; the text goes to stderr as always.
void print_usage_error_json(const CLI::ParseError& error) {
  nlohmann::json out{{"verdict", "input_error"}, {"message", error.what()}};
  if (const std::string flag = flag_of(error); !flag.empty()) out["flag"] = flag;
  std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

int usage_error(CLI::App& app, const CLI::ParseError& error, bool json) {
  if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
  if (json) print_usage_error_json(error);
  app.exit(error);
  if (app.get_subcommands().empty()) std::cerr << app.help();
  return kUsageError;
}

}  // namespace

std::variant<ParsedCommand, int> parse_command_line(int argc, const char* const* argv,
                                                    const std::string& program) {
  ParsedCommand parsed;
  CLI::App app{program + ": stress and check autotuners for concurrency bugs", program};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(program + " " + SAFETUNE_VERSION));
  CLI::App* stress = app.add_subcommand("stress", "drive a subject with N threads and check its trace");
  CLI::App* check = app.add_subcommand("check", "check a trace file (JSON Lines v1)");
  CLI::App* subjects = app.add_subcommand("subjects", "list the subjects and their bugs");
  add_shape_options(*stress, parsed.stress);
  add_policy_options(*stress, parsed.stress);
  add_run_options(*stress, parsed.stress);
  add_output_options(*stress, parsed.stress);
  add_check_options(*check, parsed.check);
  const bool json = wants_json(argc, argv);
  if (is_unknown_command(app, argc, argv)) {
    const std::string message = "unknown command '" + std::string(argv[1]) + "'";
    if (json) std::cout << nlohmann::json{{"verdict", "input_error"}, {"message", message}}.dump() << '\n';
    std::cerr << program << ": " << message << '\n' << app.help();
    return kUsageError;
  }
  try {
    app.parse(argc, argv);
    if (stress->parsed()) finish_stress_options(*stress, parsed.stress);
  } catch (const CLI::ParseError& error) {
    return usage_error(app, error, json);
  }
  parsed.command = stress->parsed() ? Command::Stress
                   : check->parsed() ? Command::Check
                                     : Command::Subjects;
  (void)subjects;
  return parsed;
}

}  // namespace safetune::stress
