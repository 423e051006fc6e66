#include "printable.h"

#include <cstdio>

namespace safetune::model {
namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The escape of the control character that starts at text[i], or "" when none starts there.
// `width` is set to the bytes it covers.
std::string escape_at(std::string_view text, std::size_t i, std::size_t& width) {
  const auto byte = static_cast<unsigned char>(text[i]);
  width = 1;
  switch (byte) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\\': return "\\\\";
    default: break;
  }
  char buffer[8];
  if (byte < 0x20 || byte == 0x7F) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", byte);
    return buffer;
  }
  // C1 controls, U+0080..U+009F, are 0xC2 0x80..0x9F in UTF-8.
  if (byte == 0xC2 && i + 1 < text.size()) {
    const auto next = static_cast<unsigned char>(text[i + 1]);
    if (next >= 0x80 && next <= 0x9F) {
      width = 2;
      std::snprintf(buffer, sizeof buffer, "\\u%04x", next);
      return buffer;
    }
  }
  return "";
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::size_t cut = text.size();
  if (cut > max_bytes) {
    cut = max_bytes;
    while (cut > 0 && is_continuation(static_cast<unsigned char>(text[cut]))) --cut;
  }
  std::string shown;
  shown.reserve(cut + 16);
  for (std::size_t i = 0; i < cut;) {
    std::size_t width = 1;
    const std::string escape = escape_at(text, i, width);
    if (escape.empty()) shown += text[i];
    else shown += escape;
    i += width;
  }
  if (cut < text.size()) shown += "...(" + std::to_string(text.size()) + " bytes)";
  return shown;
}

}  // namespace safetune::model
