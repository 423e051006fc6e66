// Small helpers shared by the reader tests: read a trace from text, and expect an input error
// on a given line whose message names the problem.
#pragma once

#include <sstream>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include "model/trace_reader.h"
#include "model/trace_writer.h"

namespace safetune::model::testing {

inline ReadResult read_text(const std::string& text) {
  std::istringstream in(text);
  return read_trace(in);
}

// The trace, or a test failure showing the unexpected input error.
inline Trace expect_trace(const std::string& text) {
  ReadResult result = read_text(text);
  if (auto* error = std::get_if<InputError>(&result)) {
    ADD_FAILURE() << "unexpected input error: " << error->show() << "\nin:\n" << text;
    return {};
  }
  return std::get<Trace>(std::move(result));
}

// Expects an input error on `line` whose message contains every one of `parts`.
template <typename... Parts>
void expect_error(const std::string& text, int line, const Parts&... parts) {
  ReadResult result = read_text(text);
  const auto* error = std::get_if<InputError>(&result);
  ASSERT_NE(error, nullptr) << "accepted, but should be rejected:\n" << text;
  EXPECT_EQ(error->line, line) << error->show();
  for (const std::string& part : {std::string(parts)...})
    EXPECT_NE(error->message.find(part), std::string::npos) << "\"" << part << "\" not in: " << error->show();
}

// One well-formed event line; `extra` is spliced in before the closing brace.
inline std::string event_line(int seq, const std::string& kind, const std::string& extra = "") {
  return R"({"seq":)" + std::to_string(seq) + R"(,"thread":1,"event":")" + kind +
         R"(","kernel":"add","key":"k")" + extra + "}\n";
}

inline const std::string kWhiteBoxHeader = R"({"format":"safetune-trace","version":1,"white_box":true})" "\n";

}  // namespace safetune::model::testing
