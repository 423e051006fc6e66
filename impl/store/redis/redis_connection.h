// One connection to a Redis server through hiredis, with bounded connect and read timeouts: a
// server that is down, or stops answering, is a StoreError within the timeout, never a hang.
// Not thread-safe: one thread at a time (RedisStore serializes its shared one).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "impl/store/redis/redis_address.h"

struct redisContext;

namespace safetune {

struct RedisReply {
  enum class Kind { Nil, Integer, String, Status, Array };
  Kind kind = Kind::Nil;
  long long integer = 0;
  std::string text{};  // String and Status
  std::vector<RedisReply> items{};
};

class RedisConnection {
 public:
  struct Timeouts {
    std::chrono::milliseconds connect{1000};
    std::chrono::milliseconds read{1000};
  };
  // Now: connects here (StoreError naming the address and the reason when it cannot within the
  // timeout). AtFirstCommand: connects at the first command, so that a connection can be made
  // while its server is down (the command is then the StoreError).
  enum class Connect { Now, AtFirstCommand };
  RedisConnection(RedisAddress address, Timeouts timeouts, Connect when = Connect::Now);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends one command and returns its reply. StoreError on an error reply, or when the server
  // cannot be reached or does not answer within the read timeout; the connection is then dropped
  // and the next command connects again.
  RedisReply command(const std::vector<std::string_view>& argv);
  // For a connection that subscribed: waits up to `limit` for a pushed message (true if one came).
  bool await_message(std::chrono::milliseconds limit);
  const RedisAddress& address() const { return address_; }

 private:
  void connect();
  [[noreturn]] void fail(const std::string& what);

  RedisAddress address_;
  Timeouts timeouts_;
  redisContext* context_ = nullptr;
};

}  // namespace safetune
