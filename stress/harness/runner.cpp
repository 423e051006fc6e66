#include "stress/harness/runner.h"

#include <atomic>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <thread>
#include <vector>

#include "impl/bench_lock.h"
#include "impl/cuda/stress_workload.h"
#include "impl/sim/sim_device.h"
#include "impl/sim/sim_kernel.h"
#include "impl/trace/trace_recorder.h"
#include "stress/harness/benchmark_hook_kernel.h"
#include "stress/harness/recording_kernel.h"
#include "stress/harness/round_progress.h"
#include "stress/harness/watchdog.h"

namespace safetune::stress {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kMonitorPeriod{20};

// A worker process's name in the trace: its number, or, on one of several hosts, "host-1/7".
model::Name process_name(const ProcessRole& role) {
  if (role.host) return model::Name::string(*role.host + "/" + std::to_string(role.process));
  return model::Name::integer(role.process);
}
// A nested hook works this long before its call, so that its owner stays in its attempt long
// enough for another owner to call back into its key: the cycles of nested tunings (R11) then
// show several times in every default-length run of the full mix, not once in a few.
constexpr std::chrono::microseconds kNestedHookWork{100};
// The longest wait of a recorded event before its seq (ProgramMix::recorder_delay). A tuned key's
// next call comes a third of a millisecond after its tune_end in the median of a full-mix round
// (a tenth in one in ten), so a window this long usually holds another thread's call.
constexpr std::chrono::milliseconds kRecorderDelay{2};

// The step whose hook action has not fired yet on this worker thread: set before a top-level
// call, taken by the pre-bench hook of the config it names (a FailAll step by none: it fails
// every config), cleared after the call.
thread_local const ProgramStep* pending_hook = nullptr;
thread_local int worker_index = -1;

sim::SimKernelOptions kernel_options(const Program& program, const ConfigSpace& space) {
  sim::SimKernelOptions options;
  options.name = kStressKernelName;
  options.time_levels = program.time_levels;
  for (int config : program.failing_configs) options.fail_launch.push_back(space[config]);
  return options;
}

// StdSync's schedule noise for one round (ProgramMix::sync_noise).
class SyncNoise {
 public:
  explicit SyncNoise(bool on) { StdSync::schedule_noise(on); }
  ~SyncNoise() { StdSync::schedule_noise(false); }
  SyncNoise(const SyncNoise&) = delete;
  SyncNoise& operator=(const SyncNoise&) = delete;
};

model::Header round_header(const StressOptions& options, const SubjectInfo& subject,
                           const ConfigSpace& space, const std::optional<Config>& fallback) {
  model::Header header;
  header.present = true;
  header.white_box = subject.white_box;
  // Each round's store starts empty (process_round.h), and only --damage-store writes it from
  // outside the traced processes: without it, every entry a load finds must be whole.
  header.fresh_store = options.store.has_value() && !options.damage_store;
  // Owners stalled (slow benchmarks) and none paused: each stays live, renewing its lease, so a
  // lease lost was not renewed. Only such runs say so: elsewhere a starved heartbeat may lose one.
  header.live_owners = options.stall_owners > 0 && options.pause_owners <= 0;
  header.policy.wait = options.wait;
  header.policy.reentry = options.reentry;
  if (fallback) header.policy.fallback = fallback->str();
  header.configs[kStressKernelName] = space.strings();
  return header;
}

// The device's config outside the space: the fallback of the fallback policies, and the work a
// failing hook launches.
Config outside_config(const StressOptions& options) {
#ifdef SAFETUNE_HAS_CUDA
  if (options.device == "cuda") return cuda::CudaStressWorkload::fallback_config();
#endif
  (void)options;
  return stress_fallback_config();
}

std::optional<Config> fallback_for(const StressOptions& options) {
  return model::needs_fallback(options.wait, options.reentry) ? std::optional<Config>(outside_config(options))
                                                                : std::nullopt;
}

// --device cuda: the real device (vector add per stream, outputs verified after every call);
// null on sim. The CUDA code exists only in a build with SAFETUNE_CUDA.
std::unique_ptr<cuda::CudaStressWorkload> open_workload(const StressOptions& options) {
  if (options.device != "cuda") return nullptr;
#ifdef SAFETUNE_HAS_CUDA
  return cuda::CudaStressWorkload::create(kStressKernelName);
#else
  throw std::logic_error("--device cuda in a build without CUDA (the command line should refuse it)");
#endif
}

ConfigSpace round_space(const StressOptions& options) {
#ifdef SAFETUNE_HAS_CUDA
  if (options.device == "cuda") return cuda::CudaStressWorkload::config_space(options.shape.configs);
#endif
  return stress_config_space(options.shape.configs);
}

class Round {
 public:
  Round(const StressOptions& options, const SubjectInfo& subject, const Program& program, const ProcessRole* role)
      : program_(program),
        role_(role),
        workload_(open_workload(options)),
        space_(round_space(options)),
        outside_(outside_config(options)),
        fallback_(fallback_for(options)),
        device_(sim::SimDeviceOptions{program.device_seed, sim::RandomDelayOptions{}}),
        kernel_(device_, kernel_options(program, space_)),
        sync_noise_(program.sync_noise),
        recorder_(round_header(options, subject, space_, fallback_)),
        white_box_(subject.white_box) {
    for (std::size_t i = 0; i < program.threads.size(); ++i) {
      streams_.push_back(workload_ ? workload_->new_stream() : device_.new_stream());
    }
    caught_.resize(program.threads.size());
    recorder_.delay_before_seq(program.recorder_delay, kRecorderDelay);
    if (role_ != nullptr) recorder_.as_process(process_name(*role_), role_->origin);
    if (role_ != nullptr && role_->kill_at_bench > 0) recorder_.gate_for_freeze();
    hook_kernel_.emplace(device_kernel(), [this](const Invocation& inv, const Config& config) {
      on_benchmark(inv, config);
    });
    if (!white_box_) recording_kernel_.emplace(*hook_kernel_, recorder_);
    subject_ = subject.make(environment(options));
  }

  RoundResult run(const RoundMonitor& monitor) {
    std::vector<std::thread> workers;
    start_workers(workers);
    watch(monitor, static_cast<int>(workers.size()));
    for (std::thread& worker : workers) worker.join();
    for (auto& stream : streams_) stream->synchronize();
    if (auto lost = what_was_lost()) return RoundResult{{}, lost};  // no trace: it proves nothing
    try {
      return RoundResult{recorder_.take(), std::nullopt};
    } catch (const std::bad_alloc&) {
      return RoundResult{{}, "the recorded trace could not be merged (out of memory)"};
    }
  }

 private:
  SubjectEnvironment environment(const StressOptions& options) {
    Kernel& kernel = recording_kernel_ ? static_cast<Kernel&>(*recording_kernel_) : *hook_kernel_;
    return SubjectEnvironment{
        .kernel = kernel,
        .space = space_,
        .wait = options.wait,
        .reentry = options.reentry,
        .fallback = fallback_,
        .observer = white_box_ ? &recorder_ : nullptr,
        .bench_lock = workload_ ? &workload_->bench_lock()  // on by default for CUDA
                      : options.bench_lock || program_.bench_lock ? &bench_lock_ : nullptr,
        .pre_bench_hook = [this](const Invocation& inv, const Config& config) {
          on_pre_bench(inv, config);
        },
        .store = role_ != nullptr ? role_->store : nullptr,
        .device = {.name = options.device, .compute_capability = "-", .driver = "-", .toolkit = "-"},
        .store_failure_fails = options.store_failure_fails};
  }

  // Starts a worker per program thread, as many as the system lets it (a thread that cannot
  // start makes the round incomplete; the others run their programs through).
  void start_workers(std::vector<std::thread>& workers) {
    try {
      for (std::size_t i = 0; i < program_.threads.size(); ++i)
        workers.emplace_back([this, i] { run_worker(static_cast<int>(i)); });
    } catch (const std::exception& error) {
      not_started_ = "worker thread " + std::to_string(workers.size()) + " of " +
                     std::to_string(program_.threads.size()) + " could not start (" + error.what() + ")";
    }
  }

  std::optional<std::string> what_was_lost() const {
    std::string lost;
    auto add = [&](const std::string& what) { lost += (lost.empty() ? "" : "; ") + what; };
    if (not_started_) add(*not_started_);
    if (const std::int64_t events = recorder_.lost(); events > 0)
      add(std::to_string(events) + " event(s) could not be recorded (out of memory)");
    if (const std::int64_t calls = out_of_memory_calls_.load(std::memory_order_relaxed); calls > 0)
      add(std::to_string(calls) + " call(s) ran out of memory");
    return lost.empty() ? std::nullopt : std::optional<std::string>(lost);
  }

  // Runs on the calling thread until every worker has finished, or ends the process on a hang:
  // no event recorded (or lost) for the watchdog's limit, in this process or, for a worker process
  // (monitor.round_progress), in any process of its round.
  void watch(const RoundMonitor& monitor, int workers) {
    Watchdog watchdog(monitor.watchdog_limit, Clock::now());
    std::optional<RoundProgressShare> share;
    if (monitor.round_progress != nullptr) share.emplace(*monitor.round_progress);
    while (finished_.load(std::memory_order_acquire) < workers) {
      std::this_thread::sleep_for(kMonitorPeriod);
      if (dying_.load(std::memory_order_relaxed)) continue;  // frozen for its kill: no stall
      if (monitor.on_progress) monitor.on_progress(completed_.load(std::memory_order_relaxed));
      const std::int64_t recorded = recorder_.progress();
      if (watchdog.stalled(share ? share->add(recorded) : recorded, Clock::now())) {
        monitor.on_hang(recorder_.snapshot(), what_was_lost());
        std::_Exit(1);  // on_hang must not return; never join stuck workers
      }
    }
  }

  void run_worker(int index) {
    worker_index = index;
    TraceRecorder::bind_thread(index);
    for (const ProgramStep& step : program_.threads[static_cast<std::size_t>(index)].steps) {
      // A round that lost an event proves nothing: stop it rather than run it out. (A relaxed
      // read of a counter; it orders nothing.)
      if (recorder_.lost() > 0 || out_of_memory_calls_.load(std::memory_order_relaxed) > 0) break;
      run_step(step);
    }
    finished_.fetch_add(1, std::memory_order_release);  // pairs with the acquire in watch()
  }

  void run_step(const ProgramStep& step) {
    if (step.invalidate) return run_invalidate(step.key);
    pending_hook = step.hook == HookAction::None ? nullptr : &step;
    run_call(key_name(step.key));
    pending_hook = nullptr;
  }

  // A black-box subject reports nothing, so the harness records what it sees: the call of the
  // invalidate before it, and its return after it. The effect lies somewhere between; a record
  // after the call alone would come after a new attempt that began right after the erase.
  void run_invalidate(int key) {
    const std::string key_text = key_name(key);
    if (!white_box_) record_invalidate(model::EventKind::InvalidateBegin, key_text);
    subject_->invalidate(key_text);
    if (!white_box_) record_invalidate(model::EventKind::Invalidate, key_text);
  }

  void record_invalidate(model::EventKind kind, const std::string& key) {
    ObservedEvent event{};
    event.kind = kind;
    event.kernel = kStressKernelName;
    event.key = key;
    recorder_.record(event);
  }

  void run_call(const std::string& key) {
    Stream& stream = *streams_[static_cast<std::size_t>(worker_index)];
    recorder_.call_begin(kStressKernelName, key, stream.id());
    try {
      const Config launched = subject_->call(Invocation{key, stream});
      if (workload_) workload_->verify(stream);  // this stream only: others keep running
      recorder_.call_end(kStressKernelName, key, CallOutcome::returned(launched.str()), stream.id());
    } catch (const std::bad_alloc& failure) {
      // Not the subject's answer but the machine's: the round is incomplete (what_was_lost).
      out_of_memory_calls_.fetch_add(1, std::memory_order_relaxed);
      recorder_.call_end(kStressKernelName, key, CallOutcome::raised(failure.what()), stream.id());
    } catch (const std::exception& failure) {
      recorder_.call_end(kStressKernelName, key, CallOutcome::raised(failure.what()), stream.id());
      keep_until_joined(std::current_exception());
    } catch (...) {
      recorder_.call_end(kStressKernelName, key, CallOutcome::raised("unknown exception"), stream.id());
    }
    completed_.fetch_add(1, std::memory_order_relaxed);  // a counter: orders nothing
  }

  // A subject may hand one exception object to several threads (a shared_future's get() rethrows
  // the same object in every waiter). The last thread to let go of it frees it, after an atomic
  // decrement of its reference count inside libstdc++, which ThreadSanitizer does not see: it
  // would report that free as racing with another thread's what() (a false report). So the
  // harness holds every exception it caught until the workers are joined, and the object is
  // freed after the join, which TSan does see.
  void keep_until_joined(std::exception_ptr caught) {
    try {
      caught_[static_cast<std::size_t>(worker_index)].push_back(std::move(caught));
    } catch (const std::bad_alloc&) {
      out_of_memory_calls_.fetch_add(1, std::memory_order_relaxed);  // the round is incomplete
    }
  }

  void on_pre_bench(const Invocation& inv, const Config& config) {
    // A FailAll step stays pending for its whole call, so that every config of it fails.
    if (pending_hook != nullptr && pending_hook->hook == HookAction::FailAll) {
      // A failing config still costs device time (its set-up ran on the stream), so an attempt
      // that fails throughout lasts about as long as one that succeeds and has waiters.
      device_kernel().launch(inv, outside_);
      inv.stream.synchronize();
      return throw_hook_failure(inv, config);
    }
    // Any other action fires once, at the hook of the config it names (a nested call made from
    // inside the benchmark, at on_benchmark).
    if (pending_hook == nullptr || pending_hook->in_benchmark) return;
    if (space_.index_of(config) != static_cast<std::size_t>(pending_hook->hook_config)) return;
    const ProgramStep* step = std::exchange(pending_hook, nullptr);
    switch (step->hook) {
      case HookAction::None:
      case HookAction::FailAll: return;
      case HookAction::Reenter: return run_call(std::string(inv.key));
      case HookAction::Nested: return run_nested(*step);
      case HookAction::Throw: return throw_hook_failure(inv, config);
    }
  }

  // Inside the kernel's benchmark, under the subject's bench lock: the nested call of a step
  // that makes it there.
  void on_benchmark(const Invocation& /*inv*/, const Config& config) {
    if (role_ != nullptr && (role_->kill_at_bench > 0 || role_->pause_at_bench > 0 || role_->stall_at_bench > 0)) {
      const int bench = benches_.fetch_add(1, std::memory_order_relaxed) + 1;
      if (bench == role_->kill_at_bench) die_here();
      if (bench == role_->pause_at_bench) role_->paused();
      if (bench == role_->stall_at_bench) std::this_thread::sleep_for(role_->stall_length);
    }
    if (pending_hook == nullptr || !pending_hook->in_benchmark) return;
    if (space_.index_of(config) != static_cast<std::size_t>(pending_hook->hook_config)) return;
    run_nested(*std::exchange(pending_hook, nullptr));
  }

  // --kill-owners: the recording stops, and the process's trace ends with its exit, stamped
  // now: after every event it recorded, and before anything its death lets another process do.
  [[noreturn]] void die_here() {
    dying_.store(true, std::memory_order_relaxed);  // before the freeze: the watchdog looks away
    model::Trace trace = recorder_.freeze();
    model::Event exit;
    exit.kind = model::EventKind::Exit;
    exit.seq = trace.events.empty() ? 1 : trace.events.back().seq + 1;
    exit.process = process_name(*role_);
    exit.thread = model::Name::integer(worker_index);
    exit.t_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - role_->origin).count();
    trace.events.push_back(std::move(exit));
    role_->killed(std::move(trace));
    std::abort();  // `killed` must not return
  }

  void run_nested(const ProgramStep& step) {
    std::this_thread::sleep_for(kNestedHookWork);
    run_call(key_name(step.nested_key));
  }

  // A throwing hook is a failed bench of `config`; a black-box subject cannot report it.
  [[noreturn]] void throw_hook_failure(const Invocation& inv, const Config& config) {
    const std::string error = "injected hook failure before benchmarking " + config.str();
    if (!white_box_) {
      ObservedEvent bench{};
      bench.kind = model::EventKind::Bench;
      bench.kernel = kStressKernelName;
      bench.key = inv.key;
      bench.config = &config.str();
      bench.error = &error;
      bench.stream = inv.stream.id();
      recorder_.record(bench);
    }
    throw sim::InjectedHookFailure(error);
  }

  Kernel& device_kernel() { return workload_ ? workload_->kernel() : kernel_; }

  const Program& program_;
  const ProcessRole* const role_;  // null: the only process
  const std::unique_ptr<cuda::CudaStressWorkload> workload_;  // before streams_: outlives them
  const ConfigSpace space_;
  const Config outside_;  // in no space: see outside_config()
  const std::optional<Config> fallback_;
  sim::SimDevice device_;
  std::vector<std::unique_ptr<Stream>> streams_;
  sim::SimKernel kernel_;
  const SyncNoise sync_noise_;
  TraceRecorder recorder_;
  const bool white_box_;
  std::optional<BenchmarkHookKernel> hook_kernel_;  // device_kernel() with on_benchmark
  std::optional<RecordingKernel> recording_kernel_;  // black-box: *hook_kernel_, recorded
  BenchLock bench_lock_;
  std::unique_ptr<Subject> subject_;  // last: destroyed first, before what it refers to
  std::atomic<std::int64_t> completed_{0};
  std::atomic<std::int64_t> out_of_memory_calls_{0};  // relaxed: a count, read after the joins
  std::atomic<int> finished_{0};
  std::atomic<int> benches_{0};  // relaxed: a count, for --kill-owners and --pause-owners
  std::atomic<bool> dying_{false};  // relaxed: only the watchdog reads it, to stand down
  std::vector<std::vector<std::exception_ptr>> caught_;  // by worker: each touches only its own
  std::optional<std::string> not_started_;
};

}  // namespace

Config stress_fallback_config() { return Config({{"BLOCK", 16}}); }

ConfigSpace stress_config_space(int configs) {
  std::vector<Config> space;
  for (int i = 1; i <= configs; ++i) space.emplace_back(std::vector<Config::Param>{{"BLOCK", 32 * i}});
  return ConfigSpace(std::move(space));
}

RoundResult run_round(const StressOptions& options, const SubjectInfo& subject, const Program& program,
                      const RoundMonitor& monitor, const ProcessRole* role) {
  Round round(options, subject, program, role);
  return round.run(monitor);
}

}  // namespace safetune::stress
