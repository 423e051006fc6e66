#include "config_text.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace safetune::model {
namespace {

using Pair = std::pair<std::string_view, std::string_view>;

constexpr std::size_t kMaxShown = 80;  // long fuzzed pieces must not flood an error message

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool has_space(std::string_view text) { return std::any_of(text.begin(), text.end(), is_space); }

// Long text is cut at a UTF-8 character boundary, so that messages stay valid UTF-8.
std::string quoted(std::string_view text) {
  if (text.size() <= kMaxShown) return "\"" + std::string(text) + "\"";
  std::size_t cut = kMaxShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return "\"" + std::string(text.substr(0, cut)) + "...\"";
}

std::vector<std::string_view> split_pairs(std::string_view text) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  for (std::size_t comma = text.find(','); comma != std::string_view::npos; comma = text.find(',', start)) {
    pieces.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

// What is wrong with one `name=value` piece, ignoring spaces around name and value (those are
// reported separately, since they still leave a canonical form to suggest).
std::optional<std::string> pair_problem(std::string_view piece) {
  const std::size_t equals = piece.find('=');
  if (trim(piece).empty()) return std::string("has an empty pair (two ',' in a row, or one at an end)");
  if (equals == std::string_view::npos) return "pair " + quoted(piece) + " has no '=' (expected name=value)";
  if (piece.find('=', equals + 1) != std::string_view::npos)
    return "pair " + quoted(piece) + " has more than one '='";
  if (trim(piece.substr(0, equals)).empty()) return "pair " + quoted(piece) + " has an empty name";
  if (trim(piece.substr(equals + 1)).empty()) return "pair " + quoted(piece) + " has an empty value";
  return std::nullopt;
}

Pair split_pair(std::string_view piece) {
  const std::size_t equals = piece.find('=');
  return {trim(piece.substr(0, equals)), trim(piece.substr(equals + 1))};
}

std::optional<std::string> repeated_name(const std::vector<Pair>& sorted_pairs) {
  auto same_name = [](const Pair& a, const Pair& b) { return a.first == b.first; };
  auto it = std::adjacent_find(sorted_pairs.begin(), sorted_pairs.end(), same_name);
  if (it == sorted_pairs.end()) return std::nullopt;
  return std::string(it->first);
}

std::string join(const std::vector<Pair>& pairs) {
  std::string out;
  for (const auto& [name, value] : pairs) {
    if (!out.empty()) out += ',';
    out.append(name).append("=").append(value);
  }
  return out;
}

// One scan, no allocation: true exactly when the checks below find nothing wrong (non-empty
// pairs, one '=' each, no whitespace, names strictly increasing). Every valid trace line takes
// this path; only a bad config pays for the detailed diagnosis.
bool is_canonical(std::string_view text) {
  auto is_separator = [](char c) { return c == '=' || c == ',' || is_space(c); };
  std::string_view previous_name;
  std::size_t i = 0;
  for (bool first = true;; first = false) {
    const std::size_t name_start = i;
    while (i < text.size() && !is_separator(text[i])) ++i;
    if (i == name_start || i == text.size() || text[i] != '=') return false;
    const std::string_view name = text.substr(name_start, i - name_start);
    const std::size_t value_start = ++i;
    while (i < text.size() && !is_separator(text[i])) ++i;
    if (i == value_start || (i < text.size() && text[i] != ',')) return false;
    if (!first && !(previous_name < name)) return false;
    previous_name = name;
    if (i == text.size()) return true;
    if (++i == text.size()) return false;  // a ',' at the end
  }
}

}  // namespace

std::optional<std::string> canonical_config_form(std::string_view text) {
  std::vector<Pair> pairs;
  for (std::string_view piece : split_pairs(text)) {
    if (pair_problem(piece)) return std::nullopt;
    pairs.push_back(split_pair(piece));
    if (has_space(pairs.back().first) || has_space(pairs.back().second)) return std::nullopt;
  }
  std::sort(pairs.begin(), pairs.end());
  if (repeated_name(pairs)) return std::nullopt;
  return join(pairs);
}

std::optional<std::string> config_text_problem(std::string_view text) {
  if (is_canonical(text)) return std::nullopt;
  if (text.empty()) return std::string("is empty (a config is one or more name=value pairs)");
  std::vector<Pair> pairs;
  for (std::string_view piece : split_pairs(text)) {
    if (auto problem = pair_problem(piece)) return problem;
    pairs.push_back(split_pair(piece));
  }
  auto by_name = [](const Pair& a, const Pair& b) { return a.first < b.first; };
  std::vector<Pair> sorted = pairs;
  std::stable_sort(sorted.begin(), sorted.end(), by_name);
  if (auto name = repeated_name(sorted)) return "name " + quoted(*name) + " appears more than once";
  const auto canonical = canonical_config_form(text);
  if (has_space(text)) {
    if (canonical) return "contains whitespace: the canonical form is " + quoted(*canonical);
    return std::string("contains whitespace inside a name or value");
  }
  if (sorted != pairs) return "names are not in byte order: the canonical form is " + quoted(*canonical);
  return std::nullopt;  // not reached: is_canonical() accepts exactly what passes every check above
}

}  // namespace safetune::model
