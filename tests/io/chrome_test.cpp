// The Chrome Trace Event export: parsed back with nlohmann and checked for structure.
#include "model/chrome.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sample_traces.h"

namespace safetune::model::testing {
namespace {

using Json = nlohmann::json;

Json exported(const Trace& trace, const std::vector<Violation>& violations = {}) {
  std::ostringstream out;
  write_chrome_trace(out, trace, violations);
  Json document = Json::parse(out.str(), nullptr, false);
  EXPECT_FALSE(document.is_discarded()) << "not valid JSON:\n" << out.str();
  return document;
}

std::vector<Json> events_where(const Json& document, const std::string& ph, const std::string& cat = "") {
  std::vector<Json> found;
  for (const Json& event : document.at("traceEvents"))
    if (event.at("ph") == ph && (cat.empty() || event.value("cat", "") == cat)) found.push_back(event);
  return found;
}

const Json* slice_named(const Json& document, const std::string& prefix) {
  for (const Json& event : document.at("traceEvents"))
    if (event.at("ph") == "X" && event.at("name").get<std::string>().rfind(prefix, 0) == 0) return &event;
  return nullptr;
}

double end_of(const Json& slice) { return slice.at("ts").get<double>() + slice.at("dur").get<double>(); }

// Slices on one tid nest: sorted by start (longer first on ties), each lies inside the innermost
// slice still open when it starts, or starts after it ends.
void expect_proper_nesting(const Json& document) {
  constexpr double kSlack = 1e-6;
  std::map<int, std::vector<Json>> by_tid;
  for (const Json& slice : events_where(document, "X")) by_tid[slice.at("tid").get<int>()].push_back(slice);
  for (auto& [tid, slices] : by_tid) {
    std::sort(slices.begin(), slices.end(), [](const Json& a, const Json& b) {
      if (a.at("ts") != b.at("ts")) return a.at("ts").get<double>() < b.at("ts").get<double>();
      return a.at("dur").get<double>() > b.at("dur").get<double>();
    });
    std::vector<const Json*> open;
    for (const Json& slice : slices) {
      EXPECT_GE(slice.at("dur").get<double>(), 0) << slice;
      while (!open.empty() && end_of(*open.back()) <= slice.at("ts").get<double>() + kSlack) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(end_of(slice), end_of(*open.back()) + kSlack) << slice << "\noverlaps\n" << *open.back();
      }
      open.push_back(&slice);
    }
  }
}

TEST(ChromeExport, IsATraceEventObject) {
  const Json document = exported(white_box_sample());
  EXPECT_EQ(document.at("displayTimeUnit"), "ns");
  ASSERT_TRUE(document.at("traceEvents").is_array());
  for (const Json& event : document.at("traceEvents")) {
    for (const char* field : {"ph", "ts", "pid", "tid", "name"}) EXPECT_TRUE(event.contains(field)) << field << " in " << event;
    if (event.at("ph") == "X") {
      EXPECT_TRUE(event.contains("dur")) << event;
    }
  }
}

TEST(ChromeExport, OneNamedRowPerThread) {
  const Json document = exported(white_box_sample());
  std::map<int, int> names_per_tid;
  std::set<std::string> names;
  for (const Json& meta : events_where(document, "M")) {
    if (meta.at("name") != "thread_name") continue;
    ++names_per_tid[meta.at("tid").get<int>()];
    names.insert(meta.at("args").at("name").get<std::string>());
  }
  EXPECT_EQ(names, (std::set<std::string>{"thread 1", "thread \"1\"", "thread 2"}));  // 1 and "1" differ
  for (const Json& event : document.at("traceEvents")) {
    if (event.at("ph") == "M") continue;
    EXPECT_EQ(names_per_tid[event.at("tid").get<int>()], 1) << event;
  }
}

TEST(ChromeExport, SlicesNestPerThread) {
  expect_proper_nesting(exported(white_box_sample()));
  expect_proper_nesting(exported(black_box_sample()));
}

TEST(ChromeExport, AttemptsAndBenchesLieInsideTheirCall) {
  const Json document = exported(white_box_sample());
  const Json* call = slice_named(document, "call add [k]");
  const Json* attempt = slice_named(document, "attempt add [k]");
  const Json* bench = slice_named(document, "bench BLOCK=128");
  const Json* wait = slice_named(document, "wait add [k]");
  ASSERT_TRUE(call && attempt && bench && wait);
  EXPECT_EQ(attempt->at("tid"), call->at("tid"));
  EXPECT_GE(attempt->at("ts").get<double>(), call->at("ts").get<double>());
  EXPECT_LE(end_of(*attempt), end_of(*call));
  EXPECT_GE(bench->at("ts").get<double>(), attempt->at("ts").get<double>());
  EXPECT_LE(end_of(*bench), end_of(*attempt));
  EXPECT_EQ(bench->at("args").at("time_ns"), 1500.25);
  EXPECT_NE(wait->at("tid"), attempt->at("tid"));
  EXPECT_NE(slice_named(document, "bench BLOCK=64 (failed)"), nullptr);
}

TEST(ChromeExport, LaunchesAndInvalidatesAreInstants) {
  const Json document = exported(white_box_sample());
  EXPECT_EQ(events_where(document, "i", "launch").size(), 2u);
  EXPECT_EQ(events_where(document, "i", "invalidate").size(), 1u);
}

TEST(ChromeExport, BlackBoxAttemptRunsFromItsBenchesToTheLaunch) {
  const Json document = exported(black_box_sample());
  const Json* attempt = slice_named(document, "attempt add [k]");
  ASSERT_NE(attempt, nullptr);
  EXPECT_EQ(attempt->at("args").at("result"), "A=2");
  EXPECT_DOUBLE_EQ(end_of(*attempt), 3.0);  // the launch is seq 4, 3 us after seq 1
  const Json* failed = slice_named(document, "attempt add [j]");
  ASSERT_NE(failed, nullptr);
  EXPECT_NE(failed->at("args").at("result").get<std::string>().find("failed"), std::string::npos);
}

TEST(ChromeExport, UnclosedCallsRunToTheEndAndAreMarked) {
  const Json document = exported(white_box_sample());
  const Json* hang = slice_named(document, "call add [other]");
  ASSERT_NE(hang, nullptr);
  EXPECT_TRUE(hang->at("args").contains("unclosed"));
  double last = 0;
  for (const Json& event : document.at("traceEvents")) {
    if (event.at("ph") != "X" && event.value("cat", "") != "hang") last = std::max(last, event.at("ts").get<double>());
  }
  EXPECT_GT(end_of(*hang), last);
  EXPECT_EQ(events_where(document, "i", "hang").size(), 1u);
}

TEST(ChromeExport, ViolationEventsAreMarked) {
  const Violation violation{Rule::R2, {5, 10}, "two attempts in flight", ""};
  const Json document = exported(white_box_sample(), {violation});
  const auto marks = events_where(document, "i", "violation");
  ASSERT_EQ(marks.size(), 2u);
  std::set<std::int64_t> seqs;
  for (const Json& mark : marks) {
    seqs.insert(mark.at("args").at("seq").get<std::int64_t>());
    EXPECT_EQ(mark.at("args").at("violation"), "R2: two attempts in flight");
  }
  EXPECT_EQ(seqs, (std::set<std::int64_t>{5, 10}));
  const Json* bench = slice_named(document, "bench BLOCK=128");
  ASSERT_NE(bench, nullptr);
  EXPECT_EQ(bench->at("args").at("violation"), "R2: two attempts in flight");
}

TEST(ChromeExport, UsesNanosecondTimestampsWhenEveryEventHasOne) {
  Trace trace = black_box_sample();
  for (std::size_t i = 0; i < trace.events.size(); ++i) trace.events[i].t_ns = 1'000'000'000'000 + 2000 * static_cast<std::int64_t>(i);
  const Json document = exported(trace);
  const Json* call = slice_named(document, "call add [k]");
  ASSERT_NE(call, nullptr);
  EXPECT_DOUBLE_EQ(call->at("ts").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(call->at("dur").get<double>(), 8.0);  // seq 1 to seq 5: 4 steps of 2000 ns
}

TEST(ChromeExport, UnmatchedEndsAndEmptyTracesStayValid) {
  Trace trace;
  trace.header.white_box = true;
  trace.events = {with_config(make_event(1, Name::integer(1), EventKind::CallEnd), "A=1"),
                  make_event(2, Name::integer(1), EventKind::CallBegin),
                  make_event(3, Name::integer(1), EventKind::TuneBegin),
                  with_config(make_event(4, Name::integer(1), EventKind::CallEnd), "A=1")};
  const Json document = exported(trace);
  expect_proper_nesting(document);
  EXPECT_EQ(events_where(document, "i", "unmatched").size(), 1u);
  EXPECT_TRUE(slice_named(document, "attempt add [k] (unclosed)") != nullptr);
  EXPECT_EQ(exported(Trace{}).at("traceEvents").size(), 1u);  // only the process name
}

}  // namespace
}  // namespace safetune::model::testing
