#include "impl/store/redis/redis_fifo_lock.h"

#include <chrono>
#include <utility>

#include "impl/store/redis/redis_keeper.h"
#include "impl/store/redis/redis_scripts.h"
#include "impl/store/redis/redis_store.h"

namespace safetune {

namespace {

using namespace std::chrono_literals;

// How long a waiter waits for a message before it checks its turn again, at most.
constexpr auto kLongestPause = 5ms;

}  // namespace

RedisFifoLock::RedisFifoLock(RedisStore& store, std::string_view name, std::string owner, Command command)
    : store_(store),
      queue_key_(store.address().space + ":" + std::string(name) + ":queue"),
      tickets_key_(store.address().space + ":" + std::string(name) + ":tickets"),
      turn_prefix_(store.address().space + ":" + std::string(name) + ":turn:"),
      unlocked_channel_(store.address().space + ":" + std::string(name) + ":unlocked"),
      owner_(std::move(owner)),
      command_(std::move(command)) {}

std::string RedisFifoLock::turn_key(const std::string& token) const { return turn_prefix_ + token; }

RedisFifoLock::Turn RedisFifoLock::check_turn(const std::string& token, bool take) {
  const std::string lease = std::to_string(store_.options().lease.count());
  return Turn{command_({"EVAL", redis_scripts::kTurn, "2", queue_key_, tickets_key_, token, turn_prefix_, lease,
                        take ? "take" : "check"})
                  .integer};
}

void RedisFifoLock::end_turn(const std::string& token, std::uint64_t kept) noexcept {
  store_.keeper().give_up(kept);
  try {
    command_({"EVAL", redis_scripts::kEndTurn, "3", queue_key_, turn_key(token), unlocked_channel_, token});
  } catch (...) {
  }
}

// A subscription made before the next check cannot miss the message of a turn that ends after it.
void RedisFifoLock::await_a_turn_ending() {
  if (!unlocks_) {
    unlocks_.emplace(store_.address(), RedisConnection::Timeouts{.connect = store_.options().connect_timeout,
                                                                 .read = store_.options().read_timeout});
    unlocks_->command({"SUBSCRIBE", unlocked_channel_});
    return;
  }
  unlocks_->await_message(kLongestPause);
}

RedisFifoLock::Held RedisFifoLock::lock() {
  for (;;) {  // again with a new turn, at the back, when this one was dropped while it waited
    const std::string token = owner_ + "." + std::to_string(turns_++);
    Turn turn = check_turn(token, true);
    // From here the turn's key lives as long as this process does, until the turn ends.
    const std::uint64_t kept = store_.keeper().keep(RedisKeeper::Kind::LeaseKey, turn_key(token), token);
    try {
      while (turn == Turn::Waiting) {
        await_a_turn_ending();
        turn = check_turn(token, false);
      }
    } catch (...) {
      end_turn(token, kept);
      throw;
    }
    if (turn == Turn::Holds) return Held(*this, token, kept);
    end_turn(token, kept);
  }
}

RedisFifoLock::Held::Held(RedisFifoLock& lock, std::string token, std::uint64_t kept)
    : lock_(lock), token_(std::move(token)), kept_(kept) {}

RedisFifoLock::Held::~Held() { lock_.end_turn(token_, kept_); }

bool RedisFifoLock::Held::set_if_held(std::string_view key, std::string_view value) {
  return lock_.command_({"EVAL", redis_scripts::kSetIfFirst, "2", lock_.queue_key_, key, token_, value}).integer == 1;
}

}  // namespace safetune
