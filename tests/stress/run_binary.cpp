#include "run_binary.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "../common/sanitizer_build.h"

namespace safetune::stress::testing {

namespace {

// One folder per test process, removed when that process exits (not when a child forked from it
// does): what a test needs from it, a run's standard error, it reads back before then.
struct TempFolder {
  const pid_t owner = ::getpid();
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("safetune_stress_test_" + std::to_string(owner));
  TempFolder() { std::filesystem::create_directories(path); }
  ~TempFolder() {
    std::error_code ignored;
    if (::getpid() == owner) std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

std::string temp_path(const std::string& name) {
  static const TempFolder folder;
  return (folder.path / name).string();
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::trunc) << text;
  return path;
}

bool built_with_sanitizer() {
  return ::safetune::testing::kThreadSanitizerBuild || ::safetune::testing::kAddressSanitizerBuild;
}

CommandResult run_safetune(const std::string& arguments, const std::string& shell_prefix) {
  static int counter = 0;
  const std::string err_path = temp_path("stderr_" + std::to_string(counter++));
  const std::string command =
      shell_prefix + std::string(SAFETUNE_BINARY) + " " + arguments + " 2>" + err_path;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  CommandResult result;
  std::array<char, 4096> buffer{};
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
    result.out.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  std::ostringstream err;
  err << std::ifstream(err_path).rdbuf();
  result.err = err.str();
  return result;
}

}  // namespace safetune::stress::testing
