// How reports show a value taken from a trace: text that cannot forge a report line or flood it.
//
// A key, a thread name, a config or an error comes from the trace, so it may hold anything: a
// newline followed by "VIOLATION R3 ...", terminal escapes, or ten megabytes. printable() escapes
// every control character (C0, DEL and C1: \n, \t, \x1b, \u0085, ...) and every byte that is not
// part of valid UTF-8 (\xff), so that its output is one line of valid UTF-8; and it cuts a long
// value at a character boundary, saying how long it was. (A backslash is left as it is: trace
// lines are JSON, full of escapes, and an excerpt must read as the line does.)
// Every report and message of the model shows trace values through it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace safetune::model {

// Values longer than this many bytes are cut in reports.
inline constexpr std::size_t kShownValueBytes = 64;

// `text` with its control characters escaped; when longer than `max_bytes`, its first bytes
// followed by "...(N bytes)".
std::string printable(std::string_view text, std::size_t max_bytes = kShownValueBytes);
// The same, for a value of which only its first bytes, `head`, are at hand: `total_bytes` is
// its real length, which the cut says.
std::string printable_head(std::string_view head, std::size_t total_bytes, std::size_t max_bytes);

}  // namespace safetune::model
