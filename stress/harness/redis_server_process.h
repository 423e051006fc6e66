// A redis-server of our own, on a Unix socket in a fresh temporary directory, with its own config:
// AOF on and fsynced at every write (a restart loses no published entry), no RDB snapshots, no
// TCP. Started by the constructor (it answers a PING by then), stopped with SIGKILL, and reaped,
// when the object goes. The tests' server (tests/store/redis_server.h), and the one a stress run
// starts for --restart-store, which it kills and starts again between the generations.
#pragma once

#include <sys/types.h>

#include <string>

#include "impl/posix/temp_directory.h"
#include "impl/store/redis/redis_address.h"

namespace safetune::stress {

class RedisServerProcess {
 public:
  // std::runtime_error when the server cannot be started or does not answer within 20 s.
  RedisServerProcess();
  ~RedisServerProcess() { stop(); }
  RedisServerProcess(const RedisServerProcess&) = delete;
  RedisServerProcess& operator=(const RedisServerProcess&) = delete;

  std::string socket_path() const { return directory_.path() + "/redis.sock"; }
  std::string address() const { return "unix://" + socket_path(); }
  RedisAddress parsed() const { return RedisAddress::parse(address()); }
  void pause() const;
  void resume() const;
  // SIGKILL, then the same server again on the same data (its AOF).
  void kill_and_restart() {
    stop();
    start();
  }

 private:
  std::string config_path() const { return directory_.path() + "/redis.conf"; }
  void start();
  void stop();

  posix::TempDirectory directory_;
  pid_t pid_ = -1;
};

}  // namespace safetune::stress
