// Progress: silent for the first second; on a terminal one line redrawn in place (\r) at most
// every 200 ms and ended by finish(); in a log a plain line at most every 5 s.
#include "stress/harness/progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace safetune::stress {
namespace {

using std::chrono::milliseconds;
using Clock = Progress::Clock;

TEST(Progress, ShortRunsPrintNothing) {
  std::ostringstream out;
  const Clock::time_point start{};
  Progress progress(out, /*terminal=*/true, start);
  progress.update(100, start + milliseconds(999));
  progress.finish();
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, OnATerminalOneLineIsRedrawnInPlaceAndEndedByFinish) {
  std::ostringstream out;
  const Clock::time_point start{};
  Progress progress(out, /*terminal=*/true, start);
  progress.update(1000, start + milliseconds(1000));
  progress.update(1100, start + milliseconds(1100));  // under 200 ms since the last: skipped
  progress.update(3000, start + milliseconds(2000));
  progress.finish();
  EXPECT_EQ(out.str(), "\rprogress: 1000 calls, 1000 calls/s   \rprogress: 3000 calls, 1500 calls/s   \n");
}

TEST(Progress, InALogPlainLinesComeAtMostEveryFiveSeconds) {
  std::ostringstream out;
  const Clock::time_point start{};
  Progress progress(out, /*terminal=*/false, start);
  progress.update(100, start + milliseconds(1000));   // under 5 s since the start: skipped
  progress.update(5000, start + milliseconds(5000));
  progress.update(6000, start + milliseconds(9000));  // under 5 s since the last: skipped
  progress.update(10000, start + milliseconds(10000));
  progress.finish();
  EXPECT_EQ(out.str(), "progress: 5000 calls, 1000 calls/s\nprogress: 10000 calls, 1000 calls/s\n");
}

}  // namespace
}  // namespace safetune::stress
