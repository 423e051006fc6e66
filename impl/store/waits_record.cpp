#include "impl/store/waits_record.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace safetune {

namespace {

using Json = nlohmann::json;

Json to_json(const WaitsRecord::Thread& thread) { return Json{{"process", thread.process}, {"thread", thread.thread}}; }

WaitsRecord::Thread thread_of(const Json& json) {
  return {.process = json.at("process").get<std::string>(), .thread = json.at("thread").get<std::string>()};
}

}  // namespace

std::string thread_text(const WaitsRecord::Thread& thread) {
  return "thread " + thread.thread + " of process " + thread.process;
}

WaitsRecord WaitsRecord::parse(const std::string& text, const std::string& where) {
  WaitsRecord record;
  if (text.empty()) return record;
  try {
    const Json json = Json::parse(text);
    for (const auto& [name, key] : json.at("keys").items()) {
      Key& held = record.keys[name];
      held.kernel = key.at("kernel").get<std::string>();
      held.key = key.at("key").get<std::string>();
      held.begun = key.at("begun").get<std::uint64_t>();
      if (key.contains("owner")) held.owner = thread_of(key.at("owner"));
      if (key.contains("taken_over"))
        for (const Json& attempt : key.at("taken_over"))
          held.taken_over[attempt.at("attempt").get<std::uint64_t>()] = thread_of(attempt);
    }
    for (const Json& wait : json.at("waits"))
      record.waits[thread_of(wait)] = {.key = wait.at("key").get<std::string>(), .attempt = wait.at("attempt").get<std::uint64_t>()};
  } catch (const Json::exception& e) {
    throw StoreError("results store: the wait graph " + where + " is damaged: " + e.what());
  }
  return record;
}

std::string WaitsRecord::text() const {
  Json keys_json = Json::object();
  for (const auto& [name, key] : keys) {
    Json& held = keys_json[name] = Json{{"kernel", key.kernel}, {"key", key.key}, {"begun", key.begun}};
    if (key.owner) held["owner"] = to_json(*key.owner);
    for (const auto& [attempt, owner] : key.taken_over) {
      Json json = to_json(owner);
      json["attempt"] = attempt;
      held["taken_over"].push_back(std::move(json));
    }
  }
  Json waits_json = Json::array();
  for (const auto& [thread, wait] : waits) {
    Json held = to_json(thread);
    held["key"] = wait.key;
    held["attempt"] = wait.attempt;
    waits_json.push_back(std::move(held));
  }
  return Json{{"keys", keys_json}, {"waits", waits_json}}.dump();
}

std::set<std::string> WaitsRecord::processes() const {
  std::set<std::string> names;
  for (const auto& [name, key] : keys) {
    if (key.owner) names.insert(key.owner->process);
    for (const auto& [attempt, owner] : key.taken_over) names.insert(owner.process);
  }
  for (const auto& [thread, wait] : waits) names.insert(thread.process);
  return names;
}

void WaitsRecord::drop_process(const std::string& process) {
  drop_lapsed_process(process);
  for (auto& [name, key] : keys)
    std::erase_if(key.taken_over, [&](const auto& attempt) { return attempt.second.process == process; });
}

bool WaitsRecord::drop_lapsed_process(const std::string& process) {
  bool changed = std::erase_if(waits, [&](const auto& entry) { return entry.first.process == process; }) > 0;
  for (auto& [name, key] : keys)
    if (key.owner && key.owner->process == process) {
      key.taken_over[key.begun] = *key.owner;
      key.owner.reset();
      changed = true;
    }
  return changed;
}

void WaitsRecord::drop_idle_keys() {
  std::set<std::string> waited;
  for (const auto& [thread, wait] : waits) waited.insert(wait.key);
  std::erase_if(keys, [&](const auto& entry) {
    const Key& key = entry.second;
    return !key.owner && key.taken_over.empty() && !waited.contains(entry.first);
  });
}

WaitsRecord::Key& WaitsRecord::key_record(const std::string& name, const EntryId& id) {
  return keys.try_emplace(name, Key{.kernel = id.kernel, .key = id.key, .owner = std::nullopt, .taken_over = {}}).first->second;
}

std::uint64_t WaitsRecord::begin_attempt(const Thread& me, const std::string& name, const EntryId& id) {
  Key& key = key_record(name, id);
  if (key.owner) key.taken_over[key.begun] = *key.owner;
  key.owner = me;
  return ++key.begun;
}

bool WaitsRecord::end_attempt(const Thread& me, const std::string& name) {
  const auto it = keys.find(name);
  if (it == keys.end()) return false;
  Key& key = it->second;
  if (key.owner == me) {
    key.owner.reset();
    return true;
  }
  return std::erase_if(key.taken_over, [&](const auto& attempt) { return attempt.second == me; }) > 0;
}

const WaitsRecord::Thread* WaitsRecord::waited_for(const Thread& waiter, const Wait& wait) const {
  const auto it = keys.find(wait.key);
  if (it == keys.end()) return nullptr;
  const Key& key = it->second;
  if (key.begun == wait.attempt) return key.owner ? &*key.owner : nullptr;
  const auto taken = key.taken_over.find(wait.attempt);
  if (taken == key.taken_over.end()) return nullptr;
  const Thread& owner = taken->second;
  const Thread& latest = key.owner ? *key.owner : key.taken_over.rbegin()->second;
  const bool follows = waiter.process != owner.process && latest.process != owner.process;
  return follows ? &latest : &owner;
}

std::optional<WaitsRecord::Wait> WaitsRecord::wait_unless_cycle(const Thread& me, const std::string& name,
                                                                 const EntryId& id, std::string& cycle) {
  key_record(name, id);
  const Wait wait{.key = name, .attempt = attempt_to_wait_on(me, name)};
  // Each step moves to another waiting thread. A cycle that does not pass through `me` (one the
  // model excuses, through a takeover) is not this wait's: more steps than waits end the walk.
  std::string path = thread_text(me) + " would wait on";
  Thread waiter = me;
  Wait next = wait;
  for (std::size_t step = 0; step <= waits.size(); ++step) {
    const Thread* owner = waited_for(waiter, next);
    if (owner == nullptr) break;
    const Key& on = keys.at(next.key);
    path += " kernel '" + on.kernel + "', key '" + on.key + "', tuned by " + thread_text(*owner);
    if (*owner == me) {
      cycle = path;
      return std::nullopt;
    }
    const auto waiting = waits.find(*owner);
    if (waiting == waits.end()) break;
    waiter = *owner;
    next = waiting->second;
    path += ", which waits on";
  }
  waits[me] = wait;
  return wait;
}

const WaitsRecord::Thread* WaitsRecord::current_owner(const std::string& name, std::uint64_t attempt) const {
  const auto it = keys.find(name);
  if (it == keys.end() || it->second.begun != attempt || !it->second.owner) return nullptr;
  return &*it->second.owner;
}

std::uint64_t WaitsRecord::attempt_to_wait_on(const Thread& me, const std::string& name) const {
  const auto it = keys.find(name);
  if (it == keys.end()) return 1;  // none has begun, or none is referred to: the next to begin
  const Key& key = it->second;
  if (key.owner && key.owner->process == me.process) return key.begun;
  for (auto taken = key.taken_over.rbegin(); taken != key.taken_over.rend(); ++taken)
    if (taken->second.process == me.process) return taken->first;
  if (key.owner) return key.begun;
  if (!key.taken_over.empty()) return key.taken_over.rbegin()->first;
  return key.begun + 1;
}

WaitsRecord::Thread ProcessWaits::me() const {
  return {.process = process, .thread = std::to_string(::syscall(SYS_gettid))};
}

bool ProcessWaits::wait_unless_cycle(WaitsRecord& graph, const std::string& name, const EntryId& id,
                                     std::optional<std::string>& cycle) {
  const WaitsRecord::Thread thread = me();
  std::string description;
  const auto wait = graph.wait_unless_cycle(thread, name, id, description);
  if (!wait) {
    cycle = description;
    waited.erase(thread.thread);  // of an earlier run of this change, whose write was refused
    return false;
  }
  cycle.reset();
  waited[thread.thread] = {.entry = wait->key, .attempt = wait->attempt};
  return true;
}

bool ProcessWaits::wait_ended(WaitsRecord& graph) {
  const WaitsRecord::Thread thread = me();
  waited.erase(thread.thread);
  return graph.waits.erase(thread) > 0;
}

std::optional<ProcessWaits::Waited> ProcessWaits::waited_by_me() const {
  const auto it = waited.find(me().thread);
  if (it == waited.end()) return std::nullopt;
  return it->second;
}

}  // namespace safetune
