// The checker benchmark's generated traces (trace_shapes.h). Lines are formatted by hand, not
// with a JSON library: a 10^7-event trace must take seconds to write, not minutes.
#include "stress/bench/trace_shapes.h"

#include <string>

namespace safetune::bench {
namespace {

constexpr const char* kKernel = "k";

std::string config_text(int index) { return "BLOCK=" + std::to_string(32 * (index + 1)); }

// Distinct bench times with the minimum somewhere in the middle, so that the argmin is not the
// first or the last config.
double bench_time(int index, int configs) {
  return 1000.0 + static_cast<double>((index * 7919 + configs / 2) % (configs * 3 + 1));
}

int winner_of(int configs) {
  int best = 0;
  for (int i = 1; i < configs; ++i)
    if (bench_time(i, configs) < bench_time(best, configs)) best = i;
  return best;
}

// Writes one event per line. A thread is an integer, or a string when `thread_text` is set.
class LineWriter {
 public:
  explicit LineWriter(std::FILE* out) : out_(out) {}

  void header(int configs, bool white_box) {
    std::string line = R"({"format":"safetune-trace","version":1,"configs":{")" + std::string(kKernel) + R"(":[)";
    for (int i = 0; i < configs; ++i) line += (i ? ",\"" : "\"") + config_text(i) + "\"";
    line += std::string("]},\"white_box\":") + (white_box ? "true" : "false") + "}\n";
    std::fputs(line.c_str(), out_);
  }

  // `thread` is written as given: a decimal integer, or a quoted JSON string.
  void event(const std::string& thread, const char* kind, const std::string& key,
             const std::string& extra = "") {
    line_.clear();
    line_ += "{\"seq\":";
    line_ += std::to_string(++seq_);
    line_ += ",\"thread\":";
    line_ += thread;
    line_ += ",\"event\":\"";
    line_ += kind;
    line_ += "\",\"kernel\":\"";
    line_ += kKernel;
    line_ += "\",\"key\":\"";
    line_ += key;
    line_ += '"';
    line_ += extra;
    line_ += "}\n";
    std::fwrite(line_.data(), 1, line_.size(), out_);
  }

  static std::string config(int index) { return ",\"config\":\"" + config_text(index) + "\""; }
  static std::string timed(int index, int configs) {
    return config(index) + ",\"time_ns\":" + std::to_string(bench_time(index, configs));
  }

  std::int64_t events() const { return seq_; }

 private:
  std::FILE* out_;
  std::string line_;
  std::int64_t seq_ = 0;
};

std::string key_name(std::int64_t index) { return "n=" + std::to_string(index); }

// One white-box attempt by `owner` with `waiter` blocked on it, then both launch the winner.
void tune_with_waiter(LineWriter& w, const std::string& owner, const std::string& waiter,
                      const std::string& key, int configs) {
  const std::string winner = LineWriter::config(winner_of(configs));
  w.event(owner, "call_begin", key);
  w.event(owner, "tune_begin", key);
  w.event(waiter, "call_begin", key);
  w.event(waiter, "wait_begin", key);
  for (int c = 0; c < configs; ++c) w.event(owner, "bench", key, LineWriter::timed(c, configs));
  w.event(owner, "tune_end", key, winner);
  w.event(waiter, "wait_end", key);
  w.event(waiter, "launch", key, winner);
  w.event(waiter, "call_end", key, winner);
  w.event(owner, "launch", key, winner);
  w.event(owner, "call_end", key, winner);
}

// The same in a black-box trace: no tune or wait events, and the waiter launches the winner
// before the owner does, so that the checker must place the publication between the owner's last
// bench and the waiter's launch, and settle the winner the waiter read at the owner's launch.
void tune_with_waiter_black_box(LineWriter& w, const std::string& owner, const std::string& waiter,
                                const std::string& key, int configs) {
  const std::string winner = LineWriter::config(winner_of(configs));
  w.event(owner, "call_begin", key);
  w.event(waiter, "call_begin", key);
  for (int c = 0; c < configs; ++c) w.event(owner, "bench", key, LineWriter::timed(c, configs));
  w.event(waiter, "launch", key, winner);
  w.event(waiter, "call_end", key, winner);
  w.event(owner, "launch", key, winner);
  w.event(owner, "call_end", key, winner);
}

void tuned_call(LineWriter& w, const std::string& thread, const std::string& key, int configs) {
  const std::string winner = LineWriter::config(winner_of(configs));
  w.event(thread, "call_begin", key);
  w.event(thread, "launch", key, winner);
  w.event(thread, "call_end", key, winner);
}

// An ordinary run: 16 threads over 64 keys of 8 configs. Keys are tuned (with a waiter), called
// on, and now and then invalidated and tuned again. `fresh_threads` names a new thread for every
// call, as a recorder that names threads by task would. A black-box run shows what a recorder
// outside the autotuner sees: calls, benches, launches, and each invalidate from its begin.
std::int64_t ordinary(std::FILE* out, std::int64_t events, bool fresh_threads, bool white_box = true) {
  constexpr int kThreads = 16, kKeys = 64, kConfigs = 8;
  LineWriter w(out);
  w.header(kConfigs, white_box);
  std::vector<bool> tuned(kKeys, false);
  std::int64_t calls = 0;
  auto thread = [&](std::int64_t index) {
    return fresh_threads ? "\"task-" + std::to_string(++calls) + "\"" : std::to_string(index % kThreads);
  };
  for (std::int64_t step = 0; w.events() < events; ++step) {
    const std::int64_t k = (step * 37) % kKeys;
    const std::string key = key_name(k);
    if (!tuned[k]) {
      const auto tune = white_box ? tune_with_waiter : tune_with_waiter_black_box;
      tune(w, thread(step), thread(step + 1), key, kConfigs);
      tuned[k] = true;
    } else if (step % 53 == 0) {
      if (!white_box) w.event(thread(step), "invalidate_begin", key);
      w.event(thread(step), "invalidate", key);
      tuned[k] = false;
    } else {
      tuned_call(w, thread(step), key, kConfigs);
    }
  }
  return w.events();
}

std::int64_t ordinary_events(std::FILE* out, std::int64_t events) { return ordinary(out, events, false); }
std::int64_t fresh_thread_names(std::FILE* out, std::int64_t events) { return ordinary(out, events, true); }
std::int64_t black_box_events(std::FILE* out, std::int64_t events) { return ordinary(out, events, false, false); }

// Ten keys, each tuned once over `configs` configs, with a waiter, then called 10 times.
std::int64_t many_configs(std::FILE* out, std::int64_t configs) {
  const int space = static_cast<int>(configs);
  LineWriter w(out);
  w.header(space, true);
  for (int k = 0; k < 10; ++k) {
    tune_with_waiter(w, "1", "2", key_name(k), space);
    for (int c = 0; c < 10; ++c) tuned_call(w, std::to_string(3 + c), key_name(k), space);
  }
  return w.events();
}

// One thread nests `depth` calls, each tuning its own key and calling the next key from inside
// its attempt (a pre-bench hook would). Closed: every level then benches, publishes, launches and
// returns. Open: nothing returns, and each level is a hang.
std::int64_t nesting(std::FILE* out, std::int64_t depth, bool closed) {
  LineWriter w(out);
  w.header(1, true);
  for (std::int64_t level = 0; level < depth; ++level) {
    w.event("1", "call_begin", key_name(level));
    w.event("1", "tune_begin", key_name(level));
  }
  if (!closed) return w.events();
  for (std::int64_t level = depth - 1; level >= 0; --level) {
    const std::string key = key_name(level);
    w.event("1", "bench", key, LineWriter::timed(0, 1));
    w.event("1", "tune_end", key, LineWriter::config(0));
    w.event("1", "launch", key, LineWriter::config(0));
    w.event("1", "call_end", key, LineWriter::config(0));
  }
  return w.events();
}

std::int64_t nesting_closed(std::FILE* out, std::int64_t depth) { return nesting(out, depth, true); }
std::int64_t nesting_open(std::FILE* out, std::int64_t depth) { return nesting(out, depth, false); }

// `keys` keys over keys/10 threads: each key tuned once by its own thread, then as many calls
// again, spread over every thread and key.
std::int64_t threads_and_keys(std::FILE* out, std::int64_t keys) {
  constexpr int kConfigs = 2;
  const std::int64_t threads = keys / 10;
  LineWriter w(out);
  w.header(kConfigs, true);
  const std::string winner = LineWriter::config(winner_of(kConfigs));
  for (std::int64_t k = 0; k < keys; ++k) {
    const std::string thread = std::to_string(k % threads), key = key_name(k);
    w.event(thread, "call_begin", key);
    w.event(thread, "tune_begin", key);
    for (int c = 0; c < kConfigs; ++c) w.event(thread, "bench", key, LineWriter::timed(c, kConfigs));
    w.event(thread, "tune_end", key, winner);
    w.event(thread, "launch", key, winner);
    w.event(thread, "call_end", key, winner);
  }
  for (std::int64_t j = 0; j < keys; ++j)
    tuned_call(w, std::to_string(j % threads), key_name((j * 7919) % keys), kConfigs);
  return w.events();
}

}  // namespace

std::vector<Shape> checker_shapes(bool full_scale) {
  using Sizes = std::vector<std::int64_t>;
  auto pick = [full_scale](Sizes full, Sizes small) { return full_scale ? full : small; };
  return {
      {"ordinary", "events", pick({100'000, 1'000'000, 10'000'000}, {1'000, 10'000}), 0, ordinary_events},
      {"black_box", "events", pick({100'000, 1'000'000, 10'000'000}, {1'000, 10'000}), 0, black_box_events},
      {"fresh_thread_names", "events", pick({160'000, 1'600'000}, {1'000, 10'000}), 0, fresh_thread_names},
      {"many_configs", "configs", pick({10'000, 100'000}, {100, 1'000}), 0, many_configs},
      {"nesting_closed", "depth", pick({10'000, 100'000}, {100, 1'000}), 0, nesting_closed},
      {"nesting_open", "depth", pick({10'000, 100'000}, {100, 1'000}), 1, nesting_open},
      {"threads_and_keys", "keys", pick({10'000, 100'000}, {100, 1'000}), 0, threads_and_keys},
  };
}

}  // namespace safetune::bench
