// The wait-for graph: which thread waits on which attempt, so that no wait closes a cycle.
//
// Thread A owns an attempt on k0 and, from a hook, calls k1; thread B owns k1's attempt and,
// from a hook, calls k0. If both waited, neither attempt could end. A wait is an edge
// (waiting thread -> the attempt it waits on -> that attempt's owner). Before a thread waits it
// follows the edges from the owner it would wait for; if they lead back to itself, the wait
// would close a cycle, and the call gets the re-entry policy's answer instead (autotuner.h).
// Same-thread re-entry is the cycle of length one, and the autotuner answers it before asking.
//
// One graph serves every autotuner that may wait on another's attempt, whatever its kernel: a
// cycle may run through several (BasicTunerOptions::wait_graph; StdSync's default is the
// process's graph).
//
// Why the answer is exact (no false cycle, no missed one):
//   - An edge is added under the graph's mutex, together with its wait_begin report, and only
//     while its attempt is in flight (the caller holds that key's lock and saw it Tuning).
//   - The attempt's owner removes every edge to it under the graph's mutex, with the key's lock
//     held, before it wakes the waiters (attempt_finished), and a waiter released otherwise (with
//     a results store, its owner moved on to another process's claim) removes its own once its
//     wait_end is reported (wait_ended): so an edge is in the graph exactly while its waiter
//     waits on an attempt that is still in flight.
//   - A thread in a cycle cannot leave it: each waits on an attempt whose owner waits in turn,
//     and the last owner is the thread asking, which is busy asking. So a cycle seen under the
//     mutex is still there when the asking thread reports its answer.
//   - The graph never holds a cycle (no edge that closes one is added), so a walk ends.
// Cost: nothing on the tuned path, nor for an attempt nobody waits on. A wait takes the graph's
// mutex once and walks at most one edge per waiting thread; an attempt with waiters takes it once
// more when it ends.
#pragma once

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "impl/sync.h"

namespace safetune {

template <class Sync>
class BasicWaitGraph {
 public:
  using ThreadId = typename Sync::ThreadId;

  // One edge: a thread waits on `attempt` (its identity only, never dereferenced), which
  // `owner` runs on kernel `kernel`, key `key`.
  struct Edge {
    ThreadId owner{};
    const void* attempt = nullptr;
    std::string kernel;
    std::string key;
  };

  // Adds `waiter -> edge` and runs `on_added` (the wait_begin report) under the graph's mutex,
  // unless following the edges from edge.owner leads back to `waiter`. Then it adds nothing and
  // returns the cycle, in the order the waits would run: the edge asked for first.
  // `on_added` returns whether the wait goes ahead: false (a graph of several processes found a
  // cycle there) takes the edge back, and no cycle is returned from this one.
  template <class OnAdded>
  std::optional<std::vector<Edge>> wait_unless_cycle(ThreadId waiter, Edge edge, OnAdded on_added);
  // The attempt ended: the edges to it are removed (its waiters are about to wake).
  void attempt_finished(const void* attempt);
  // `waiter` waits no more (its edge may be gone already, with its attempt).
  void wait_ended(ThreadId waiter);

 private:
  typename Sync::Mutex mutex_;
  typename Sync::template Var<std::map<ThreadId, Edge>> waiting_ SAFETUNE_GUARDED_BY(mutex_);
};

using WaitGraph = BasicWaitGraph<StdSync>;

// The graph the autotuners of a sync policy share unless told otherwise: the process's for
// StdSync. Other policies (Relacy) have none, and their tests give each execution its own.
template <class Sync>
BasicWaitGraph<Sync>* default_wait_graph() {
  return nullptr;
}
template <>
inline BasicWaitGraph<StdSync>* default_wait_graph<StdSync>() {
  // Never destroyed: a thread still running at exit may wait.
  static WaitGraph* const process_graph = new WaitGraph;
  return process_graph;
}

// "thread A would wait on kernel 'add', key 'k0', tuned by thread B, which waits on kernel
// 'add', key 'k1', tuned by thread A": a cycle that wait_unless_cycle() returned, for an error.
template <class Sync>
std::string describe_cycle(typename Sync::ThreadId waiter, const std::vector<typename BasicWaitGraph<Sync>::Edge>& cycle) {
  std::ostringstream out;
  out << "thread " << waiter;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    out << (i == 0 ? " would wait on" : ", which waits on") << " kernel '" << cycle[i].kernel << "', key '"
        << cycle[i].key << "', tuned by thread " << cycle[i].owner;
  }
  return out.str();
}

// =============================================================================================
// Implementation details follow.
// =============================================================================================

template <class Sync>
template <class OnAdded>
std::optional<std::vector<typename BasicWaitGraph<Sync>::Edge>> BasicWaitGraph<Sync>::wait_unless_cycle(
    ThreadId waiter, Edge edge, OnAdded on_added) {
  typename Sync::Lock lock(mutex_);
  const std::map<ThreadId, Edge>& waiting = waiting_.get();
  std::vector<Edge> path{edge};
  for (ThreadId next = edge.owner; next != waiter;) {
    auto it = waiting.find(next);
    if (it == waiting.end()) {  // the chain ends at a thread that does not wait: no cycle
      waiting_.mut().insert_or_assign(waiter, std::move(edge));
      if (!on_added()) waiting_.mut().erase(waiter);
      return std::nullopt;
    }
    path.push_back(it->second);
    next = it->second.owner;
  }
  return path;
}

template <class Sync>
void BasicWaitGraph<Sync>::attempt_finished(const void* attempt) {
  typename Sync::Lock lock(mutex_);
  std::erase_if(waiting_.mut(), [attempt](const auto& entry) { return entry.second.attempt == attempt; });
}

template <class Sync>
void BasicWaitGraph<Sync>::wait_ended(ThreadId waiter) {
  typename Sync::Lock lock(mutex_);
  waiting_.mut().erase(waiter);
}

}  // namespace safetune
