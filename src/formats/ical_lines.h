// The content lines of iCalendar and vCard text as formats/ical.cpp reads
// them, for the other files of the codec (formats/ical_merge.cpp). Not part
// of the codec's interface (formats/ical.h).
#pragma once

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace peto::formats::ical_detail {

struct Param {
  std::string name;   // upper case
  std::string value;  // quotes removed; several values stay comma-joined
};

struct Property {
  std::string name;  // upper case, group ("item1.") removed
  std::vector<Param> params;
  std::string value;  // raw (still escaped)

  const std::string* param(std::string_view n) const {
    for (const Param& p : params)
      if (p.name == n) return &p.value;
    return nullptr;
  }
  // True when a PREF parameter or a TYPE of "pref" marks this value as preferred.
  bool preferred() const {
    for (const Param& p : params) {
      if (p.name == "PREF") return true;
      if (p.name != "TYPE") continue;
      std::string t = p.value;
      std::transform(t.begin(), t.end(), t.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (t.find("pref") != std::string::npos) return true;
    }
    return false;
  }
};

// A component: its properties (only those directly inside it) and name.
struct Component {
  std::string name;
  std::vector<Property> props;

  const Property* get(std::string_view n) const {
    for (const Property& p : props)
      if (p.name == n) return &p;
    return nullptr;
  }
};

// A content line unfolded (`text`) and as it was written (`raw`: its
// physical lines, each ending in CRLF).
struct Line {
  std::string text;
  std::string raw;
};
// Whether `s` is empty or only white space.
bool blank(std::string_view s);
// `line` folded at 75 octets (never inside a UTF-8 sequence), with its CRLF.
std::string fold(std::string_view line);
// A TEXT value with its backslash escapes undone.
std::string unescape(std::string_view v);
// One unfolded content line: name *(";" param) ":" value (RFC 5545 §3.1).
std::optional<Property> parse_line(std::string_view line);
// Splits `text` into content lines, or why not.
std::variant<std::vector<Line>, std::string> split_lines(std::string_view text);
// The first component named in `wanted` inside `outer` (with no `wanted`:
// `outer` itself), or why the text is not a well-formed `outer` object.
std::variant<Component, std::string> find_component(std::string_view text, std::string_view outer,
                                                    const std::vector<std::string>& wanted);

}  // namespace peto::formats::ical_detail
