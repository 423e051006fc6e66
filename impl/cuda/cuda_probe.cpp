#include "cuda_probe.h"

#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "cuda_check.h"
#include "impl/posix/write_all.h"

namespace safetune::cuda {

CudaProbe probe_cuda() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) return {0, "cudaGetDeviceCount: " + cuda_error_text(error)};
  if (count == 0) return {0, "cudaGetDeviceCount: no CUDA device"};
  return {count, ""};
}

namespace {

// Reads what the child wrote: its device count, then its reason, to the end of the pipe.
CudaProbe read_probe(int fd) {
  std::string bytes;
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  if (bytes.size() < sizeof(int)) return {0, "the CUDA probe's child process gave no answer"};
  CudaProbe probe;
  std::memcpy(&probe.devices, bytes.data(), sizeof(int));
  probe.reason = bytes.substr(sizeof(int));
  return probe;
}

}  // namespace

CudaProbe probe_cuda_in_child() {
  int ends[2];
  if (::pipe(ends) != 0) return {0, std::string("the CUDA probe needs a pipe: ") + std::strerror(errno)};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(ends[0]);
    ::close(ends[1]);
    return {0, std::string("the CUDA probe's child could not start: ") + std::strerror(errno)};
  }
  if (pid == 0) {
    ::close(ends[0]);
    const CudaProbe probe = probe_cuda();
    // The parent reads to the end of the pipe: what could not be written is no answer.
    (void)posix::write_all(ends[1], std::string_view(reinterpret_cast<const char*>(&probe.devices), sizeof(int)));
    (void)posix::write_all(ends[1], probe.reason);
    ::_exit(0);
  }
  ::close(ends[1]);
  const CudaProbe probe = read_probe(ends[0]);
  ::close(ends[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return probe;
}

}  // namespace safetune::cuda
