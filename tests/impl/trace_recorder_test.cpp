// The trace recorder: one total order of events, thread names, timestamps and call outcomes.
#include "impl/trace_recorder.h"

#include <gtest/gtest.h>

#include <thread>

namespace safetune {
namespace {

using model::EventKind;

model::Header white_box_header() {
  model::Header header;
  header.present = true;
  header.white_box = true;
  header.configs["add"] = {"BLOCK=64"};
  return header;
}

TEST(TraceRecorder, NumbersEventsInOrderWithNondecreasingTime) {
  TraceRecorder recorder(white_box_header());
  TraceRecorder::bind_thread(0);
  recorder.call_begin("add", "k", 4);
  const std::string config = "BLOCK=64";
  recorder.record({EventKind::Bench, "add", "k", &config, nullptr, 12.5, 4});
  recorder.call_end("add", "k", CallOutcome::returned("BLOCK=64"), 4);
  model::Trace trace = recorder.snapshot();
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(recorder.size(), 3u);
  EXPECT_TRUE(trace.header.white_box);
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    EXPECT_EQ(trace.events[i].seq, static_cast<std::int64_t>(i) + 1);
    EXPECT_EQ(trace.events[i].thread, model::Name::integer(0));
    EXPECT_EQ(trace.events[i].stream, model::Name::integer(4));
    if (i > 0) {
      EXPECT_GE(*trace.events[i].t_ns, *trace.events[i - 1].t_ns);
    }
  }
  EXPECT_EQ(trace.events[1].kind, EventKind::Bench);
  EXPECT_EQ(trace.events[1].config, "BLOCK=64");
  EXPECT_EQ(trace.events[1].time_ns, 12.5);
  EXPECT_EQ(trace.events[2].kind, EventKind::CallEnd);
  EXPECT_EQ(trace.events[2].config, "BLOCK=64");
  EXPECT_EQ(trace.events[2].error, std::nullopt);
}

TEST(TraceRecorder, CallEndCarriesAnErrorAndNoStreamWhenNoneIsGiven) {
  TraceRecorder recorder(white_box_header());
  recorder.call_end("add", "k", CallOutcome::raised("boom"));
  model::Trace trace = recorder.snapshot();
  ASSERT_EQ(trace.events.size(), 1u);
  EXPECT_EQ(trace.events[0].error, "boom");
  EXPECT_EQ(trace.events[0].config, std::nullopt);
  EXPECT_EQ(trace.events[0].stream, std::nullopt);
}

TEST(TraceRecorder, BoundThreadsKeepTheirIndexAndUnboundOnesGetTheNextFree) {
  TraceRecorder recorder(white_box_header());
  std::thread([&] {
    TraceRecorder::bind_thread(5);
    recorder.call_begin("add", "k", 1);
  }).join();
  std::thread([&] { recorder.call_begin("add", "k", 2); }).join();
  std::thread([&] { recorder.call_begin("add", "k", 3); }).join();
  model::Trace trace = recorder.snapshot();
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.events[0].thread, model::Name::integer(5));
  EXPECT_EQ(trace.events[1].thread, model::Name::integer(6));
  EXPECT_EQ(trace.events[2].thread, model::Name::integer(7));
}

TEST(TraceRecorder, AnUnboundThreadIsNamedAfreshByEachRecorder) {
  TraceRecorder first(white_box_header());
  TraceRecorder second(white_box_header());
  std::thread([&] {
    first.call_begin("add", "k", 1);
    first.call_begin("add", "k", 1);
  }).join();
  std::thread([&] {
    first.call_begin("add", "k", 2);
    second.call_begin("add", "k", 2);
  }).join();
  model::Trace trace = first.snapshot();
  EXPECT_EQ(trace.events[0].thread, model::Name::integer(0));
  EXPECT_EQ(trace.events[1].thread, model::Name::integer(0));
  EXPECT_EQ(trace.events[2].thread, model::Name::integer(1));
  EXPECT_EQ(second.snapshot().events[0].thread, model::Name::integer(0));
}

TEST(TraceRecorder, ConcurrentAppendsGetDistinctIncreasingSeqs) {
  TraceRecorder recorder(white_box_header(), 16);  // forces growth past the reservation
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      TraceRecorder::bind_thread(t);
      for (int i = 0; i < 500; ++i) recorder.call_begin("add", "k", t);
    });
  }
  for (auto& thread : threads) thread.join();
  model::Trace trace = recorder.snapshot();
  ASSERT_EQ(trace.events.size(), 2000u);
  for (std::size_t i = 1; i < trace.events.size(); ++i) {
    EXPECT_EQ(trace.events[i].seq, trace.events[i - 1].seq + 1);
    EXPECT_GE(*trace.events[i].t_ns, *trace.events[i - 1].t_ns);
  }
}

}  // namespace
}  // namespace safetune
