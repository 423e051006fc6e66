// Where a Redis store's server is, and the namespace its keys live under (DESIGN.md, "Across
// processes": `--store redis://HOST:PORT/NS` or `unix:///SOCKET`).
//   redis://HOST:PORT/NS   TCP; PORT defaults to 6379 and NS to "safetune"
//   unix:///SOCKET         a Unix socket (an absolute path); NS "safetune"
//   unix:///SOCKET#NS      the same, under namespace NS
// A namespace is letters, digits, '_', '-' and '.': it prefixes every key the store writes.
#pragma once

#include <string>
#include <string_view>

namespace safetune {

struct RedisAddress {
  std::string unix_socket{};  // set for unix://; host and port unused then
  std::string host{};
  int port = 6379;
  std::string space = "safetune";

  // std::invalid_argument naming what is wrong in `text`.
  static RedisAddress parse(std::string_view text);
  static bool looks_like_redis(std::string_view text);  // starts with redis:// or unix://
  std::string show() const;  // as parse() reads it back
};

}  // namespace safetune
