#include "impl/store/redis/redis_connection.h"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/time.h>

#include <memory>

#include "impl/store/results_store.h"

namespace safetune {

namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  return timeval{.tv_sec = static_cast<time_t>(ms.count() / 1000), .tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000)};
}

RedisReply convert(const redisReply& reply) {
  RedisReply out;
  switch (reply.type) {
    case REDIS_REPLY_INTEGER: out.kind = RedisReply::Kind::Integer; out.integer = reply.integer; break;
    case REDIS_REPLY_STRING: out.kind = RedisReply::Kind::String; out.text.assign(reply.str, reply.len); break;
    case REDIS_REPLY_STATUS: out.kind = RedisReply::Kind::Status; out.text.assign(reply.str, reply.len); break;
    case REDIS_REPLY_ARRAY:
      out.kind = RedisReply::Kind::Array;
      for (std::size_t i = 0; i < reply.elements; ++i) out.items.push_back(convert(*reply.element[i]));
      break;
    default: break;  // nil
  }
  return out;
}

struct ReplyDeleter {
  void operator()(void* reply) const { freeReplyObject(reply); }
};
using ReplyPtr = std::unique_ptr<void, ReplyDeleter>;

}  // namespace

RedisConnection::RedisConnection(RedisAddress address, Timeouts timeouts, Connect when)
    : address_(std::move(address)), timeouts_(timeouts) {
  if (when == Connect::Now) connect();
}

RedisConnection::~RedisConnection() {
  if (context_ != nullptr) redisFree(context_);
}

void RedisConnection::connect() {
  const timeval limit = to_timeval(timeouts_.connect);
  context_ = address_.unix_socket.empty() ? redisConnectWithTimeout(address_.host.c_str(), address_.port, limit)
                                          : redisConnectUnixWithTimeout(address_.unix_socket.c_str(), limit);
  if (context_ == nullptr) throw StoreError("results store " + address_.show() + ": cannot connect: out of memory");
  if (context_->err != 0) fail("cannot connect");
  if (redisSetTimeout(context_, to_timeval(timeouts_.read)) != REDIS_OK) fail("cannot set the read timeout");
}

void RedisConnection::fail(const std::string& what) {
  std::string reason = context_ != nullptr ? context_->errstr : "no connection";
  if (reason.find("Resource temporarily unavailable") != std::string::npos)
    reason = "no answer within the read timeout of " + std::to_string(timeouts_.read.count()) + " ms";
  if (context_ != nullptr) redisFree(context_);
  context_ = nullptr;
  throw StoreError("results store " + address_.show() + ": " + what + ": " + reason);
}

RedisReply RedisConnection::command(const std::vector<std::string_view>& argv) {
  if (context_ == nullptr) connect();
  std::vector<const char*> parts;
  std::vector<std::size_t> sizes;
  for (const std::string_view arg : argv) {
    parts.push_back(arg.data());
    sizes.push_back(arg.size());
  }
  const ReplyPtr reply(redisCommandArgv(context_, static_cast<int>(parts.size()), parts.data(), sizes.data()));
  const std::string name(argv.empty() ? "" : argv.front());
  if (reply == nullptr) fail(name);
  const auto& raw = *static_cast<const redisReply*>(reply.get());
  if (raw.type == REDIS_REPLY_ERROR)
    throw StoreError("results store " + address_.show() + ": " + name + ": " + std::string(raw.str, raw.len));
  return convert(raw);
}

bool RedisConnection::await_message(std::chrono::milliseconds limit) {
  if (context_ == nullptr) connect();
  void* raw = nullptr;
  if (redisGetReplyFromReader(context_, &raw) != REDIS_OK) fail("reading a message");
  if (raw == nullptr) {
    pollfd ready{.fd = context_->fd, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, static_cast<int>(limit.count())) <= 0) return false;
    if (redisBufferRead(context_) != REDIS_OK || redisGetReplyFromReader(context_, &raw) != REDIS_OK) fail("reading a message");
  }
  const ReplyPtr reply(raw);
  return reply != nullptr;
}

}  // namespace safetune
