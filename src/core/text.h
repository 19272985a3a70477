// Small text helpers that every module needs and no library offers as such:
// ASCII trimming and case mapping for protocol tokens (header names, property
// names, status words). Case-insensitive matching of what people type (names)
// is not here: it needs Unicode (domain/records.h: matching keys).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace peto::text {

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// `s` without leading and trailing ASCII white space.
inline std::string_view trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// The same, as a string of its own.
inline std::string trimmed(std::string_view s) { return std::string(trim(s)); }

// Whether `s` is empty or only ASCII white space.
inline bool is_blank(std::string_view s) { return trim(s).empty(); }

inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
inline char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }

// `s` with A–Z as a–z (lower) or a–z as A–Z (upper); other bytes, UTF-8
// included, as they were.
inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}
inline std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_upper(c);
  return out;
}

// The pieces of `s` between each `separator`, in order and untrimmed: "a,,b"
// is "a", "", "b" and "" is one empty piece. For the lists of header values
// (Transfer-Encoding, X-Forwarded-For, Forwarded, Accept-Language).
inline std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  for (std::size_t from = 0;;) {
    std::size_t at = s.find(separator, from);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(from));
      return out;
    }
    out.push_back(s.substr(from, at - from));
    from = at + 1;
  }
}

// Whether `a` and `b` are equal ignoring ASCII case.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

// Escapes `&`, `<`, `>`, `"` and `'` for the content and attribute values
// of HTML and XML alike.
inline std::string escape_markup(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace peto::text
