#include "event.h"

#include <array>
#include <utility>

#include "printable.h"

namespace safetune::model {

namespace {

// Indexed by the kind's value; the order must follow enum EventKind.
constexpr std::array<std::pair<EventKind, std::string_view>, 15> kNames{{
    {EventKind::CallBegin, "call_begin"},
    {EventKind::CallEnd, "call_end"},
    {EventKind::TuneBegin, "tune_begin"},
    {EventKind::Bench, "bench"},
    {EventKind::TuneEnd, "tune_end"},
    {EventKind::WaitBegin, "wait_begin"},
    {EventKind::WaitEnd, "wait_end"},
    {EventKind::Launch, "launch"},
    {EventKind::Invalidate, "invalidate"},
    {EventKind::InvalidateBegin, "invalidate_begin"},
    {EventKind::LaunchFailed, "launch_failed"},
    {EventKind::Load, "load"},
    {EventKind::Exit, "exit"},
    {EventKind::LeaseLost, "lease_lost"},
    {EventKind::StoreFailed, "store_failed"},
}};

}  // namespace

std::string Name::show() const { return is_string ? "\"" + printable(text) + "\"" : text; }

std::string ThreadName::show() const {
  return process ? thread.show() + " of process " + process->show() : thread.show();
}

std::string_view event_name(EventKind kind) { return kNames.at(static_cast<std::size_t>(kind)).second; }

std::optional<EventKind> parse_event_name(std::string_view name) {
  // The size and first byte first: this runs for every line of every trace, and memcmp is a call.
  for (const auto& [kind, text] : kNames)
    if (text.size() == name.size() && !name.empty() && text[0] == name[0] && text == name) return kind;
  return std::nullopt;
}

}  // namespace safetune::model
