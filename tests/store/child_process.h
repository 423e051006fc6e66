// Real worker processes for the results-store tests: fork, run a function, _exit with its
// verdict; SIGKILL them; and memory that every process of a test shares (counters that survive a
// SIGKILL, unlike anything in the child's own memory).
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>

namespace safetune::testing {

// A child running `work`: it exits 0 when `work` returns true, 1 when false or when it throws.
inline pid_t spawn(const std::function<bool()>& work) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    bool ok = false;
    try {
      ok = work();
    } catch (...) {
    }
    ::_exit(ok ? 0 : 1);
  }
  return pid;
}

// How the child ended: "exit N" or "signal N".
inline std::string wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  return "signal " + std::to_string(WTERMSIG(status));
}

// A T in memory shared with every child forked after it (MAP_SHARED): a child's writes survive
// its death. T must be a lock-free atomic or plain data.
template <class T>
T* shared_object() {
  void* memory = ::mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  return new (memory) T{};
}

}  // namespace safetune::testing
