// UTF-8 lengths and cuts: limits on what people type are in characters, and
// text cut to fit a column or a message must not end in half a character.
#pragma once

#include <cstddef>
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

}  // namespace peto
