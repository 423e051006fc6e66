// A build without the Redis store (hiredis was not found when it was configured).
#include <stdexcept>

#include "stress/harness/redis_space.h"

namespace safetune::stress {
namespace {

[[noreturn]] void missing(const RedisAddress& address) {
  throw std::runtime_error(address.show() + ": " + kNoRedisInThisBuild);
}

}  // namespace

bool this_build_has_redis() { return false; }
std::unique_ptr<OwnRedisServer> start_own_redis_server() { missing(RedisAddress::parse("unix:///redis-server")); }
std::unique_ptr<ResultsStore> open_redis_store(const RedisAddress& address, std::chrono::milliseconds, PauseGate*) {
  missing(address);
}
void check_redis_server(const RedisAddress& address) { missing(address); }
void delete_redis_space(const RedisAddress& address) { missing(address); }

}  // namespace safetune::stress
