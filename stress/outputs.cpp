#include "outputs.h"

#include <fstream>
#include <functional>
#include <iostream>

#include "model/chrome.h"
#include "model/trace_reader.h"
#include "model/trace_writer.h"

namespace safetune::stress {
namespace {

bool write_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::trunc);
  if (out) write(out);
  out.flush();
  // No program name: the message is the same in every binary built on run_cli.
  if (!out) std::cerr << "cannot write '" << path << "'\n";
  return static_cast<bool>(out);
}

}  // namespace

bool write_trace_outputs(const model::Trace& trace, const std::vector<model::Violation>& violations,
                         const std::optional<std::string>& trace_path,
                         const std::optional<std::string>& chrome_path) {
  bool ok = true;
  if (trace_path) {
    ok = write_file(*trace_path, [&](std::ostream& out) { model::write_trace(out, trace); }) && ok;
  }
  if (chrome_path) {
    ok = write_file(*chrome_path, [&](std::ostream& out) {
           model::write_chrome_trace(out, trace, violations);
         }) && ok;
  }
  return ok;
}

}  // namespace safetune::stress
