// Event lines of a JSON Lines v1 trace: one test per input rule (docs/trace-format.md).
#include <gtest/gtest.h>

#include "read_helpers.h"

namespace safetune::model::testing {
namespace {

std::string two_calls(const std::string& second_extra) {
  return event_line(1, "call_begin") + event_line(2, "call_end", R"(,"config":"A=1")" + second_extra);
}

TEST(ReadEvent, ReadsEveryField) {
  const Trace trace = expect_trace(
      R"({"seq":5,"thread":"w1","event":"bench","kernel":"add","key":"k","config":"A=1","time_ns":12.5,"t_ns":-3,"stream":7})"
      "\n");
  ASSERT_EQ(trace.events.size(), 1u);
  const Event& event = trace.events[0];
  EXPECT_EQ(event.seq, 5);
  EXPECT_EQ(event.thread, Name::string("w1"));
  EXPECT_EQ(event.kind, EventKind::Bench);
  EXPECT_EQ(event.kernel, "add");
  EXPECT_EQ(event.key, "k");
  EXPECT_EQ(event.config, "A=1");
  EXPECT_EQ(event.error, std::nullopt);
  EXPECT_EQ(event.time_ns, 12.5);
  EXPECT_EQ(event.t_ns, -3);
  EXPECT_EQ(event.stream, Name::integer(7));
  EXPECT_EQ(event.line, 1);
}

TEST(ReadEvent, ReadsTheProcessAThreadBelongsTo) {
  const Trace trace = expect_trace(R"({"seq":1,"process":"rank3","thread":1,"event":"call_begin","kernel":"a","key":"b"})" "\n"
                                   R"({"seq":2,"process":3,"thread":1,"event":"call_begin","kernel":"a","key":"b"})" "\n"
                                   R"({"seq":3,"thread":1,"event":"call_begin","kernel":"a","key":"b"})" "\n");
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.events[0].process, Name::string("rank3"));
  EXPECT_EQ(trace.events[1].process, Name::integer(3));
  EXPECT_EQ(trace.events[2].process, std::nullopt);
  EXPECT_NE(thread_of(trace.events[0]), thread_of(trace.events[1]));  // "3" and 3 are two processes
  EXPECT_NE(thread_of(trace.events[1]), thread_of(trace.events[2]));
}

TEST(ReadEvent, RejectsAProcessThatIsNeitherAnIntegerNorAString) {
  expect_error(R"({"seq":1,"process":[1],"thread":1,"event":"call_begin","kernel":"a","key":"b"})" "\n", 1,
               "field \"process\"", "not an integer or a string");
}

TEST(ReadEvent, ALoadCarriesAConfigAnErrorOrBoth) {
  const Trace trace = expect_trace(event_line(1, "load", R"(,"config":"A=1")") +
                                   event_line(2, "load", R"(,"error":"truncated")") +
                                   event_line(3, "load", R"(,"config":"A=1","error":"foreign fingerprint")"));
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.events[0].kind, EventKind::Load);
  EXPECT_EQ(trace.events[1].error, "truncated");
  EXPECT_EQ(trace.events[2].config, "A=1");
  expect_error(event_line(1, "load"), 1, "a load carries \"config\" or \"error\", and this one has neither");
  expect_error(event_line(1, "load", R"(,"config":"A=1","time_ns":3)"), 1, "\"time_ns\" is not allowed on a load");
}

TEST(ReadEvent, AnExitNamesNoKernelOrKey) {
  const Trace trace = expect_trace(R"({"seq":1,"process":7,"thread":1,"event":"exit"})" "\n"
                                   R"({"seq":2,"process":8,"thread":1,"event":"exit","kernel":"a","key":"b"})" "\n");
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events[0].kind, EventKind::Exit);
  EXPECT_EQ(trace.events[1].kernel, "");  // given, and ignored
  expect_error(R"({"seq":1,"thread":1,"event":"exit","config":"A=1"})" "\n", 1, "\"config\" is not allowed on an exit");
}

TEST(ReadHeader, SeqScopeGlobalSaysTheFilesShareOneCounter) {
  EXPECT_TRUE(expect_trace(R"({"format":"safetune-trace","version":1,"seq_scope":"global"})" "\n").header.global_seq);
  EXPECT_FALSE(expect_trace(R"({"format":"safetune-trace","version":1,"seq_scope":"file"})" "\n").header.global_seq);
  expect_error(R"({"format":"safetune-trace","version":1,"seq_scope":1})" "\n", 1, "field \"seq_scope\"", "not a string");
}

TEST(ReadEvent, RecordsPhysicalLinesSkippingBlankOnes) {
  const Trace trace = expect_trace(kWhiteBoxHeader + "\n  \t\r\n" + event_line(1, "call_begin") + "\n" +
                                   event_line(2, "invalidate"));
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events[0].line, 4);
  EXPECT_EQ(trace.events[1].line, 6);
}

TEST(ReadEvent, AcceptsCrLfLineEnds) {
  const Trace trace = expect_trace("{\"seq\":1,\"thread\":1,\"event\":\"call_begin\",\"kernel\":\"a\",\"key\":\"b\"}\r\n");
  EXPECT_EQ(trace.events.size(), 1u);
}

TEST(ReadEvent, UnknownFieldsAreIgnored) {
  const Trace trace = expect_trace(event_line(1, "call_begin", R"(,"pid":9,"note":{"deep":[1,2]})"));
  EXPECT_EQ(trace.events.size(), 1u);
}

TEST(ReadEvent, RejectsInvalidJson) { expect_error(event_line(1, "call_begin") + "{\"seq\":2,\n", 2, "invalid JSON"); }

TEST(ReadEvent, RejectsLineThatIsNotAnObject) { expect_error("[1,2]\n", 1, "expected a JSON object", "[1,2]"); }

TEST(ReadEvent, RejectsMissingRequiredFields) {
  for (const char* name : {"seq", "thread", "event", "kernel", "key"}) {
    std::string line = R"({"seq":1,"thread":1,"event":"call_begin","kernel":"add","key":"k"})";
    const std::string quoted = "\"" + std::string(name) + "\"";
    line.replace(line.find(quoted), quoted.size(), "\"other\"");
    expect_error(line + "\n", 1, quoted, "missing");
  }
}

TEST(ReadEvent, SeqMustBeAnInteger) {
  expect_error(R"({"seq":1.5,"thread":1,"event":"call_begin","kernel":"a","key":"b"})" "\n", 1, "\"seq\"", "1.5", "not an integer");
  expect_error(R"({"seq":"1","thread":1,"event":"call_begin","kernel":"a","key":"b"})" "\n", 1, "\"seq\"", "\"1\"");
}

TEST(ReadEvent, SeqMustFitInSixtyFourBits) {
  expect_error(R"({"seq":18446744073709551615,"thread":1,"event":"call_begin","kernel":"a","key":"b"})" "\n", 1,
               "\"seq\"", "too large");
}

TEST(ReadEvent, SeqMustStrictlyIncrease) {
  const std::string text = event_line(7, "call_begin") + event_line(9, "invalidate") + event_line(3, "call_begin");
  expect_error(text, 3, "field \"seq\": 3 is not greater than the previous seq 9");
  expect_error(event_line(7, "call_begin") + event_line(7, "invalidate"), 2, "7 is not greater than the previous seq 7");
}

TEST(ReadEvent, ThreadOneAndStringOneDiffer) {
  const Trace trace = expect_trace(R"({"seq":1,"thread":1,"event":"invalidate","kernel":"a","key":"b"})" "\n"
                                   R"({"seq":2,"thread":"1","event":"invalidate","kernel":"a","key":"b"})" "\n");
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events[0].thread, Name::integer(1));
  EXPECT_EQ(trace.events[1].thread, Name::string("1"));
  EXPECT_NE(trace.events[0].thread, trace.events[1].thread);
}

TEST(ReadEvent, RejectsThreadOfAnotherType) {
  expect_error(R"({"seq":1,"thread":true,"event":"invalidate","kernel":"a","key":"b"})" "\n", 1, "\"thread\"", "true");
  expect_error(R"({"seq":1,"thread":1.5,"event":"invalidate","kernel":"a","key":"b"})" "\n", 1, "\"thread\"", "1.5");
}

TEST(ReadEvent, RejectsUnknownEventName) { expect_error(event_line(1, "call_start"), 1, "\"event\"", "call_start"); }

TEST(ReadEvent, RejectsKernelAndKeyThatAreNotStrings) {
  expect_error(R"({"seq":1,"thread":1,"event":"invalidate","kernel":3,"key":"b"})" "\n", 1, "\"kernel\"", "not a string");
  expect_error(R"({"seq":1,"thread":1,"event":"invalidate","kernel":"a","key":[]})" "\n", 1, "\"key\"", "not a string");
}

TEST(ReadEvent, RejectsNonCanonicalConfig) {
  expect_error(event_line(1, "launch", R"(,"config":"WARPS=4,BLOCK=64")"), 1, "\"config\"",
               "canonical form is \"BLOCK=64,WARPS=4\"");
  expect_error(event_line(1, "launch", R"(,"config":4)"), 1, "\"config\"", "not a string");
}

TEST(ReadEvent, RejectsErrorThatIsNotAString) {
  expect_error(event_line(1, "call_end", R"(,"error":{"code":1})"), 1, "\"error\"", "not a string");
}

TEST(ReadEvent, TimeMustBeANonNegativeNumber) {
  const Trace trace = expect_trace(event_line(1, "bench", R"(,"config":"A=1","time_ns":0)"));
  EXPECT_EQ(trace.events.at(0).time_ns, 0.0);
  expect_error(event_line(1, "bench", R"(,"config":"A=1","time_ns":-1)"), 1, "\"time_ns\"", "negative");
  expect_error(event_line(1, "bench", R"(,"config":"A=1","time_ns":"5")"), 1, "\"time_ns\"", "not a number");
}

TEST(ReadEvent, NumbersBeyondDoubleAreInvalidJson) {
  expect_error(event_line(1, "bench", R"(,"config":"A=1","time_ns":1e400)"), 1, "invalid JSON", "1e400");
}

TEST(ReadEvent, BenchCarriesConfigAndExactlyOneOfTimeAndError) {
  EXPECT_EQ(expect_trace(event_line(1, "bench", R"(,"config":"A=1","error":"oom")")).events.at(0).error, "oom");
  expect_error(event_line(1, "bench", R"(,"time_ns":1)"), 1, "\"config\"", "missing", "bench");
  expect_error(event_line(1, "bench", R"(,"config":"A=1","time_ns":1,"error":"x")"), 1, "\"time_ns\" and \"error\"", "both");
  expect_error(event_line(1, "bench", R"(,"config":"A=1")"), 1, "\"time_ns\" and \"error\"", "neither");
}

TEST(ReadEvent, CallEndCarriesExactlyOneOfConfigAndError) {
  EXPECT_EQ(expect_trace(event_line(1, "call_end", R"(,"error":"boom")")).events.at(0).error, "boom");
  expect_error(two_calls(R"(,"error":"x")"), 2, "call_end", "\"config\" and \"error\"", "both");
  expect_error(event_line(1, "call_begin") + event_line(2, "call_end"), 2, "call_end", "neither");
}

TEST(ReadEvent, TuneEndCarriesExactlyOneOfConfigAndError) {
  EXPECT_EQ(expect_trace(kWhiteBoxHeader + event_line(1, "tune_end", R"(,"config":"A=1")")).events.at(0).config, "A=1");
  expect_error(kWhiteBoxHeader + event_line(1, "tune_end"), 2, "tune_end", "neither");
  expect_error(kWhiteBoxHeader + event_line(1, "tune_end", R"(,"config":"A=1","error":"x")"), 2, "tune_end", "both");
}

TEST(ReadEvent, LaunchCarriesConfigAndNoError) {
  expect_error(event_line(1, "launch"), 1, "\"config\"", "missing", "launch");
  expect_error(event_line(1, "launch", R"(,"config":"A=1","error":"x")"), 1, "\"error\"", "not allowed", "launch");
}

TEST(ReadEvent, LaunchFailedCarriesConfigAndError) {
  const Event event = expect_trace(event_line(1, "launch_failed", R"(,"config":"A=1","error":"refused")")).events.at(0);
  EXPECT_EQ(event.kind, EventKind::LaunchFailed);
  EXPECT_EQ(event.config, "A=1");
  EXPECT_EQ(event.error, "refused");
  expect_error(event_line(1, "launch_failed", R"(,"config":"A=1")"), 1, "\"error\"", "missing", "launch_failed");
  expect_error(event_line(1, "launch_failed", R"(,"error":"x")"), 1, "\"config\"", "missing", "launch_failed");
  expect_error(event_line(1, "launch_failed", R"(,"config":"A=1","error":"x","time_ns":3)"), 1, "\"time_ns\"",
               "not allowed", "launch_failed");
}

// A store step's failure, in a white-box or a black-box trace: its reason, and nothing else.
TEST(ReadEvent, StoreFailedCarriesAnErrorOnly) {
  const Event event = expect_trace(event_line(1, "store_failed", R"(,"error":"connection refused")")).events.at(0);
  EXPECT_EQ(event.kind, EventKind::StoreFailed);
  EXPECT_EQ(event.error, "connection refused");
  EXPECT_EQ(expect_trace(kWhiteBoxHeader + event_line(1, "store_failed", R"(,"error":"x")")).events.size(), 1u);
  expect_error(event_line(1, "store_failed"), 1, "\"error\"", "missing", "store_failed");
  expect_error(event_line(1, "store_failed", R"(,"error":"x","config":"A=1")"), 1, "\"config\"", "not allowed", "store_failed");
  expect_error(event_line(1, "store_failed", R"(,"error":"x","time_ns":3)"), 1, "\"time_ns\"", "not allowed", "store_failed");
}

TEST(ReadEvent, OutcomeFieldsAreNotAllowedWhereTheyMeanNothing) {
  expect_error(event_line(1, "call_begin", R"(,"config":"A=1")"), 1, "\"config\"", "not allowed", "call_begin");
  expect_error(event_line(1, "invalidate", R"(,"error":"x")"), 1, "\"error\"", "not allowed", "invalidate");
  expect_error(event_line(1, "call_end", R"(,"config":"A=1","time_ns":3)"), 1, "\"time_ns\"", "not allowed");
}

TEST(ReadEvent, TimestampMustBeAnInteger) {
  EXPECT_EQ(expect_trace(event_line(1, "call_begin", R"(,"t_ns":1700000000000000000)")).events.at(0).t_ns,
            1700000000000000000);
  expect_error(event_line(1, "call_begin", R"(,"t_ns":1.5)"), 1, "\"t_ns\"", "not an integer");
}

TEST(ReadEvent, StreamIsAnIntegerOrAString) {
  EXPECT_EQ(expect_trace(event_line(1, "call_begin", R"(,"stream":"s0")")).events.at(0).stream, Name::string("s0"));
  expect_error(event_line(1, "call_begin", R"(,"stream":null)"), 1, "\"stream\"", "null");
}

TEST(ReadEvent, WhiteBoxEventsNeedAWhiteBoxHeader) {
  for (const char* kind : {"tune_begin", "wait_begin", "wait_end", "lease_lost"}) {
    expect_error(event_line(1, kind), 1, "\"event\"", kind, "white-box");
    EXPECT_EQ(expect_trace(kWhiteBoxHeader + event_line(1, kind)).events.size(), 1u);
  }
  expect_error(R"({"format":"safetune-trace","version":1,"white_box":false})" "\n" + event_line(1, "tune_end", R"(,"error":"e")"),
               2, "tune_end", "white-box");
}

TEST(ReadEvent, RejectedInputReturnsNoPartialTrace) {
  const ReadResult result = read_text(event_line(1, "call_begin") + event_line(2, "nonsense"));
  EXPECT_TRUE(std::holds_alternative<InputError>(result));
}

TEST(ReadEvent, ErrorShowsItsLine) {
  EXPECT_EQ((InputError{5, "field \"seq\": 3 is not greater"}).show(), "line 5: field \"seq\": 3 is not greater");
  EXPECT_EQ((InputError{0, "cannot open"}).show(), "cannot open");
}

TEST(ReadEvent, MissingFileIsAnInputError) {
  const ReadResult result = read_trace_file("/nonexistent/safetune/trace.jsonl");
  const auto* error = std::get_if<InputError>(&result);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->line, 0);
  EXPECT_EQ(error->message, "cannot open the file: No such file or directory");
}

}  // namespace
}  // namespace safetune::model::testing
