// How deeply arrays and objects nest in JSON text, counted on the bytes
// before any parsing: untrusted JSON (request bodies, JSON-LD in a captured
// page) is refused or skipped past a limit, because building, copying or
// walking a value nested 100,000 deep would recurse off the stack.
//
//   if (json_nesting_depth(body, kLimit) > kLimit) refuse();
//
// Header-only, so the fuzz targets that compile parsers alone can use it.
#pragma once

#include <algorithm>
#include <climits>
#include <string_view>

namespace peto {

// The deepest nesting of [ and { outside strings; the count stops early once
// it passes `stop_after` (the answer is then some value above it).
inline int json_nesting_depth(std::string_view text, int stop_after = INT_MAX) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > stop_after) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace peto
