// The trace recorder: one total order of events, thread names, timestamps and call outcomes, a
// snapshot while threads record, take(), and freeze(). (Lost events: trace_recorder_lost_events_test.cpp.)
#include "impl/trace/trace_recorder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "tests/store/child_process.h"

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
  EXPECT_EQ(recorder.progress(), 3);
  EXPECT_EQ(recorder.lost(), 0);
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

// More events per thread than one chunk holds, from several threads: seqs are 1..n with no gap,
// and each thread's events keep their order and non-decreasing time.
TEST(TraceRecorder, ConcurrentAppendsGetDistinctIncreasingSeqs) {
  TraceRecorder recorder(white_box_header());
  constexpr int kThreads = 4, kPerThread = 2500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TraceRecorder::bind_thread(t);
      for (int i = 0; i < kPerThread; ++i) recorder.call_begin("add", "k" + std::to_string(i), t);
    });
  }
  for (auto& thread : threads) thread.join();
  model::Trace trace = recorder.take();
  ASSERT_EQ(trace.events.size(), static_cast<std::size_t>(kThreads * kPerThread));
  std::map<model::Name, std::pair<int, std::int64_t>> per_thread;  // next key index, last t_ns
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const model::Event& event = trace.events[i];
    EXPECT_EQ(event.seq, static_cast<std::int64_t>(i) + 1);
    auto& [next_key, last_t_ns] = per_thread[event.thread];
    EXPECT_EQ(event.key, "k" + std::to_string(next_key++));
    EXPECT_GE(*event.t_ns, last_t_ns);
    last_t_ns = *event.t_ns;
  }
  EXPECT_EQ(per_thread.size(), static_cast<std::size_t>(kThreads));
}

// A snapshot taken while threads record holds, of each thread, a prefix of its events.
TEST(TraceRecorder, ASnapshotWhileThreadsRecordHoldsAPrefixOfEachThread) {
  TraceRecorder recorder(white_box_header());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    TraceRecorder::bind_thread(1);
    for (int i = 0; i < 20000 && !stop.load(std::memory_order_relaxed); ++i)
      recorder.call_begin("add", std::to_string(i), 1);
  });
  for (int round = 0; round < 20; ++round) {
    const model::Trace trace = recorder.snapshot();
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      ASSERT_EQ(trace.events[i].key, std::to_string(i));
      ASSERT_EQ(trace.events[i].seq, static_cast<std::int64_t>(i) + 1);
    }
  }
  stop = true;
  writer.join();
  EXPECT_EQ(recorder.snapshot().events.size(), static_cast<std::size_t>(recorder.progress()));
}

// take() moves the trace out; the recorder then holds nothing, and later events number on.
TEST(TraceRecorder, TakeLeavesTheRecorderEmpty) {
  TraceRecorder recorder(white_box_header());
  TraceRecorder::bind_thread(0);
  recorder.call_begin("add", "k", 1);
  recorder.call_end("add", "k", CallOutcome::returned("BLOCK=64"), 1);
  EXPECT_EQ(recorder.take().events.size(), 2u);
  EXPECT_TRUE(recorder.snapshot().events.empty());
  recorder.call_begin("add", "k", 1);
  const model::Trace later = recorder.take();
  ASSERT_EQ(later.events.size(), 1u);
  EXPECT_EQ(later.events[0].seq, 3);
}

// freeze() (a process about to be killed): every event recorded before it is in its trace, and a
// thread that reports after it never comes back to act on it. In a child process, which ends with
// that thread still parked, as a killed one would.
TEST(TraceRecorder, FreezeKeepsEveryEventBeforeItAndParksAThreadThatReportsAfter) {
  const pid_t child = testing::spawn([] {
    TraceRecorder recorder(white_box_header());
    recorder.gate_for_freeze();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&recorder, t] {
        TraceRecorder::bind_thread(t);
        for (int i = 0; i < 50; ++i) recorder.call_begin("add", "k", t);
      });
    for (auto& thread : threads) thread.join();
    const bool all_before = recorder.freeze().events.size() == 200u;
    std::atomic<bool> came_back{false};
    std::thread late([&] {
      recorder.call_begin("add", "k", 9);
      came_back.store(true);
    });
    late.detach();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return all_before && !came_back.load() && recorder.snapshot().events.size() == 200u;
  });
  EXPECT_EQ(testing::wait_for(child), "exit 0") << "the frozen trace lacked an event, or the late thread came back";
}

}  // namespace
}  // namespace safetune
