#include "impl/store/redis/redis_waits.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>
#include <thread>

#include "impl/store/hex_hash.h"
#include "impl/store/redis/redis_connection.h"
#include "impl/store/redis/redis_keeper.h"
#include "impl/store/redis/redis_store.h"
#include "impl/store/waits_record.h"

namespace safetune {

namespace {

using namespace std::chrono_literals;

std::string new_process_name() {
  std::mt19937_64 bits{std::random_device{}()};
  return std::to_string(::getpid()) + "." + store_hash::hex64(bits());
}

// How often a waiter on the graph looks again, at most.
constexpr auto kLongestPause = 50ms;

}  // namespace

RedisWaits::RedisWaits(RedisStore& store)
    : store_(store),
      graph_key_(store.address().space + ":waits:graph"),
      this_process_{.process = new_process_name(), .waited = {}},
      live_key_(live_key_of(this_process_.process)),
      lock_(store, kLockName, this_process_.process, [this](const auto& argv) { return command(argv); }) {}

RedisWaits::~RedisWaits() {
  if (!living_) return;
  store_.keeper().give_up(*living_);
  try {  // this process's records are dropped by the next change, as a dead one's
    store_.run({"DEL", live_key_});
  } catch (...) {
  }
}

std::string RedisWaits::entry_name(const EntryId& id) const { return store_.key("entry", id); }

std::string RedisWaits::live_key_of(const std::string& process) const { return store_.address().space + ":waits:live:" + process; }

// A process paused past its lease was dropped from the graph meanwhile; when it goes on, it is live
// again (the keeper sets its key at each beat), with no records.
void RedisWaits::start_living() {
  if (living_) return;
  command({"SET", live_key_, "1", "PX", std::to_string(store_.options().lease.count())});
  living_ = store_.keeper().keep(RedisKeeper::Kind::Liveness, live_key_, "1");
}

RedisReply RedisWaits::command(const std::vector<std::string_view>& argv) {
  if (!connection_) connection_.emplace(store_.address(), timeouts(), RedisConnection::Connect::AtFirstCommand);
  return connection_->command(argv);
}

RedisConnection::Timeouts RedisWaits::timeouts() const {
  return {.connect = store_.options().connect_timeout, .read = store_.options().read_timeout};
}

// The processes of the graph (this one aside) whose liveness key ran out.
std::vector<std::string> RedisWaits::dead_processes(const WaitsRecord& graph) {
  std::vector<std::string> others;
  std::vector<std::string> keys;
  for (const std::string& process : graph.processes()) {
    if (process == this_process_.process) continue;
    others.push_back(process);
    keys.push_back(live_key_of(process));
  }
  if (others.empty()) return {};
  std::vector<std::string_view> argv{"MGET"};
  argv.insert(argv.end(), keys.begin(), keys.end());
  const RedisReply live = command(argv);
  std::vector<std::string> dead;
  for (std::size_t i = 0; i < others.size() && i < live.items.size(); ++i)
    if (live.items[i].kind == RedisReply::Kind::Nil) dead.push_back(others[i]);
  return dead;
}

// A turn dropped while this process held it (paused past its lease, it was taken for dead, and its
// records dropped) is no failure of the server: the change is made again, on a new turn and the
// graph as it is then. Only a turn lost again and again (a lease too short for the server's round
// trips) is a StoreError.
template <class Change>
void RedisWaits::change_graph(const Change& change, const Report& report) {
  constexpr int kTurns = 3;
  const std::lock_guard guard(mutex_);
  start_living();
  for (int turn = 1; !change_graph_in_a_turn(change, report); ++turn)
    if (turn == kTurns)
      throw StoreError("results store " + store_.address().show() + ": the wait graph's lock ran out before its change was written, " +
                       std::to_string(kTurns) + " turns in a row");
}

template <class Change>
bool RedisWaits::change_graph_in_a_turn(const Change& change, const Report& report) {
  RedisFifoLock::Held held = lock_.lock();
  WaitsRecord graph = WaitsRecord::parse(command({"GET", graph_key_}).text, graph_key_);
  // Died, or paused past its lease: its threads wait on nothing, and its attempts are taken over
  // (the model holds a paused owner's in flight until its lease_lost). A killed owner's stay so:
  // it is looked up again at each change, and the graph is written only when a drop changed it.
  bool dropped = false;
  for (const std::string& process : dead_processes(graph)) dropped = graph.drop_lapsed_process(process) || dropped;
  if (change(graph) || dropped) {
    graph.drop_idle_keys();
    if (!held.set_if_held(graph_key_, graph.text())) return false;
  }
  report();
  return true;
}

std::optional<std::string> RedisWaits::wait_unless_cycle(const EntryId& id, const Report& report) {
  std::optional<std::string> cycle;
  change_graph(
      [&](WaitsRecord& graph) { return this_process_.wait_unless_cycle(graph, entry_name(id), id, cycle); },
      [&] {
        if (!cycle) report();
      });
  return cycle;
}

void RedisWaits::wait_ended(const Report& report) {
  change_graph([&](WaitsRecord& graph) { return this_process_.wait_ended(graph); }, report);
}

void RedisWaits::attempt_began(const EntryId& id, const Report& report) {
  change_graph(
      [&](WaitsRecord& graph) {
        graph.begin_attempt(this_process_.me(), entry_name(id), id);
        return true;
      },
      report);
}

void RedisWaits::attempt_ended(const EntryId& id, const Report& report) {
  change_graph([&](WaitsRecord& graph) { return graph.end_attempt(this_process_.me(), entry_name(id)); }, report);
}

// Polls the graph until this thread would wait on another attempt (the one waited on ended, or a
// later one began), its owner is dead (or paused past its lease), or this thread's wait was
// dropped. A lease is not an OFD lock: its holder may lose it while its attempt runs on (paused,
// or not renewed), so `claimed` is tried at each poll, not only before the attempt begins.
void RedisWaits::await_waited_attempt(const std::function<bool()>& claimed) {
  std::optional<ProcessWaits::Waited> waited;
  WaitsRecord::Thread me;
  {
    const std::lock_guard guard(mutex_);
    waited = this_process_.waited_by_me();
    me = this_process_.me();
  }
  for (auto pause = std::chrono::microseconds(50);; pause = std::min<std::chrono::microseconds>(2 * pause, kLongestPause)) {
    if (waited) {
      const WaitsRecord graph = WaitsRecord::parse(store_.run({"GET", graph_key_}).text, graph_key_);
      if (!graph.waits.contains(me) || graph.attempt_to_wait_on(me, waited->entry) != waited->attempt) return;
      // A dead owner is dropped (its attempt taken over) by the next change; meanwhile this thread
      // waits anew. An attempt taken over is waited on until its owner ends it, a later one begins,
      // or the claim is had.
      if (const WaitsRecord::Thread* owner = graph.current_owner(waited->entry, waited->attempt))
        if (store_.run({"EXISTS", live_key_of(owner->process)}).integer == 0) return;
    }
    if (claimed()) return;
    std::this_thread::sleep_for(pause);
  }
}

}  // namespace safetune
