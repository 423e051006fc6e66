// An input error: the trace (or its file) is not a valid trace. It names the physical line
// (1-based, the header included) when one is to blame, and says what was wrong there.
#pragma once

#include <cstdint>
#include <string>

namespace safetune::model {

struct InputError {
  std::int64_t line = 0;  // 0 when the error is not tied to a line (e.g. an unreadable file)
  std::string message;    // what was wrong, e.g. "seq 4 is not greater than the previous seq 7"
  std::string show() const { return line == 0 ? message : "line " + std::to_string(line) + ": " + message; }
};

}  // namespace safetune::model
