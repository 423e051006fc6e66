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

}  // namespace safetune::redis_scripts
