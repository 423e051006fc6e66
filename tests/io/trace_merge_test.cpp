// Merging the traces of several processes into one order (model/trace_merge.h,
// docs/trace-format.md "Several processes"): by seq when every header says the scope is global,
// else by t_ns; the headers must agree; every bad input names its file and line.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "model/trace_merge.h"

namespace safetune::model {
namespace {

const std::string kGlobal = R"({"format":"safetune-trace","version":1,"seq_scope":"global"})" "\n";
const std::string kPerFile = R"({"format":"safetune-trace","version":1})" "\n";

std::string line(int seq, int process, const std::string& extra = "") {
  return R"({"seq":)" + std::to_string(seq) + R"(,"process":)" + std::to_string(process) +
         R"(,"thread":1,"event":"invalidate","kernel":"add","key":"k")" + extra + "}\n";
}

std::string timed(int seq, int process, int t_ns) { return line(seq, process, R"(,"t_ns":)" + std::to_string(t_ns)); }

// The files as streams, their readers, and the merge of them.
class Merge {
 public:
  explicit Merge(const std::vector<std::string>& files) {
    std::vector<TraceReader*> readers;
    for (const std::string& text : files) {
      streams_.push_back(std::make_unique<std::istringstream>(text));
      readers_.push_back(std::make_unique<TraceReader>(stream_source(*streams_.back())));
      readers.push_back(readers_.back().get());
    }
    merge_ = std::make_unique<TraceMerge>(readers);
  }
  TraceMerge& operator*() { return *merge_; }
  TraceMerge* operator->() { return merge_.get(); }

  // "process:seq" of each merged event, in order; stops at an error.
  std::vector<std::string> order() {
    std::vector<std::string> out;
    Event event;
    while (merge_->next(event) == TraceReader::Next::Event)
      out.push_back(event.process->text + ":" + std::to_string(merge_->origin().seq) + "@" + std::to_string(event.seq));
    return out;
  }

 private:
  std::vector<std::unique_ptr<std::istringstream>> streams_;
  std::vector<std::unique_ptr<TraceReader>> readers_;
  std::unique_ptr<TraceMerge> merge_;
};

TEST(TraceMerge, GlobalScopeMergesBySeqAndKeepsIt) {
  Merge merge({kGlobal + line(1, 1) + line(4, 1), kGlobal + line(2, 2) + line(3, 2) + line(9, 2)});
  ASSERT_FALSE(merge->read_headers());
  EXPECT_TRUE(merge->by_seq());
  EXPECT_EQ(merge.order(), (std::vector<std::string>{"1:1@1", "2:2@2", "2:3@3", "1:4@4", "2:9@9"}));
}

TEST(TraceMerge, OtherwiseMergesByTimeAndNumbersTheMergedOrder) {
  Merge merge({kPerFile + timed(1, 1, 10) + timed(2, 1, 40), kGlobal + timed(1, 2, 20) + timed(2, 2, 40)});
  ASSERT_FALSE(merge->read_headers());
  EXPECT_FALSE(merge->by_seq());  // one header is not global
  // The tie at t_ns 40 goes to the file given first.
  EXPECT_EQ(merge.order(), (std::vector<std::string>{"1:1@1", "2:1@2", "1:2@3", "2:2@4"}));
  EXPECT_EQ(merge->origin().file, 1u);
  EXPECT_EQ(merge->origin().line, 3);
}

TEST(TraceMerge, FilesWithoutAProcessFieldAreAProcessEach) {
  const std::string untagged = R"({"seq":1,"thread":1,"event":"invalidate","kernel":"add","key":"k","t_ns":5})" "\n";
  Merge merge({kPerFile + untagged, kPerFile + untagged});
  ASSERT_FALSE(merge->read_headers());
  EXPECT_EQ(merge.order(), (std::vector<std::string>{"file 1:1@1", "file 2:1@2"}));
}

TEST(TraceMerge, ASeqInTwoFilesOfOneCounterIsAnInputError) {
  Merge merge({kGlobal + line(1, 1) + line(3, 1), kGlobal + line(2, 2) + line(3, 2)});
  ASSERT_FALSE(merge->read_headers());
  EXPECT_EQ(merge.order().size(), 2u);
  EXPECT_EQ(merge->error().file, 1u);
  EXPECT_EQ(merge->error().error.line, 3);
  EXPECT_NE(merge->error().error.message.find("is also on line 3 of file 1"), std::string::npos) << merge->error().error.message;
}

TEST(TraceMerge, MergingByTimeNeedsTimeOnEveryEvent) {
  Merge merge({kPerFile + timed(1, 1, 10), kPerFile + timed(1, 2, 20) + line(2, 2)});
  ASSERT_FALSE(merge->read_headers());
  merge.order();
  EXPECT_EQ(merge->error().file, 1u);
  EXPECT_EQ(merge->error().error.line, 3);
  EXPECT_NE(merge->error().error.message.find("\"t_ns\" is missing"), std::string::npos);
}

TEST(TraceMerge, TimeGoingBackInAFileKeepsTheFilesOwnOrder) {
  // File 1's second event says 20 after 30 (two threads' clocks): it stays after its first, at 30.
  Merge merge({kPerFile + timed(1, 1, 30) + timed(2, 1, 20), kPerFile + timed(1, 2, 25) + timed(2, 2, 31)});
  ASSERT_FALSE(merge->read_headers());
  EXPECT_EQ(merge.order(), (std::vector<std::string>{"2:1@1", "1:1@2", "1:2@3", "2:2@4"}));
  EXPECT_TRUE(merge->error().error.message.empty());
}

TEST(TraceMerge, HeadersThatDisagreeAreAnInputErrorOfTheSecondFile) {
  Merge merge({kPerFile, R"({"format":"safetune-trace","version":1,"policy":{"wait":"fallback","fallback":"A=1"}})" "\n"});
  auto error = merge->read_headers();
  ASSERT_TRUE(error);
  EXPECT_EQ(error->file, 1u);
  EXPECT_EQ(error->error.line, 1);
  EXPECT_NE(error->error.message.find("does not agree with the first file's"), std::string::npos);
}

// The store's facts that the model holds loads and leases to: every file must say the same.
TEST(TraceMerge, FilesThatDisagreeOnAFreshStoreOrOnLiveOwnersAreAnInputError) {
  for (const std::string field : {"fresh_store", "live_owners"}) {
    Merge merge({kPerFile, R"({"format":"safetune-trace","version":1,")" + field + R"(":true})" "\n"});
    auto error = merge->read_headers();
    ASSERT_TRUE(error) << field;
    EXPECT_EQ(error->file, 1u);
    EXPECT_NE(error->error.message.find(field), std::string::npos) << field;
  }
}

TEST(TraceMerge, ABadLineInAnyFileIsItsInputError) {
  Merge merge({kGlobal + line(1, 1), kGlobal + "{\"seq\":\n"});
  auto error = merge->read_headers();  // the first event of each file is read ahead
  ASSERT_TRUE(error);
  EXPECT_EQ(error->file, 1u);
  EXPECT_EQ(error->error.line, 2);
}

TEST(TraceMerge, EmptyFilesMergeToNothing) {
  Merge merge({"", ""});
  ASSERT_FALSE(merge->read_headers());
  EXPECT_TRUE(merge.order().empty());
}

}  // namespace
}  // namespace safetune::model
