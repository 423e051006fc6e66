// Keeps a Redis store's short leases alive while their holder lives: a view (redis_view.h), the
// graph's lock and the process's liveness key (redis_waits.h). One thread per store renews every
// kept lease every third of the lease, on a connection of its own, until it is given up. A holder
// that is slow (waiting on the server, starved of CPU) so keeps what it holds; one that dies, or
// whose process is paused past the lease (SIGSTOP), loses it within a lease, as it must.
// (A claim renews its own lease: redis_claim.h.)
//
// A liveness key that ran out before its beat (the process was paused past the lease, or cut off
// from the server) may have been taken, by another process's change of the graph of waits, for
// this process's death: its records in the graph, its attempts and its waits, were dropped. Its
// attempts in flight then stand in no cycle that the graph can see: a process waiting on one of
// them, whose owner waits in turn on that process, would wait for ever. So the keeper counts such
// lapses, and a claim taken before one gives up its lease (RedisClaim): its attempt ends as
// `lease_lost`, and its waiters take the key over.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace safetune {

class RedisConnection;
class RedisStore;

class RedisKeeper {
 public:
  enum class Kind {
    LeaseKey,      // a key that holds the holder's token: renewed while it still does
    SharedMember,  // a member of a sorted set scored by when its lease ends: renewed while a member
    Liveness,      // a key set for as long as the process lives: set again at each beat
  };
  explicit RedisKeeper(RedisStore& store);
  ~RedisKeeper();
  RedisKeeper(const RedisKeeper&) = delete;
  RedisKeeper& operator=(const RedisKeeper&) = delete;

  // Renewed from now on, until given up; the thread starts with the first.
  std::uint64_t keep(Kind kind, std::string key, std::string token);
  void give_up(std::uint64_t id);
  // How many times a kept liveness key was found run out at a beat, so far.
  std::uint64_t liveness_lapses() const { return lapses_.load(std::memory_order_acquire); }

 private:
  struct Kept {
    Kind kind;
    std::string key;
    std::string token;
  };
  void beat();
  void keep_living(RedisConnection& connection, const Kept& held, const std::string& lease_ms);

  RedisStore& store_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::uint64_t next_id_ = 0;
  std::map<std::uint64_t, Kept> kept_;
  std::atomic<std::uint64_t> lapses_{0};
  std::thread thread_;  // started by the first keep()
};

}  // namespace safetune
