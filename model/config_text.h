// Canonical config strings, as traces write them (docs/trace-format.md, "Configs").
//
// A canonical config string is one or more `name=value` pairs joined by `,`, where
//   - every name and every value is non-empty,
//   - no name or value contains `,`, `=`, or whitespace,
//   - names are unique and sorted in byte order (std::string comparison).
// Two configs are the same exactly when their canonical strings are equal, so the reader rejects
// anything else rather than silently treating `B=1,A=2` and `A=2,B=1` as different configs.
//
// These functions are pure and never throw on any input; they only look at `text`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace safetune::model {

// Nothing when `text` is canonical. Otherwise one phrase saying what is wrong, e.g.
// `names are not in byte order: the canonical form is "A=2,B=1"`; it names the canonical form
// whenever canonical_config_form() can find one.
std::optional<std::string> config_text_problem(std::string_view text);

// The canonical form of `text` when its only faults are order or stray spaces around pairs,
// names and values (e.g. "B=1, A=2" -> "A=2,B=1"). Nothing when a pair is malformed or a name
// repeats, because then no single canonical form is meant.
std::optional<std::string> canonical_config_form(std::string_view text);

}  // namespace safetune::model
