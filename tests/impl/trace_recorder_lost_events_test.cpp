// The trace recorder out of memory: an event that cannot be stored is counted in lost() and takes
// no seq, and from then on every event is counted as lost without being tried (the trace is
// incomplete whatever follows). Its binary replaces the global operator new
// (failing_allocation.cpp); under ThreadSanitizer, whose runtime owns operator new, each test
// reports itself skipped.
#include <gtest/gtest.h>

#include "impl/trace/trace_recorder.h"
#include "tests/impl/failing_allocation.h"

namespace safetune {
namespace {

class RecorderOutOfMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::allocation_failures_injectable())
      GTEST_SKIP() << "allocation failures cannot be injected here (ThreadSanitizer owns operator new)";
  }
  static model::Header header() {
    model::Header h;
    h.present = true;
    return h;
  }
};

// The thread's first event needs its log (the first allocation) and a chunk (the second).
TEST_F(RecorderOutOfMemory, AThreadLogThatCannotBeAllocatedLosesTheEvent) {
  TraceRecorder recorder(header());
  testing::fail_an_allocation_soon(0);
  recorder.call_begin("add", "k", 1);
  EXPECT_FALSE(testing::allocation_failure_pending());
  EXPECT_EQ(recorder.lost(), 1);
  EXPECT_EQ(recorder.progress(), 1);  // a lost event is still progress for the watchdog
  EXPECT_TRUE(recorder.snapshot().events.empty());
  recorder.call_begin("add", "k", 1);  // would succeed now, but the trace is already incomplete
  EXPECT_EQ(recorder.lost(), 2);
  EXPECT_EQ(recorder.progress(), 2);
  EXPECT_TRUE(recorder.take().events.empty());
}

TEST_F(RecorderOutOfMemory, AChunkThatCannotBeAllocatedLosesTheEvent) {
  TraceRecorder recorder(header());
  testing::fail_an_allocation_soon(1);
  recorder.call_begin("add", "k", 1);
  EXPECT_FALSE(testing::allocation_failure_pending());
  EXPECT_EQ(recorder.lost(), 1);
  EXPECT_TRUE(recorder.take().events.empty());
}

TEST_F(RecorderOutOfMemory, AnEventWhoseStringsCannotBeCopiedIsLost) {
  TraceRecorder recorder(header());
  recorder.call_begin("add", "k", 1);
  const std::string long_key(100, 'k');  // past std::string's own buffer: copying it allocates
  testing::fail_an_allocation_soon(0);
  recorder.call_begin("add", long_key, 1);
  EXPECT_FALSE(testing::allocation_failure_pending());
  EXPECT_EQ(recorder.lost(), 1);
  EXPECT_EQ(recorder.progress(), 2);
  const model::Trace trace = recorder.take();
  ASSERT_EQ(trace.events.size(), 1u);  // the event before the loss; the lost one took no seq
  EXPECT_EQ(trace.events[0].seq, 1);
}

}  // namespace
}  // namespace safetune
