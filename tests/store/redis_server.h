// A real redis-server for a test, on a Unix socket in a fresh directory, with its own config: AOF
// on and fsynced at every write (a restart loses no published entry), no RDB snapshots, no TCP.
// Stopped with SIGKILL, and reaped, when the object goes.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "impl/posix/temp_directory.h"
#include "impl/store/redis/redis_connection.h"
#include "impl/store/results_store.h"

namespace safetune::testing {

class RedisServer {
 public:
  RedisServer() : directory_("safetune-redis") {
    std::ofstream(config_path()) << "port 0\nunixsocket " << socket_path() << "\nunixsocketperm 700\ndir "
                                 << directory_.path() << "\nappendonly yes\nappendfsync always\nsave \"\"\n"
                                 << "daemonize no\nlogfile " << directory_.path() << "/redis.log\n";
    start();
  }
  ~RedisServer() { stop(); }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  std::string socket_path() const { return directory_.path() + "/redis.sock"; }
  std::string address() const { return "unix://" + socket_path(); }
  RedisAddress parsed() const { return RedisAddress::parse(address()); }
  void pause() const { ::kill(pid_, SIGSTOP); }
  void resume() const { ::kill(pid_, SIGCONT); }
  // SIGKILL, then the same server again on the same data (its AOF).
  void kill_and_restart() {
    stop();
    start();
  }

 private:
  std::string config_path() const { return directory_.path() + "/redis.conf"; }

  void start() {
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::execl(SAFETUNE_REDIS_SERVER_PATH, "redis-server", config_path().c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (;;) {
      try {
        RedisConnection probe(parsed(), {});
        probe.command({"PING"});
        return;
      } catch (const StoreError& e) {
        if (std::chrono::steady_clock::now() > deadline)
          throw std::runtime_error(std::string("redis-server did not answer within 20 s: ") + e.what());
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }

  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    ::unlink(socket_path().c_str());
  }

  posix::TempDirectory directory_;
  pid_t pid_ = -1;
};

}  // namespace safetune::testing
