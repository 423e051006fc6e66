// The reader never crashes: truncations and byte flips of a valid trace give either a Trace or an
// InputError on a line that exists, with a message.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "read_helpers.h"
#include "sample_traces.h"

namespace safetune::model::testing {
namespace {

std::string valid_text() {
  std::ostringstream out;
  write_trace(out, white_box_sample());
  return out.str();
}

int physical_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n')) + (text.empty() || text.back() == '\n' ? 0 : 1);
}

void expect_sane_result(const std::string& text) {
  ReadResult result;
  ASSERT_NO_THROW(result = read_text(text));
  if (const auto* error = std::get_if<InputError>(&result)) {
    EXPECT_GE(error->line, 1);
    EXPECT_LE(error->line, physical_lines(text)) << error->show();
    EXPECT_FALSE(error->message.empty());
    // Tools print messages inside JSON reports: a message must be valid UTF-8.
    EXPECT_NO_THROW((void)nlohmann::json(error->message).dump()) << error->show();
  } else {
    const Trace& trace = std::get<Trace>(result);
    EXPECT_TRUE(std::is_sorted(trace.events.begin(), trace.events.end(),
                               [](const Event& a, const Event& b) { return a.seq < b.seq; }));
  }
}

TEST(ReaderRobustness, EveryTruncationIsHandled) {
  const std::string text = valid_text();
  for (std::size_t size = 0; size <= text.size(); ++size) {
    SCOPED_TRACE("truncated to " + std::to_string(size));
    expect_sane_result(text.substr(0, size));
  }
}

TEST(ReaderRobustness, TruncationAtALineEndKeepsTheEventsBeforeIt) {
  const std::string text = valid_text();
  const std::size_t third_line_end = text.find('\n', text.find('\n', text.find('\n') + 1) + 1);
  const ReadResult result = read_text(text.substr(0, third_line_end + 1));
  ASSERT_TRUE(std::holds_alternative<Trace>(result));
  EXPECT_EQ(std::get<Trace>(result).events.size(), 2u);
}

TEST(ReaderRobustness, RandomByteFlipsAreHandled) {
  const std::string text = valid_text();
  std::mt19937 random(7);
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string mutated = text;
    for (int flips = 1 + static_cast<int>(random() % 3); flips > 0; --flips)
      mutated[random() % mutated.size()] = static_cast<char>(random() % 256);
    SCOPED_TRACE("round " + std::to_string(round));
    expect_sane_result(mutated);
    rejected += std::holds_alternative<InputError>(read_text(mutated)) ? 1 : 0;
  }
  EXPECT_GT(rejected, 0) << "no mutation was rejected: the reader checks nothing";
}

TEST(ReaderRobustness, HostileLinesAreHandled) {
  for (const std::string& line :
       {std::string(100000, '['), std::string("\0\0\0", 3), std::string("\xff\xfe{}"), std::string("{\"seq\":1e999999}"),
        std::string("{\"seq\":-9223372036854775809}"), std::string("{\"seq\":1,\"thread\":\"\xc3\"}"), std::string("null"),
        std::string("{\"format\":null}"), std::string("{\"format\":\"safetune-trace\",\"version\":18446744073709551616}")}) {
    expect_sane_result(line + "\n");
  }
}

}  // namespace
}  // namespace safetune::model::testing
