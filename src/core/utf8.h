// UTF-8 lengths, cuts and checks: limits on what people type are in
// characters, text cut to fit a column or a message must not end in half a
// character, and what a request carries must be UTF-8 before it reaches a
// database that refuses anything else.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace peto {

// Characters (code points) in UTF-8 `s`: the bytes that do not continue one.
inline std::size_t utf8_length(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The longest prefix of `s` of at most `max_bytes` bytes that ends on a
// character boundary, as a byte count (s.size() when it already fits).
inline std::size_t utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return end;
}

// At most `max_bytes` bytes of `s`, never half a character.
inline std::string utf8_cut(std::string_view s, std::size_t max_bytes) {
  return std::string(s.substr(0, utf8_prefix(s, max_bytes)));
}

// Decodes one UTF-8 sequence at s[i]; returns its length, 0 when invalid
// (overlong, surrogate, beyond U+10FFFF, truncated).
inline std::size_t decode_utf8(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t len = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  return len;
}

// Whether all of `s` is valid UTF-8.
inline bool utf8_valid(std::string_view s) {
  char32_t cp = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = decode_utf8(s, i, cp);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

}  // namespace peto
