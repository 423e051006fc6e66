// Generated traces for the checker benchmark (check_bench.cpp): each shape writes a trace whose
// size grows along one dimension (events, white-box or black-box, distinct thread names, configs
// per kernel, nesting depth, threads and keys), so that the benchmark can measure how the
// checker's time and memory grow along each.
//
// Every shape but `nesting_open` writes a trace that the checker must accept (exit 0); the
// benchmark treats any other verdict as a failure of the run. `nesting_open` leaves every call
// open: it must be rejected with R7 (exit 1), one hang per level.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace safetune::bench {

struct Shape {
  std::string name;
  std::string dimension;              // what `sizes` count: "events", "depth", ...
  std::vector<std::int64_t> sizes;    // the sizes measured, smallest first
  int expected_exit = 0;              // safetune check's exit code on this shape
  // Writes the trace of one size to `out` and returns the number of events written.
  std::int64_t (*write)(std::FILE* out, std::int64_t size);
};

// The shapes at full scale (the sizes the issue names), or small ones for a smoke test.
std::vector<Shape> checker_shapes(bool full_scale);

}  // namespace safetune::bench
