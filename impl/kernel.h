// The device-facing interface the autotuner drives: streams and tunable kernels.
//
// The autotuner knows nothing about sim or CUDA; a device provides Streams and Kernels.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "config.h"

namespace safetune {

// A launch or a benchmark of one config failed (bad config, injected fault, CUDA error).
// The autotuner records it as a failed bench and skips the config.
struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What kind of stream a Stream is, named by the address of one object per kind: a device's
// kernels compare a stream's kind() with their own device's to check that the stream is theirs.
struct StreamKind {
  const char* name;
};

// An in-order queue of device work. Each calling thread uses its own stream.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual void synchronize() = 0;  // blocks the calling thread until the queue is drained
  virtual int id() const = 0;      // stable, unique per device; used as the trace's `stream`
  // Null unless the stream's class gave one. A plain field, not RTTI: a kernel checks it on
  // every launch, and typeid reads two more lines (the vtable's type_info, then its name).
  const StreamKind* kind() const { return kind_; }

 protected:
  Stream() = default;
  // `kind` must outlive the stream; only the one class of streams of that kind passes it.
  explicit Stream(const StreamKind* kind) : kind_(kind) {}

 private:
  const StreamKind* const kind_ = nullptr;
};

// "its kind is 'sim'", or "it has no kind": what a kernel's error says of a stream it refuses.
inline std::string kind_description(const Stream& stream) {
  if (stream.kind() == nullptr) return "it has no kind";
  return std::string("its kind is '") + stream.kind()->name + "'";
}

// One call's arguments, as the autotuner passes them through to the kernel and to hooks.
struct Invocation {
  std::string_view key;   // the tuning key, computed by the caller's key function
  Stream& stream;         // the caller's stream: every launch of this call goes here
  void* args = nullptr;   // the kernel's own arguments, opaque to the autotuner
};

// The launch of one config, with everything it needs from the config worked out in advance.
// launch(inv) must do exactly what Kernel::launch(inv, config) does for that config. It is
// called concurrently from any number of threads, with no autotuner lock held.
//
// It comes in two halves, so that the caller's own frame is the one the driver returns to:
//   - enqueue(inv) enqueues the launch and returns a status: 0, or a code of the kernel's own.
//     It may throw, before it enqueues anything. It should end in a tail call to the driver's
//     enqueue, with nothing left to do after it: each frame of ours that the driver's enqueue
//     returns through cost 0.4-0.7% of a launch on the H100 (docs/gpu.md), most likely
//     because the driver's deep call chain overwrites the core's return predictions.
//   - finish(status) reads what enqueue left (the status, the launch's error) and throws what
//     Kernel::launch would: LaunchError for a config the device refused. It is called after
//     every enqueue that returned, with its status.
class PreparedLaunch {
 public:
  virtual ~PreparedLaunch() = default;
  [[nodiscard]] virtual int enqueue(const Invocation& inv) const = 0;
  virtual void finish(int status) const = 0;
  // Inline: both halves are called from the caller's frame.
  [[gnu::always_inline]] void launch(const Invocation& inv) const { finish(enqueue(inv)); }
};

// A kernel with a config space. Its calls are made without any autotuner lock held.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual const std::string& name() const = 0;
  // Enqueues one launch on inv.stream. Throws LaunchError when the config cannot launch.
  virtual void launch(const Invocation& inv, const Config& config) = 0;
  // Benchmarks one config on inv.stream: warm-up, timed repetitions, median, in ns.
  // Throws LaunchError when the config fails.
  virtual double benchmark(const Invocation& inv, const Config& config) = 0;
  // Optional. The autotuner prepares each config of its space (and its fallback) once, when it
  // is built, and launches through the result, so that a call on a tuned key does not read the
  // config again: on a GPU that read costs a measurable part of a launch (docs/gpu.md).
  // Null (the default) means not prepared: the autotuner calls launch(inv, config). A config the
  // kernel cannot run may throw LaunchError here; the autotuner then calls launch(inv, config),
  // which reports the failure. The autotuner owns the result and destroys it before `config`, so
  // the result may keep references to `config` and to this kernel.
  virtual std::unique_ptr<PreparedLaunch> prepare(const Config& /*config*/) { return nullptr; }
};

}  // namespace safetune
