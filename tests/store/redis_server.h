// The tests' real redis-server: the harness's own (stress/harness/redis_server_process.h), on a
// Unix socket in a fresh directory, AOF on and fsynced at every write.
#pragma once

#include "stress/harness/redis_server_process.h"

namespace safetune::testing {

using RedisServer = stress::RedisServerProcess;

}  // namespace safetune::testing
