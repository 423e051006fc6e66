#include "stress/harness/round_store.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <stdexcept>

#include "impl/store/directory_store.h"
#include "impl/store/redis/redis_address.h"
#include "stress/cli/options.h"
#include "stress/harness/pause_gate.h"

namespace safetune::stress {
namespace {

namespace fs = std::filesystem;

std::string random_run_id() {
  std::random_device entropy;
  const std::uint64_t bits = (std::uint64_t{entropy()} << 32) | entropy();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
  return text;
}

// The round's namespace on the server: NS.<run id>.round-N. Its keys are the round's alone.
RedisAddress round_address(const std::string& store, std::uint64_t round) {
  RedisAddress address = RedisAddress::parse(store);
  address.space += "." + random_run_id() + ".round-" + std::to_string(round);
  return address;
}

}  // namespace

std::chrono::milliseconds stress_lease(const StressOptions& options) {
  const auto quarter = std::chrono::milliseconds(static_cast<std::int64_t>(options.watchdog_seconds * 250));
  return std::clamp(quarter, std::chrono::milliseconds(100), std::chrono::milliseconds(10000));
}

bool names_redis_store(const std::string& store) { return RedisAddress::looks_like_redis(store); }

std::string redis_store_problem(const std::string& store) {
  try {
    const RedisAddress address = RedisAddress::parse(store);
    if (!this_build_has_redis()) return address.show() + ": " + kNoRedisInThisBuild;
    return "";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
}

RoundStore::RoundStore(const StressOptions& options, std::uint64_t round) {
  if (options.store_down) {
    no_server_.emplace("safetune-store-down");
    redis_ = "unix://" + no_server_->path() + "/no-server.sock";
    lease_ = stress_lease(options);
    return;
  }
  if (options.restart_store || options.own_redis) own_server_ = start_own_redis_server();
  const std::optional<std::string> store = own_server_ ? std::optional(own_server_->address()) : options.store;
  if (!store) return;
  if (names_redis_store(*store)) {
    const RedisAddress address = round_address(*store, round);
    check_redis_server(address);  // a run on a server that is not there proves nothing
    redis_ = address.show();
    lease_ = stress_lease(options);
    return;
  }
  // The directory is this command's own: whatever an earlier run left in round-N goes.
  const std::string dir = *store + "/round-" + std::to_string(round);
  fs::remove_all(dir);
  fs::create_directories(dir);
  directory_ = dir;
}

// A namespace left behind costs only space on the server: its removal is best effort, and says so
// when it fails (the run's verdict does not depend on it).
RoundStore::~RoundStore() {
  if (!redis_ || no_server_) return;
  try {
    delete_redis_space(RedisAddress::parse(*redis_));
  } catch (const std::exception& error) {
    std::cerr << "safetune stress: the round's keys were left on the server: " << error.what() << '\n';
  }
}

void RoundStore::restart_server() {
  if (own_server_) own_server_->kill_and_restart();
}

std::unique_ptr<ResultsStore> RoundStore::open(const std::optional<std::string>& journal, PauseGate* gate) const {
  if (directory_ && gate != nullptr) return std::make_unique<PauseGated<DirectoryStore>>(*gate, *directory_, journal);
  if (directory_) return std::make_unique<DirectoryStore>(*directory_, journal);
  if (redis_) return open_redis_store(RedisAddress::parse(*redis_), lease_, gate);
  return nullptr;
}

}  // namespace safetune::stress
