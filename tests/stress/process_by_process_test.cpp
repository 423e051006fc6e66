// check_process_by_process (--store-down): each process of a merged trace judged on its own.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <variant>

#include "model/checker.h"
#include "model/trace_reader.h"
#include "stress/harness/process_by_process.h"

namespace safetune::stress {
namespace {

constexpr const char* kHeader =
    R"({"format":"safetune-trace","version":1,"policy":{"wait":"block","reentry":"error"},"configs":{"add":["BLOCK=128"]},"white_box":true})";

// One tuned call of k0 by thread 1 of `process`, from seq `first` on.
std::string tuned_call(int process, int first) {
  std::string text;
  int seq = first;
  for (const char* rest : {R"("event":"call_begin","kernel":"add","key":"k0"})",
                           R"("event":"tune_begin","kernel":"add","key":"k0"})",
                           R"("event":"bench","kernel":"add","key":"k0","config":"BLOCK=128","time_ns":5})",
                           R"("event":"tune_end","kernel":"add","key":"k0","config":"BLOCK=128"})",
                           R"("event":"launch","kernel":"add","key":"k0","config":"BLOCK=128"})",
                           R"("event":"call_end","kernel":"add","key":"k0","config":"BLOCK=128"})"})
    text += R"({"seq":)" + std::to_string(seq++) + R"(,"process":)" + std::to_string(process) + R"(,"thread":1,)" + rest + "\n";
  return text;
}

model::Trace trace_of(const std::string& events) {
  std::istringstream in(std::string(kHeader) + "\n" + events);
  auto read = model::read_trace(in);
  return std::get<model::Trace>(std::move(read));
}

TEST(ProcessByProcess, EachProcessTuningItsKeyOnceIsNoDuplicate) {
  const model::Trace trace = trace_of(tuned_call(1, 1) + tuned_call(2, 7));
  EXPECT_FALSE(model::check(trace).ok()) << "merged, the second tuning is a duplicate across processes";
  const model::CheckResult result = check_process_by_process(trace);
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.stats.successful_tunings, 2);
  EXPECT_EQ(result.stats.calls, 2);
  EXPECT_EQ(result.events, 12);
}

TEST(ProcessByProcess, AProcessThatTunesAKeyTwiceIsStillCaught) {
  const model::Trace trace = trace_of(tuned_call(1, 1) + tuned_call(2, 7) + tuned_call(1, 13));
  const model::CheckResult result = check_process_by_process(trace);
  ASSERT_FALSE(result.ok());
  ASSERT_FALSE(result.violations.empty());
  EXPECT_EQ(result.violations.front().rule, model::Rule::R3);
  EXPECT_EQ(result.violations.front().seqs.back(), 14) << "the merged trace's seq of the second tune_begin";
}

}  // namespace
}  // namespace safetune::stress
