#include "impl/store/redis/redis_address.h"

#include <charconv>
#include <stdexcept>

namespace safetune {

namespace {

constexpr std::string_view kRedis = "redis://";
constexpr std::string_view kUnix = "unix://";

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw std::invalid_argument("store address \"" + std::string(text) + "\": " + why);
}

void check_space(std::string_view text, std::string_view space) {
  if (space.empty()) bad(text, "the namespace is empty");
  for (const char c : space) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok) bad(text, "the namespace \"" + std::string(space) + "\" has '" + std::string(1, c) + "' (only letters, digits, '_', '-' and '.')");
  }
}

// Splits the namespace off `rest` after its first `separator`, into address.space, and returns
// what comes before it.
std::string_view take_space(std::string_view text, std::string_view rest, char separator, RedisAddress& address) {
  const auto at = rest.find(separator);
  if (at == std::string_view::npos) return rest;
  address.space = std::string(rest.substr(at + 1));
  check_space(text, address.space);
  return rest.substr(0, at);
}

RedisAddress parse_unix(std::string_view text) {
  RedisAddress address;
  const std::string_view rest = take_space(text, text.substr(kUnix.size()), '#', address);
  if (rest.empty() || rest.front() != '/') bad(text, "a unix:// address needs an absolute socket path (unix:///path/to/socket)");
  address.unix_socket = std::string(rest);
  return address;
}

RedisAddress parse_tcp(std::string_view text) {
  RedisAddress address;
  std::string_view rest = take_space(text, text.substr(kRedis.size()), '/', address);
  if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    const std::string_view port = rest.substr(colon + 1);
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), address.port);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() || address.port < 1 || address.port > 65535)
      bad(text, "the port \"" + std::string(port) + "\" is not a number from 1 to 65535");
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) bad(text, "the host is empty (redis://HOST:PORT/NAMESPACE)");
  address.host = std::string(rest);
  return address;
}

}  // namespace

bool RedisAddress::looks_like_redis(std::string_view text) { return text.starts_with(kRedis) || text.starts_with(kUnix); }

RedisAddress RedisAddress::parse(std::string_view text) {
  if (text.starts_with(kUnix)) return parse_unix(text);
  if (text.starts_with(kRedis)) return parse_tcp(text);
  bad(text, "is neither redis://HOST:PORT/NAMESPACE nor unix:///SOCKET");
}

std::string RedisAddress::show() const {
  if (!unix_socket.empty()) return std::string(kUnix) + unix_socket + (space == "safetune" ? "" : "#" + space);
  return std::string(kRedis) + host + ":" + std::to_string(port) + "/" + space;
}

}  // namespace safetune
