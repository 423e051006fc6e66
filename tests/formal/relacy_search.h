// How a Relacy suite is searched and reported: the scheduler, one line per search with its
// executions and time (the figures docs/what-is-proven.md records), and the expectation that a
// suite passes.
//
// It needs Relacy: include it after the suites' header (which includes Relacy last). Its own
// standard and gtest headers must come before Relacy's, like every other (impl/sync_relacy.h):
// the test file includes them first, and the includes here only state what this file uses.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>

#include "tests/formal/relacy_execution.h"

namespace safetune::formal {

struct Search {
  rl::scheduler_type_e type = rl::sched_full;
  unsigned context_bound = 0;  // for rl::sched_bound only
  unsigned iterations = 0;     // for rl::sched_random only: how many random executions
  std::string show() const {
    if (type == rl::sched_random) return "random " + std::to_string(iterations);
    return type == rl::sched_full ? "full" : "context-bound " + std::to_string(context_bound);
  }
};

inline const Search kFull{rl::sched_full, 0};
inline const Search kBound2{rl::sched_bound, 2};
inline const Search kBound3{rl::sched_bound, 3};
// The only scheduler under which Relacy simulates spurious wake-ups (impl/sync_relacy.h).
inline const Search kRandom{rl::sched_random, 0, 200000};

struct Outcome {
  rl::test_result_e result = rl::test_result_success;
  // Executions run: all of them on success, up to and including the failing one otherwise.
  unsigned long long executions = 0;
  double seconds = 0;
  // Relacy's report; on failure it holds the history of the failing execution (every
  // operation of every thread, with the source line it comes from).
  std::string relacy_output;
};

// Runs `Suite` under Relacy and prints one line for the report.
template <class Suite>
Outcome explore(const std::string& name, int keys, const Search& search) {
  rl::test_params params;
  params.search_type = search.type;
  params.context_bound = search.context_bound;
  if (search.type == rl::sched_random) params.iteration_count = search.iterations;
  std::ostringstream output;
  params.output_stream = &output;
  params.progress_stream = &output;
  last_violation().clear();
  const auto start = std::chrono::steady_clock::now();
  rl::simulate<Suite>(params);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  // Relacy counts iterations from 1: stop_iteration is the number of executions run.
  Outcome outcome{params.test_result, params.stop_iteration, elapsed.count(), output.str()};
  std::cout << "[formal] suite=" << name << " threads=" << Suite::params::thread_count
            << " keys=" << keys << " search=" << search.show()
            << " executions=" << outcome.executions << " time_s=" << outcome.seconds
            << " result=" << rl::test_result_str(outcome.result) << std::endl;
  return outcome;
}

// The suite must pass: no violation, race, deadlock or livelock in any execution explored.
template <class Suite>
void expect_pass(const std::string& name, int keys, const Search& search) {
  const Outcome outcome = explore<Suite>(name, keys, search);
  EXPECT_EQ(outcome.result, rl::test_result_success)
      << "Relacy: " << rl::test_result_str(outcome.result) << "\n"
      << last_violation() << outcome.relacy_output;
  EXPECT_GT(outcome.executions, 0u);
}

}  // namespace safetune::formal
