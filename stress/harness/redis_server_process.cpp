#include "stress/harness/redis_server_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "impl/store/redis/redis_connection.h"
#include "impl/store/results_store.h"

namespace safetune::stress {

RedisServerProcess::RedisServerProcess() : directory_("safetune-redis") {
  std::ofstream(config_path()) << "port 0\nunixsocket " << socket_path() << "\nunixsocketperm 700\ndir "
                               << directory_.path() << "\nappendonly yes\nappendfsync always\nsave \"\"\n"
                               << "daemonize no\nlogfile " << directory_.path() << "/redis.log\n";
  start();
}

void RedisServerProcess::pause() const { ::kill(pid_, SIGSTOP); }
void RedisServerProcess::resume() const { ::kill(pid_, SIGCONT); }

// The server's path is the one CMake found (SAFETUNE_REDIS_SERVER_PATH).
void RedisServerProcess::start() {
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("redis-server: fork failed");
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
        throw std::runtime_error(std::string(SAFETUNE_REDIS_SERVER_PATH " did not answer within 20 s: ") + e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

void RedisServerProcess::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGCONT);
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  ::unlink(socket_path().c_str());
}

}  // namespace safetune::stress
