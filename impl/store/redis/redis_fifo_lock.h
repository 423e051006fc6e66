// A first-in-first-out lock on a Redis server, for the clients of every host: the graph of waits'
// lock (redis_waits.h). Fair, so that no process starves under load: with a lock taken by
// SET NX, every waiter raced at each unlock and one could keep losing past the stress watchdog.
//
// Keys, under the store's namespace NS and the lock's name L:
//   NS:L:queue        a sorted set of turns, each a token scored by a ticket (NS:L:tickets, INCR),
//                     so in the order they were taken. The turn at its head holds the lock
//   NS:L:tickets      the last ticket
//   NS:L:turn:<token> set while the turn's holder lives: set with a lease at the turn's start and
//                     renewed by the store's keeper (redis_keeper.h). A turn whose key ran out is
//                     dropped from the queue by the next check that finds it at the head: its
//                     holder died, or was paused past the lease (SIGSTOP), or gave it up and
//                     could not take it out of the queue (a server fault)
//   NS:L:unlocked     a channel: a turn ended, the next may hold the lock now
// A holder whose turn was dropped holds the lock no longer: a write fenced on its turn
// (Held::set_if_held) fails. A waiter whose turn was dropped takes a new one, at the back.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/store/redis/redis_connection.h"

namespace safetune {

class RedisStore;

class RedisFifoLock {
 public:
  using Command = std::function<RedisReply(const std::vector<std::string_view>&)>;
  // `command` runs one command on the server, on a connection that its caller serializes; `owner`
  // names the turns' holder in their tokens (a process's name).
  RedisFifoLock(RedisStore& store, std::string_view name, std::string owner, Command command);
  RedisFifoLock(const RedisFifoLock&) = delete;
  RedisFifoLock& operator=(const RedisFifoLock&) = delete;

  // The lock, from lock() until destroyed (then the turn ends, and the next may hold it).
  class Held {
   public:
    ~Held();
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    // Sets `key` to `value` only while this turn still holds the lock (one script on the server).
    bool set_if_held(std::string_view key, std::string_view value);

   private:
    friend class RedisFifoLock;
    Held(RedisFifoLock& lock, std::string token, std::uint64_t kept);
    RedisFifoLock& lock_;
    const std::string token_;
    const std::uint64_t kept_;  // the keeper's id of the turn's key
  };
  // Waits for this caller's turn, in the order turns were taken; StoreError when the server fails.
  // Callers serialize their calls (one turn at a time per RedisFifoLock).
  Held lock();

 private:
  enum class Turn : long long { Lost = -1, Waiting = 0, Holds = 1 };
  // Takes a turn at the back of the queue, or checks one taken: whether it holds the lock now.
  Turn check_turn(const std::string& token, bool take);
  // Ends the turn (holding or waiting) and wakes its waiters; never throws: a turn left in the
  // queue is dropped when its key runs out.
  void end_turn(const std::string& token, std::uint64_t kept) noexcept;
  // Until a turn ends, or at most kLongestPause (a turn that runs out sends no message).
  void await_a_turn_ending();
  std::string turn_key(const std::string& token) const;

  RedisStore& store_;
  const std::string queue_key_;
  const std::string tickets_key_;
  const std::string turn_prefix_;
  const std::string unlocked_channel_;
  const std::string owner_;
  const Command command_;
  std::uint64_t turns_ = 0;  // tokens are owner.<turns_>: unique while owner_ is
  std::optional<RedisConnection> unlocks_;  // subscribed to unlocked_channel_
};

}  // namespace safetune
