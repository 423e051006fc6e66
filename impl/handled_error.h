// The message of the exception being handled, for a trace or an error text: what() of a
// std::exception, else "unknown exception" (a subject or kernel may throw anything). Call it
// only inside a catch block: it rethrows the current exception to look at it, and catches it again.
#pragma once

#include <exception>
#include <string>

namespace safetune {

inline std::string handled_error_text() {
  try {
    throw;
  } catch (const std::exception& failure) {
    return failure.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace safetune
