#include "json_access.h"

#include <cmath>
#include <limits>

#include "config_text.h"
#include "printable.h"

namespace safetune::model::json {

namespace {

// Fuzzed values can be huge: messages show a prefix.
constexpr std::size_t kMaxShown = 80;

}  // namespace

void fail(std::string message) { throw LineError{std::move(message)}; }

void fail_field(std::string_view path, const std::string& what) { fail(field(path) + ": " + what); }

std::string field(std::string_view path) { return "field \"" + printable(path, kMaxShown) + "\""; }

std::string shown(Value value) { return printable(simdjson::to_string(value), kMaxShown); }

// simdjson's get() writes its result through an out-parameter and returns an error code; these
// wrappers keep that, and the type checks, in one place.
std::int64_t as_int64(Value value, std::string_view path) {
  if (value.type() == simdjson::dom::element_type::UINT64) {
    fail_field(path, shown(value) + " is too large (the largest allowed is 9223372036854775807)");
  }
  std::int64_t number = 0;
  if (value.type() != simdjson::dom::element_type::INT64 || value.get(number)) fail_field(path, shown(value) + " is not an integer");
  return number;
}

std::string_view as_string(Value value, std::string_view path) {
  std::string_view text;
  if (value.get(text)) fail_field(path, shown(value) + " is not a string");
  return text;
}

Object as_object(Value value, std::string_view path) {
  Object object;
  if (value.get(object)) fail_field(path, shown(value) + " is not an object");
  return object;
}

Array as_array(Value value, std::string_view path, std::string_view what) {
  Array array;
  if (value.get(array)) fail_field(path, shown(value) + " is not " + std::string(what));
  return array;
}

bool as_bool(Value value, std::string_view path) {
  bool flag = false;
  if (value.get(flag)) fail_field(path, shown(value) + " is not true or false");
  return flag;
}

Name as_name(Value value, std::string_view path) {
  if (value.is_string()) return Name::string(std::string(as_string(value, path)));
  if (value.is_int64() || value.is_uint64()) return Name::integer(as_int64(value, path));
  fail_field(path, shown(value) + " is not an integer or a string");
}

std::string as_config(Value value, std::string_view path) {
  std::string text(as_string(value, path));
  if (auto problem = config_text_problem(text)) fail_field(path, shown(value) + " is not a canonical config: " + *problem);
  return text;
}

double as_time_ns(Value value, std::string_view path) {
  if (!value.is_number()) fail_field(path, shown(value) + " is not a number");
  double time = 0;
  if (value.get(time)) fail_field(path, shown(value) + " is not a number");
  if (!std::isfinite(time)) fail_field(path, shown(value) + " is not a finite number");
  if (time < 0) fail_field(path, shown(value) + " is negative");
  return time;
}

}  // namespace safetune::model::json
