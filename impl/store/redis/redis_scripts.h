// The Redis store's scripts. Each runs atomically on the server, so each check-then-write below
// is one step that no other client can split.
#pragma once

namespace safetune::redis_scripts {

// KEYS: lease, fence counter. ARGV: lease (ms). A fresh token when the lease was free, else 0.
inline constexpr const char* kClaim = R"(
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
return token)";

// KEYS: lease. ARGV: token, lease (ms). 1 when the lease was still this token's and is renewed.
inline constexpr const char* kRenew = R"(
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0)";

// KEYS: lease, channel. ARGV: token. Gives the lease back if it is still this token's.
inline constexpr const char* kRelease = R"(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[2], 'released')
return 1)";

// KEYS: lease, entry, channel. ARGV: token, text. -1: the lease is not this token's (fenced);
// 0: an entry is there already; 1: published.
inline constexpr const char* kPublish = R"(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('PUBLISH', KEYS[3], 'published')
return 1)";

// KEYS: lease, entry, aside, aside's reason. ARGV: token, reason. As kPublish: -1 fenced; 0 no
// entry; 1 renamed aside with its reason.
inline constexpr const char* kQuarantine = R"(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('RENAME', KEYS[2], KEYS[3])
redis.call('SET', KEYS[4], ARGV[2])
return 1)";

// KEYS: entry, aside. Renames the entry aside when there is one.
inline constexpr const char* kWithdraw = R"(
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
return 1)";

// KEYS: lock. ARGV: token. Deletes the lock if it still holds this token (a lock that ran out
// may be another holder's now).
inline constexpr const char* kUnlock = R"(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1]))";

// A first-in-first-out lock (redis_fifo_lock.h): turns are tokens in a sorted set, scored by their
// ticket; the head holds the lock; a turn lives while its key (turn prefix .. token) does.
// KEYS: queue, tickets. ARGV: token, turn prefix, lease (ms), 'take' or 'check'. 'take' takes a
// turn at the back. 1: this turn holds the lock; 0: it waits; -1: it was dropped (its key ran out).
// Heads whose key ran out are dropped on the way: their holders died or were paused past a lease.
inline constexpr const char* kTurn = R"(
local turn = ARGV[2] .. ARGV[1]
if ARGV[4] == 'take' then
  redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[2]), ARGV[1])
  redis.call('SET', turn, ARGV[1], 'PX', ARGV[3])
elseif not redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('EXISTS', turn) == 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return -1
end
while true do
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if head == ARGV[1] then return 1 end
  if redis.call('EXISTS', ARGV[2] .. head) == 1 then return 0 end
  redis.call('ZREM', KEYS[1], head)
end)";

// KEYS: queue, turn, channel. ARGV: token. Ends the turn, holding or waiting, and says so.
inline constexpr const char* kEndTurn = R"(
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('PUBLISH', KEYS[3], 'unlocked')
return 1)";

// KEYS: queue, value's key. ARGV: token, value. Sets the value only while this turn is the head
// (fencing: a holder paused past its turn's lease writes nothing). 1 when written.
inline constexpr const char* kSetIfFirst = R"(
if redis.call('ZRANGE', KEYS[1], 0, 0)[1] ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
return 1)";

// Views (ResultsStore::view): the Shared holders of an entry's view are the members of a sorted
// set, scored by when their lease ends (the server's clock); the Exclusive holder is a lease key.
// KEYS: exclusive, shared. ARGV: token, lease (ms). 1: this Shared view is held; 0: an Exclusive
// one is held or waited for, try again.
inline constexpr const char* kViewShared = R"(
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local now = redis.call('TIME')
local ends = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[2])
redis.call('ZADD', KEYS[2], ends, ARGV[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1)";

// KEYS: shared. ARGV: token, lease (ms). Renews a Shared view while it is held. 1 when renewed.
inline constexpr const char* kRenewShared = R"(
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local now = redis.call('TIME')
local ends = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], 'XX', ends, ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1)";

// KEYS: exclusive, shared. ARGV: token, lease (ms). 0: another Exclusive view is held; 1: this
// one is taken (no new Shared view begins) but Shared ones are still held, try again; 2: held.
inline constexpr const char* kViewExclusive = R"(
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local now = redis.call('TIME')
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
if redis.call('ZCARD', KEYS[2]) > 0 then return 1 end
return 2)";

}  // namespace safetune::redis_scripts
