// Typed access to the JSON values of one trace line (simdjson's DOM), for the trace reader.
//
// Every accessor checks the type before it reads, and a failure throws LineError naming the
// field's path and the offending value, e.g. `field "seq": "7" is not an integer`. LineError never
// leaves the reader: read_trace() adds the line number and returns an InputError.
#pragma once

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "event.h"

namespace safetune::model::json {

using Value = simdjson::dom::element;
using Object = simdjson::dom::object;
using Array = simdjson::dom::array;

struct LineError {
  std::string message;
};

[[noreturn]] void fail(std::string message);
[[noreturn]] void fail_field(std::string_view path, const std::string& what);
std::string field(std::string_view path);  // `field "policy.wait"`
std::string shown(Value value);             // the value as JSON, cut when long

std::int64_t as_int64(Value value, std::string_view path);
std::string_view as_string(Value value, std::string_view path);
Object as_object(Value value, std::string_view path);
Array as_array(Value value, std::string_view path, std::string_view what);  // what it should be
bool as_bool(Value value, std::string_view path);
Name as_name(Value value, std::string_view path);          // an integer or a string
std::string as_config(Value value, std::string_view path);  // a canonical config string
double as_time_ns(Value value, std::string_view path);      // finite, not negative

// The fields of an object that a schema knows, found in one pass over it: `names[i]`'s value
// is slot i. A known field that appears twice is an error; other fields are left to `unknown`.
template <std::size_t N>
struct Fields {
  std::array<std::optional<Value>, N> slots{};
  const std::optional<Value>& operator[](std::size_t i) const { return slots[i]; }
};

template <std::size_t N, typename OnUnknown>
Fields<N> collect(Object object, const std::array<std::string_view, N>& names, std::string_view prefix,
                  OnUnknown unknown) {
  Fields<N> found;
  for (auto [key, value] : object) {
    std::size_t i = 0;  // the first byte first: most names differ there, and memcmp is a call
    while (i < N && (names[i].size() != key.size() || names[i][0] != key[0] || names[i] != key)) ++i;
    if (i == N) {
      unknown(key);
      continue;
    }
    if (found.slots[i]) fail(field(std::string(prefix) + std::string(key)) + " appears more than once");
    found.slots[i] = value;
  }
  return found;
}

}  // namespace safetune::model::json
