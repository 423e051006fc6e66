// safetune-check-bench: how `safetune check` grows with the trace. For each shape of
// trace_shapes.h and each of its sizes it writes the trace to a file, runs `safetune check` on it
// in a child process, and reports the child's wall time, events per second and peak resident
// memory (getrusage through wait4). Between consecutive sizes of a shape it prints the growth
// exponent of time and of memory: log(t2/t1) / log(n2/n1) along the shape's dimension, so 1.0 is
// linear and 2.0 quadratic. A child's time includes its start (a few ms), which flattens the
// exponent between the smallest sizes.
//
// It measures; it asserts nothing about the figures. It fails (exit 1) only when a run's verdict
// is not the shape's expected one, since then it measured the wrong thing.
//
//   safetune-check-bench --safetune build/release/bin/safetune [--full] [--shape NAME] [--dir D]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "stress/bench/trace_shapes.h"

namespace safetune::bench {
namespace {

struct Options {
  std::string safetune;
  bool full = false;
  std::string shape;  // empty: every shape
  std::string dir = std::filesystem::temp_directory_path().string();
};

struct Measurement {
  std::int64_t size = 0;
  std::int64_t events = 0;
  double seconds = 0;
  double peak_mb = 0;
  int exit_code = -1;
};

// Runs `safetune check PATH` with its output discarded: wall time, peak RSS and exit code.
void run_check(const std::string& safetune, const std::string& path, Measurement& m) {
  std::fflush(nullptr);  // or the child's freopen writes out what this process had buffered
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = ::fork();
  if (child == 0) {
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) ::_exit(126);
    ::execl(safetune.c_str(), safetune.c_str(), "check", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  ::wait4(child, &status, 0, &usage);
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  m.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Measurement measure(const Options& options, const Shape& shape, std::int64_t size) {
  const std::string path = options.dir + "/safetune_check_bench_" + shape.name + "_" + std::to_string(size) + ".jsonl";
  Measurement m;
  m.size = size;
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) throw std::runtime_error("cannot write " + path);
  m.events = shape.write(out, size);
  if (std::fclose(out) != 0) throw std::runtime_error("cannot write " + path);
  run_check(options.safetune, path, m);
  std::filesystem::remove(path);
  return m;
}

double exponent(double y1, double y2, double x1, double x2) { return std::log(y2 / y1) / std::log(x2 / x1); }

void print_row(const Shape& shape, const Measurement& m, const Measurement* previous) {
  std::printf("| %s | %s %lld | %lld | %.2f | %.0f | %.1f | %d |", shape.name.c_str(), shape.dimension.c_str(),
              static_cast<long long>(m.size), static_cast<long long>(m.events), m.seconds,
              static_cast<double>(m.events) / m.seconds, m.peak_mb, m.exit_code);
  if (previous) {
    const auto x1 = static_cast<double>(previous->size), x2 = static_cast<double>(m.size);
    std::printf(" %.2f | %.2f |\n", exponent(previous->seconds, m.seconds, x1, x2),
                exponent(previous->peak_mb, m.peak_mb, x1, x2));
  } else {
    std::printf(" | |\n");
  }
  std::fflush(stdout);
}

int run(const Options& options) {
  std::printf("| shape | size | events | seconds | events/s | peak RSS MB | exit | time exponent | memory exponent |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  int failures = 0;
  for (const Shape& shape : checker_shapes(options.full)) {
    if (!options.shape.empty() && shape.name != options.shape) continue;
    Measurement previous;
    for (std::size_t i = 0; i < shape.sizes.size(); ++i) {
      const Measurement m = measure(options, shape, shape.sizes[i]);
      print_row(shape, m, i > 0 ? &previous : nullptr);
      if (m.exit_code != shape.expected_exit) {
        std::fprintf(stderr, "%s at %lld: safetune check exited %d, expected %d\n", shape.name.c_str(),
                     static_cast<long long>(m.size), m.exit_code, shape.expected_exit);
        ++failures;
      }
      previous = m;
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace safetune::bench

int main(int argc, char** argv) {
  safetune::bench::Options options;
  CLI::App app{"safetune-check-bench: time and peak memory of `safetune check` by trace shape and size"};
  app.add_option("--safetune", options.safetune, "the safetune binary to measure")->required()->check(CLI::ExistingFile);
  app.add_flag("--full", options.full, "the full sizes (up to 10^7 events); default: small ones, for a smoke run");
  app.add_option("--shape", options.shape, "only this shape");
  app.add_option("--dir", options.dir, "where the traces are written (each is removed after its run)")
      ->check(CLI::ExistingDirectory);
  CLI11_PARSE(app, argc, argv);
  try {
    return safetune::bench::run(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "safetune-check-bench: %s\n", error.what());
    return 2;
  }
}
