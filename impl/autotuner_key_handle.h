// A key's handle (BasicAutotuner::handle): the key's entry, found once, so that a call through it
// skips what call() does first, the key's hash and the walk of its bucket: a tuned call through
// a handle is one acquire load of the winner, then the winner's prepared launch.
//
// When to use one: for hot shapes known in advance (a server's few batch sizes, a model's layer
// shapes), made once at start-up and kept beside the code that calls them. For a key worked out
// anew at each call, call() costs the same as handle(key).call(...), since making a handle is the
// lookup itself.
//
// What must stay true:
//   - A call through a handle is call() past the lookup: the same code (call_entry), so a cold,
//     tuning or invalidated key behaves through it exactly as through call() (it waits, tunes,
//     raises or falls back alike), and its trace is the same.
//   - Its invocation's key is the entry's own key: a call through a handle cannot name a key
//     other than the one its entry was made for.
//   - A handle stays valid for as long as its autotuner: an entry is never moved or freed before
//     the autotuner's index is (autotuner_key_index.h), invalidate() included. It is two pointers,
//     copied freely and used by any number of threads at once.
#pragma once

#include <string_view>

#include "impl/config.h"
#include "impl/kernel.h"

namespace safetune {

template <class Sync>
class BasicAutotuner;
template <class Sync>
struct KeyEntry;

template <class Sync>
class BasicKeyHandle {
 public:
  // Launches on `stream`, with the kernel's own `args`, and returns the config it launched: what
  // call(Invocation{key(), stream, args}) does, and throws what it throws.
  [[gnu::always_inline]] inline const Config& call(Stream& stream, void* args = nullptr) const {
    return tuner_->call_entry(*entry_, Invocation{.key = entry_->key, .stream = stream, .args = args});
  }
  std::string_view key() const { return entry_->key; }

 private:
  friend class BasicAutotuner<Sync>;
  BasicKeyHandle(BasicAutotuner<Sync>& tuner, KeyEntry<Sync>& entry) : tuner_(&tuner), entry_(&entry) {}

  BasicAutotuner<Sync>* tuner_;
  KeyEntry<Sync>* entry_;
};

}  // namespace safetune
