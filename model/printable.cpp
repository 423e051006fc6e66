#include "printable.h"

#include <cstdio>

namespace safetune::model {
namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence at text[i], or 0 when none starts there (a stray
// continuation byte, an overlong form, a surrogate, a cut sequence).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3, low = lead == 0xE0 ? 0xA0 : 0x80, high = lead == 0xED ? 0x9F : 0xBF;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4, low = lead == 0xF0 ? 0x90 : 0x80, high = lead == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + length > text.size()) return 0;
  const auto second = static_cast<unsigned char>(text[i + 1]);
  if (second < low || second > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (!is_continuation(static_cast<unsigned char>(text[i + k]))) return 0;
  return length;
}

// The escape of the control character or invalid byte at text[i], or "" when a printable
// character starts there. `width` is set to the bytes that character or escape covers.
std::string escape_at(std::string_view text, std::size_t i, std::size_t& width) {
  const auto byte = static_cast<unsigned char>(text[i]);
  width = 1;
  switch (byte) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
  }
  char buffer[8];
  const std::size_t length = utf8_length(text, i);
  if (byte < 0x20 || byte == 0x7F || length == 0) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", byte);
    return buffer;
  }
  width = length;
  // C1 controls, U+0080..U+009F, are 0xC2 0x80..0x9F in UTF-8.
  const auto next = length == 2 ? static_cast<unsigned char>(text[i + 1]) : 0;
  if (byte == 0xC2 && next <= 0x9F && next >= 0x80) {
    std::snprintf(buffer, sizeof buffer, "\\u%04x", next);
    return buffer;
  }
  return "";
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  return printable_head(text, text.size(), max_bytes);
}

std::string printable_head(std::string_view text, std::size_t total_bytes, std::size_t max_bytes) {
  std::size_t cut = text.size();
  if (total_bytes > max_bytes && cut > max_bytes) {
    cut = max_bytes;
    while (cut > 0 && is_continuation(static_cast<unsigned char>(text[cut]))) --cut;
  }
  std::string shown;
  shown.reserve(cut + 16);
  for (std::size_t i = 0; i < cut;) {
    std::size_t width = 1;
    const std::string escape = escape_at(text, i, width);
    if (escape.empty()) shown.append(text.substr(i, width));
    else shown += escape;
    i += width;
  }
  if (cut < total_bytes) shown += "...(" + std::to_string(total_bytes) + " bytes)";
  return shown;
}

}  // namespace safetune::model
