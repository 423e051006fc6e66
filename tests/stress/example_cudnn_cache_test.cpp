// The example of checking your own autotuner (stress/adapters/cudnn_style_cache/, label stress): its
// binary is the whole safetune command plus the `cudnn-cache` subject, and the harness catches
// the cache's duplicate tuning with defaults alone.
//
// run_safetune (run_binary.h) runs the example binary here: this test's copy of run_binary.cpp
// is compiled with SAFETUNE_BINARY naming it (tests/stress/CMakeLists.txt).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "run_binary.h"

namespace safetune::stress::testing {
namespace {

constexpr const char* kProgram = "safetune-example-cudnn-cache";

TEST(ExampleCudnnCache, SubjectsListsTheExampleAfterTheBuiltInOnes) {
  const CommandResult result = run_safetune("subjects");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto reference = result.out.find("reference ");
  const auto example = result.out.find("cudnn-cache ");
  ASSERT_NE(reference, std::string::npos) << result.out;
  ASSERT_NE(example, std::string::npos) << result.out;
  EXPECT_LT(reference, example) << result.out;
  EXPECT_NE(result.out.find("duplicate tuning"), std::string::npos) << result.out;
}

// Concurrent cold calls all miss the cache and all benchmark: two attempts on one key in flight
// at once, which is R2 (exclusive tuning). R3 (a new attempt after a success) shows up too when
// a late caller misses just before the insert, but not in every run, so only R2 is asserted.
TEST(ExampleCudnnCache, StressWithDefaultsIsCaughtAsExclusiveTuning) {
  const CommandResult result = run_safetune("stress --subject cudnn-cache");
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("VIOLATION R2 (exclusive tuning)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("verdict: fail"), std::string::npos) << result.out;
}

// The replay line names the example's own binary, which is the one that knows the subject, and
// running it as printed (with the binary's folder on PATH) fails the same way.
TEST(ExampleCudnnCache, ReplayLineNamesTheExampleBinaryAndReplays) {
  const CommandResult failing = run_safetune("stress --subject cudnn-cache --seed 7");
  ASSERT_EQ(failing.exit_code, 1) << failing.out << failing.err;
  const auto at = failing.out.find("replay: ");
  ASSERT_NE(at, std::string::npos) << failing.out;
  const std::string line = failing.out.substr(at + 8, failing.out.find('\n', at) - at - 8);
  EXPECT_EQ(line.rfind(std::string(kProgram) + " stress --subject cudnn-cache ", 0), 0u) << line;
  const std::string bin = std::filesystem::path(SAFETUNE_BINARY).parent_path().string();
  const std::string command = "PATH='" + bin + "':\"$PATH\" " + line + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 1) << command;
}

// Everything else is the built-in command: the built-in subjects still run, and a usage error
// still exits 2.
TEST(ExampleCudnnCache, TheBuiltInCommandIsUnchanged) {
  EXPECT_EQ(run_safetune("stress --threads 2 --calls 5 --seed 1").exit_code, 0);
  const CommandResult unknown = run_safetune("stress --subject nosuch");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown subject 'nosuch'"), std::string::npos) << unknown.err;
}

// The help and the usage errors name the example's binary, not `safetune`.
TEST(ExampleCudnnCache, HelpAndUsageErrorsNameTheExampleBinary) {
  const CommandResult help = run_safetune("--help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find(std::string("Usage: ") + kProgram + " "), std::string::npos) << help.out;
  const CommandResult unknown = run_safetune("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.rfind(std::string(kProgram) + ": unknown command 'frobnicate'", 0), 0u) << unknown.err;
}

}  // namespace
}  // namespace safetune::stress::testing
