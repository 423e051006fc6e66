#include "stress/report/outputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "model/chrome.h"
#include "model/trace_writer.h"

namespace safetune::stress {

namespace {

// A device or a pipe (--trace /dev/stdout) is written in place: renaming a file over it would
// replace it, and it has no half-written state to hide.
bool is_special_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
}

bool write_in_place(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::app);
  if (out) write(out);
  out.flush();
  return static_cast<bool>(out);
}

void report_failure(const std::string& path) {
  // No program name: the message is the same in every binary built on run_cli.
  std::cerr << "cannot write '" << path << "'\n";
}

}  // namespace

bool write_file_whole(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (is_special_file(path)) {
    const bool written = write_in_place(path, write);
    if (!written) report_failure(path);
    return written;
  }
  const std::string partial = path + ".partial-" + std::to_string(::getpid());
  bool written = false;
  try {
    std::ofstream out(partial, std::ios::trunc);
    if (out) write(out);
    out.close();
    written = static_cast<bool>(out) && std::rename(partial.c_str(), path.c_str()) == 0;
  } catch (...) {
    std::remove(partial.c_str());
    throw;
  }
  if (!written) {
    std::remove(partial.c_str());
    report_failure(path);
  }
  return written;
}

bool write_trace_outputs(const model::Trace& trace, const std::vector<model::Violation>& violations,
                         const std::optional<std::string>& trace_path,
                         const std::optional<std::string>& chrome_path) {
  bool ok = true;
  if (trace_path) {
    ok = write_file_whole(*trace_path, [&](std::ostream& out) { model::write_trace(out, trace); }) && ok;
  }
  if (chrome_path) {
    ok = write_file_whole(*chrome_path, [&](std::ostream& out) {
           model::write_chrome_trace(out, trace, violations);
         }) && ok;
  }
  return ok;
}

}  // namespace safetune::stress
