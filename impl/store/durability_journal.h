// The steps that make a directory store's files durable: fsync of a file, link() or rename() of a
// file into place, and fsync of a directory. A store takes them here rather than by bare syscalls,
// so that a simulated power loss (stress/harness/power_loss.h) can tell what it made durable: with
// a journal file, each step that succeeded is also appended to it, one JSON line per step in one
// write() on an O_APPEND descriptor, so the lines of the processes sharing it never mix.
//
// What must stay true: a step is journaled only after it succeeded, and the journal never stands in
// for the step itself (fsync_file fsyncs, then notes it).
#pragma once

#include <optional>
#include <string>

namespace safetune {

class DurabilityJournal {
 public:
  // No file: the steps only. StoreError when the file cannot be opened for appending.
  explicit DurabilityJournal(const std::optional<std::string>& file = std::nullopt);
  ~DurabilityJournal();
  DurabilityJournal(const DurabilityJournal&) = delete;
  DurabilityJournal& operator=(const DurabilityJournal&) = delete;

  // Each returns 0, or the errno of the failed syscall (nothing is journaled then).
  int fsync_file(int fd, const std::string& path) const;
  int fsync_directory(int fd, const std::string& directory) const;
  int link(const std::string& from, const std::string& to) const;
  int rename(const std::string& from, const std::string& to) const;

 private:
  void note(const std::string& step, const std::string& from, const std::string& to = "") const;

  int fd_ = -1;
};

}  // namespace safetune
