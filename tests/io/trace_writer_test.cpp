// The writer, and the round trip read(write(trace)) == trace.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <stdexcept>

#include "read_helpers.h"
#include "sample_traces.h"

namespace safetune::model::testing {
namespace {

std::string written(const Trace& trace) {
  std::ostringstream out;
  write_trace(out, trace);
  return out.str();
}

// Every field but `line`, which the reader sets from the file.
void expect_same_event(const Event& read, const Event& original) {
  EXPECT_EQ(read.seq, original.seq);
  EXPECT_EQ(read.thread, original.thread);
  EXPECT_EQ(read.kind, original.kind);
  EXPECT_EQ(read.kernel, original.kernel);
  EXPECT_EQ(read.key, original.key);
  EXPECT_EQ(read.config, original.config);
  EXPECT_EQ(read.error, original.error);
  EXPECT_EQ(read.time_ns, original.time_ns);
  EXPECT_EQ(read.t_ns, original.t_ns);
  EXPECT_EQ(read.stream, original.stream);
}

void expect_round_trip(const Trace& original) {
  const std::string text = written(original);
  const Trace read = expect_trace(text);
  EXPECT_TRUE(read.header.present);
  EXPECT_EQ(read.header.white_box, original.header.white_box);
  EXPECT_EQ(read.header.fresh_store, original.header.fresh_store);
  EXPECT_EQ(read.header.live_owners, original.header.live_owners);
  EXPECT_EQ(read.header.global_seq, original.header.global_seq);
  EXPECT_EQ(read.header.configs, original.header.configs);
  EXPECT_EQ(read.header.policy.wait, original.header.policy.wait);
  EXPECT_EQ(read.header.policy.reentry, original.header.policy.reentry);
  EXPECT_EQ(read.header.policy.fallback, original.header.policy.fallback);
  EXPECT_EQ(read.header.policy.fallback_by_kernel, original.header.policy.fallback_by_kernel);
  ASSERT_EQ(read.events.size(), original.events.size()) << text;
  for (std::size_t i = 0; i < read.events.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    expect_same_event(read.events[i], original.events[i]);
    EXPECT_EQ(read.events[i].line, static_cast<int>(i) + 2);  // the header is line 1
  }
}

TEST(WriteTrace, WritesFieldsInTheDocumentedOrder) {
  Event event = with_time(with_config(make_event(3, Name::integer(1), EventKind::Bench), "BLOCK=64"), 1500.5);
  event.stream = Name::string("s");
  event.t_ns = 10;
  std::ostringstream out;
  write_event(out, event);
  EXPECT_EQ(out.str(),
            R"({"seq":3,"thread":1,"event":"bench","kernel":"add","key":"k","config":"BLOCK=64","time_ns":1500.5,"stream":"s","t_ns":10})"
            "\n");
}

TEST(WriteTrace, OmitsAbsentFields) {
  std::ostringstream out;
  write_event(out, with_error(make_event(4, Name::string("w"), EventKind::CallEnd), "boom"));
  EXPECT_EQ(out.str(), R"({"seq":4,"thread":"w","event":"call_end","kernel":"add","key":"k","error":"boom"})" "\n");
}

TEST(WriteTrace, AlwaysWritesTheHeader) {
  const std::string text = written(Trace{});
  EXPECT_EQ(text.rfind(R"({"format":"safetune-trace","version":1,)", 0), 0u) << text;
  EXPECT_TRUE(expect_trace(text).header.present);
}

TEST(WriteTrace, RoundTripsAWhiteBoxTrace) { expect_round_trip(white_box_sample()); }

TEST(WriteTrace, RoundTripsABlackBoxTrace) { expect_round_trip(black_box_sample()); }

TEST(WriteTrace, RoundTripsPerKernelFallbacksAndPolicies) {
  Trace trace = black_box_sample();
  trace.header.policy.wait = WaitPolicy::Fallback;
  trace.header.policy.reentry = ReentryPolicy::Fallback;
  trace.header.policy.fallback_by_kernel = {{"add", "A=1"}, {"mul", "A=2,B=3"}};
  expect_round_trip(trace);
}

TEST(WriteTrace, RoundTripsTheHeadersOfSeveralProcesses) {
  Trace trace = white_box_sample();
  trace.header.global_seq = true;
  trace.header.fresh_store = true;
  trace.header.live_owners = true;
  expect_round_trip(trace);
}

TEST(WriteTrace, RefusesAPolicyThatTheFormatCannotHold) {
  Trace trace;
  trace.header.policy.fallback = "A=1";
  trace.header.policy.fallback_by_kernel = {{"add", "A=2"}};
  std::ostringstream out;
  EXPECT_THROW(write_header(out, trace.header), std::invalid_argument);
}

// Random traces: any schema-valid content must survive the round trip exactly.
Trace random_trace(std::mt19937& random) {
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
  Trace trace;
  trace.header.white_box = true;
  std::int64_t seq = -5;
  for (int i = pick(30); i > 0; --i) {
    seq += 1 + pick(1000);
    Name thread = pick(2) ? Name::integer(pick(5) - 2) : Name::string("t\"" + std::to_string(pick(3)) + "\xC3\xA9");
    Event event = make_event(seq, thread, static_cast<EventKind>(pick(11)), "key\n" + std::to_string(pick(4)));
    const std::string config = "A=" + std::to_string(pick(5)) + ",B=x";
    switch (event.kind) {
      case EventKind::Bench: event.config = config; pick(2) ? (void)(event.time_ns = random() / 7.0) : (void)(event.error = "e"); break;
      case EventKind::CallEnd:
      case EventKind::TuneEnd: pick(2) ? (void)(event.config = config) : (void)(event.error = "failed \\ \t"); break;
      case EventKind::Launch: event.config = config; break;
      case EventKind::LaunchFailed: event.config = config; event.error = "refused"; break;
      default: break;
    }
    if (pick(2)) event.t_ns = static_cast<std::int64_t>(random()) * (pick(2) ? 1 : -1);
    if (pick(3) == 0) event.stream = pick(2) ? Name::integer(pick(100)) : Name::string("");
    trace.events.push_back(event);
  }
  return trace;
}

TEST(WriteTrace, RoundTripsRandomTraces) {
  std::mt19937 random(20240601);
  for (int i = 0; i < 200; ++i) {
    SCOPED_TRACE("random trace " + std::to_string(i));
    expect_round_trip(random_trace(random));
  }
}

}  // namespace
}  // namespace safetune::model::testing
