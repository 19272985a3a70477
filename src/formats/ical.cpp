#include "formats/ical.h"

#include "formats/ical_lines.h"

#include <date/date.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <limits>

#include "core/text.h"
#include "core/timezone.h"
#include "core/utf8.h"

namespace peto::formats {

namespace ical_detail {

using nlohmann::json;

constexpr std::size_t kMaxText = 1024 * 1024;
constexpr std::size_t kMaxLines = 10000;
constexpr std::size_t kMaxDepth = 16;
constexpr std::int64_t kHourMs = 3600 * 1000;

using text::is_blank;
using text::upper;

using text::trimmed;
bool blank(std::string_view s) { return is_blank(s); }

// ---- Writing ----

std::string ics_time(std::int64_t ms) {
  auto tp = std::chrono::time_point_cast<std::chrono::seconds>(
      std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(ms)));
  return date::format("%Y%m%dT%H%M%SZ", tp);
}

// TEXT as RFC 5545 §3.3.11 and RFC 6350 §3.4 write it: backslash, semicolon
// and comma escaped, line ends as "\n", other control characters dropped.
std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\' || c == ';' || c == ',') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t' || static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out;
}

// Octets in the UTF-8 sequence that starts with `lead`.
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Folds a content line so no line passes 75 octets (the leading space of a
// continuation counts), never inside a UTF-8 sequence.
std::string fold(std::string_view line) {
  std::string out;
  std::size_t width = 0;
  for (std::size_t i = 0; i < line.size();) {
    std::size_t n = std::min(sequence_length(static_cast<unsigned char>(line[i])), line.size() - i);
    if (width + n > 75) {
      out += "\r\n ";
      width = 1;
    }
    out.append(line, i, n);
    width += n;
    i += n;
  }
  return out + "\r\n";
}

void text_line(std::string& out, std::string_view name, std::string_view value) {
  if (!value.empty()) out += fold(std::string(name) + ":" + escape(value));
}

void time_line(std::string& out, std::string_view name, std::optional<std::int64_t> ms) {
  if (ms) out += std::string(name) + ":" + ics_time(*ms) + "\r\n";
}

// A DATE value ("DUE;VALUE=DATE:20270120") of "YYYY-MM-DD".
void date_line(std::string& out, std::string_view name, const std::string& day) {
  std::string compact;
  for (char c : day)
    if (c != '-') compact += c;
  out += std::string(name) + ";VALUE=DATE:" + compact + "\r\n";
}

void write_item(std::string& out, const CalItem& item, std::int64_t now_ms) {
  bool event = item.type == CalItem::Type::event;
  bool all_day = !item.day.empty() && parse_date_utc_ms(item.day).has_value();
  out += event ? "BEGIN:VEVENT\r\n" : "BEGIN:VTODO\r\n";
  out += fold("UID:" + escape(item.uid));
  time_line(out, "DTSTAMP", now_ms);
  if (event && all_day) {
    date_line(out, "DTSTART", item.day);
    date_line(out, "DTEND", add_days(item.day, 1));
  } else if (event) {
    time_line(out, "DTSTART", item.start);
    time_line(out, "DTEND", item.end);
  } else {
    time_line(out, "DTSTART", item.start);
    if (all_day)
      date_line(out, "DUE", item.day);
    else
      time_line(out, "DUE", item.due);
    time_line(out, "COMPLETED", item.completed);
  }
  text_line(out, "SUMMARY", item.summary);
  text_line(out, "LOCATION", item.location);
  text_line(out, "DESCRIPTION", item.description);
  std::string status = item.cancelled               ? "CANCELLED"
                       : event                      ? "CONFIRMED"
                       : item.completed.has_value() ? "COMPLETED"
                                                    : "NEEDS-ACTION";
  out += "STATUS:" + status + "\r\n";
  out += event ? "END:VEVENT\r\n" : "END:VTODO\r\n";
}

// ---- Reading: content lines ----

// Well-formed UTF-8 (RFC 3629): no overlong forms, surrogates or code
// points past U+10FFFF, as JSON text (and so the records) requires.
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = c >= 0xF5 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return false;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    unsigned char second = static_cast<unsigned char>(s[i + 1]);
    if (second < lo || second > hi) return false;
    for (std::size_t k = 2; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
}

// One unfolded content line: name *(";" param) ":" value (RFC 5545 §3.1).
std::optional<Property> parse_line(std::string_view line) {
  Property p;
  std::size_t i = 0;
  while (i < line.size() && name_char(line[i])) ++i;
  if (i == 0 || i >= line.size()) return std::nullopt;
  std::string_view name = line.substr(0, i);
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
  if (name.empty()) return std::nullopt;
  p.name = upper(name);
  while (i < line.size() && line[i] == ';') {
    std::size_t b = ++i;
    while (i < line.size() && name_char(line[i])) ++i;
    if (i == b || i >= line.size() || line[i] != '=') return std::nullopt;
    Param param{upper(line.substr(b, i - b)), {}};
    ++i;
    // Values: comma-separated, each plain or "quoted" (no quote inside).
    while (true) {
      if (i < line.size() && line[i] == '"') {
        auto close = line.find('"', i + 1);
        if (close == std::string_view::npos) return std::nullopt;
        param.value.append(line.substr(i + 1, close - i - 1));
        i = close + 1;
      } else {
        std::size_t s = i;
        while (i < line.size() && line[i] != ';' && line[i] != ':' && line[i] != ',' &&
               line[i] != '"')
          ++i;
        param.value.append(line.substr(s, i - s));
      }
      if (i < line.size() && line[i] == ',') {
        param.value += ',';
        ++i;
        continue;
      }
      break;
    }
    p.params.push_back(std::move(param));
  }
  if (i >= line.size() || line[i] != ':') return std::nullopt;
  p.value = std::string(line.substr(i + 1));
  return p;
}

// Splits `text` into content lines (CRLF or LF ends; a line starting with a
// space or tab continues the one before; empty lines dropped), or why not.
std::variant<std::vector<Line>, std::string> split_lines(std::string_view text) {
  if (text.empty()) return std::string("the text is empty");
  if (text.size() > kMaxText) return std::string("the text is larger than 1 MiB");
  if (text.find('\0') != std::string_view::npos) return std::string("the text is not UTF-8");
  std::vector<Line> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    std::string_view raw =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (!raw.empty() && (raw[0] == ' ' || raw[0] == '\t')) {
      if (lines.empty()) return std::string("the text starts with a continuation line");
      lines.back().text.append(raw.substr(1));
      lines.back().raw.append(raw).append("\r\n");
    } else if (!raw.empty()) {
      if (lines.size() == kMaxLines) return std::string("the text has more than 10,000 lines");
      lines.push_back(Line{std::string(raw), std::string(raw) + "\r\n"});
    }
  }
  return lines;
}

// Finds in the content lines of `text` the first component named in
// `wanted` inside the outer component `outer` (with no `wanted`: `outer`
// itself). Error text when the text is not a well-formed `outer` object.
std::variant<Component, std::string> find_component(std::string_view text, std::string_view outer,
                                                    const std::vector<std::string>& wanted) {
  auto split = split_lines(text);
  if (auto* error = std::get_if<std::string>(&split)) return *error;
  const std::vector<Line>& lines = std::get<std::vector<Line>>(split);
  std::vector<std::string> stack;
  std::optional<Component> found;
  std::size_t found_depth = 0;  // stack depth of the found component, while inside it
  bool outer_done = false;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    std::string where = "line " + std::to_string(n + 1);
    // Checked once unfolded: a fold may fall inside a character.
    if (!valid_utf8(lines[n].text)) return where + " is not UTF-8";
    auto prop = parse_line(lines[n].text);
    if (!prop) return where + " is not a property";
    if (outer_done) return where + " follows END:" + std::string(outer);
    if (prop->name == "BEGIN") {
      std::string comp = upper(trimmed(prop->value));
      if (comp.empty()) return where + ": BEGIN without a name";
      if (stack.empty() && comp != outer) return "not a " + std::string(outer) + " (" + where + ")";
      if (stack.size() == kMaxDepth) return where + ": components nested too deep";
      stack.push_back(comp);
      bool wanted_here =
          wanted.empty()
              ? stack.size() == 1
              : stack.size() == 2 && std::find(wanted.begin(), wanted.end(), comp) != wanted.end();
      if (!found && wanted_here) {
        found = Component{comp, {}};
        found_depth = stack.size();
      }
      continue;
    }
    if (stack.empty()) return "not a " + std::string(outer) + " (" + where + ")";
    if (prop->name == "END") {
      if (upper(trimmed(prop->value)) != stack.back())
        return where + ": END:" + prop->value + " closes BEGIN:" + stack.back();
      if (stack.size() == found_depth) found_depth = 0;
      stack.pop_back();
      if (stack.empty()) outer_done = true;
      continue;
    }
    if (found_depth != 0 && stack.size() == found_depth) found->props.push_back(std::move(*prop));
  }
  if (!outer_done) return "the text ends before END:" + std::string(outer);
  if (!found)
    return "no " + (wanted.size() == 2 ? wanted[0] + " or " + wanted[1] : std::string("item"));
  return std::move(*found);
}

// TEXT value with \\ \; \, \n \N undone; carriage returns and other control
// characters (DEL too) but tab and line end dropped.
std::string unescape(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (c == '\\' && i + 1 < v.size()) {
      c = v[++i];
      if (c == 'n' || c == 'N') c = '\n';
    }
    // An escaped control character is dropped like a bare one.
    if (c == '\t' || c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7F)) out += c;
  }
  return out;
}

// The `index`th of the ';'-separated parts of a structured value (N, ORG),
// unescaped.
std::string part(std::string_view v, std::size_t index) {
  std::size_t n = 0, start = 0;
  for (std::size_t i = 0; i <= v.size(); ++i) {
    if (i + 1 < v.size() && v[i] == '\\') {
      ++i;
      continue;
    }
    if (i == v.size() || v[i] == ';') {
      if (n == index) return unescape(v.substr(start, i - start));
      ++n;
      start = i + 1;
    }
  }
  return {};
}

std::string text_of(const Component& c, std::string_view name) {
  const Property* p = c.get(name);
  return p ? unescape(p->value) : std::string();
}

bool all_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// A zone the tz database knows for a TZID: the name itself, or its tail
// after a vendor prefix ("/mozilla.org/20050126_1/Europe/Paris").
std::optional<std::string> known_zone(std::string tzid) {
  while (!tzid.empty()) {
    if (is_valid_time_zone(tzid)) return tzid;
    auto slash = tzid.find('/');
    if (slash == std::string::npos) break;
    tzid.erase(0, slash + 1);
  }
  return std::nullopt;
}

// Whether a property's value is a DATE (all day) rather than a DATE-TIME.
bool is_date(const Property& p) {
  const std::string* kind = p.param("VALUE");
  return (p.value.size() == 8 && all_digits(p.value)) ||
         (kind != nullptr && upper(*kind) == "DATE");
}

// DATE or DATE-TIME value as UTC ms: "…Z" is UTC, TZID a zone, neither
// floating (read in `zone`), a DATE the start of that day in `zone`.
std::optional<std::int64_t> time_of(const Property& p, const std::string& zone) {
  std::string v = upper(p.value);
  auto iso_date = [&](std::string_view d) {
    return std::string(d.substr(0, 4)) + "-" + std::string(d.substr(4, 2)) + "-" +
           std::string(d.substr(6, 2));
  };
  if (v.size() == 8 && all_digits(v)) {
    if (!parse_date_utc_ms(iso_date(v))) return std::nullopt;
    return parse_local(iso_date(v) + " 00:00", zone);
  }
  const std::string* kind = p.param("VALUE");
  if (kind != nullptr && upper(*kind) == "DATE") return std::nullopt;
  bool utc = v.size() == 16 && v.back() == 'Z';
  if (utc) v.pop_back();
  if (v.size() != 15 || v[8] != 'T' || !all_digits(v.substr(0, 8)) || !all_digits(v.substr(9)))
    return std::nullopt;
  std::string local =
      iso_date(v) + " " + v.substr(9, 2) + ":" + v.substr(11, 2) + ":" + v.substr(13, 2);
  if (utc) return parse_local(local, "UTC");
  std::string in = zone;
  if (const std::string* tzid = p.param("TZID"))
    if (auto z = known_zone(*tzid)) in = *z;
  return parse_local(local, in);
}

// RFC 5545 §3.3.6 duration ("PT1H30M", "P1D", "-PT15M") in ms; nullopt for
// junk or more than ten years.
std::optional<std::int64_t> duration_of(std::string_view v) {
  bool negative = false;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) {
    negative = v[0] == '-';
    v.remove_prefix(1);
  }
  if (v.empty() || (v[0] != 'P' && v[0] != 'p')) return std::nullopt;
  v.remove_prefix(1);
  std::int64_t total = 0, number = 0;
  bool digits = false, any = false, time = false;
  for (char c : v) {
    char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (number > 1000000) return std::nullopt;
      number = number * 10 + (c - '0');
      digits = true;
      continue;
    }
    std::int64_t unit = 0;
    if (u == 'T' && !digits) {
      time = true;
      continue;
    }
    if (u == 'W' && !time) unit = 7 * 24 * kHourMs;
    if (u == 'D' && !time) unit = 24 * kHourMs;
    if (u == 'H' && time) unit = kHourMs;
    if (u == 'M' && time) unit = 60 * 1000;
    if (u == 'S' && time) unit = 1000;
    if (unit == 0 || !digits) return std::nullopt;
    total += number * unit;
    if (total > 3660 * 24 * kHourMs) return std::nullopt;
    number = 0;
    digits = false;
    any = true;
  }
  if (!any || digits) return std::nullopt;
  return negative ? -total : total;
}

// The value of the preferred `name` property of a card (the first when
// none is marked), unescaped.
std::string preferred(const Component& c, std::string_view name) {
  const Property* first = nullptr;
  for (const Property& p : c.props) {
    if (p.name != name || blank(p.value)) continue;
    if (p.preferred()) return unescape(p.value);
    if (first == nullptr) first = &p;
  }
  return first ? unescape(first->value) : std::string();
}

}  // namespace ical_detail

using namespace ical_detail;

std::string write_calendar(const std::vector<CalItem>& items, std::int64_t now_ms) {
  std::string out =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//peto//calendar//EN\r\n"
      "CALSCALE:GREGORIAN\r\n";
  for (const CalItem& item : items) write_item(out, item, now_ms);
  out += "END:VCALENDAR\r\n";
  return out;
}

std::variant<CalItem, std::string> read_calendar(std::string_view text, const std::string& zone) {
  auto found = find_component(text, "VCALENDAR", {"VEVENT", "VTODO"});
  if (auto* error = std::get_if<std::string>(&found)) return *error;
  const Component& c = std::get<Component>(found);
  CalItem item;
  item.type = c.name == "VTODO" ? CalItem::Type::todo : CalItem::Type::event;
  item.uid = trimmed(text_of(c, "UID"));
  item.summary = text_of(c, "SUMMARY");
  item.location = text_of(c, "LOCATION");
  item.description = text_of(c, "DESCRIPTION");
  const char* names[] = {"DTSTART", "DTEND", "DUE", "COMPLETED"};
  std::optional<std::int64_t>* slots[] = {&item.start, &item.end, &item.due, &item.completed};
  for (std::size_t i = 0; i < 4; ++i) {
    if (const Property* p = c.get(names[i])) {
      *slots[i] = time_of(*p, zone);
      if (!*slots[i])
        return std::string(names[i]) +
               " is not a time: " + p->value.substr(0, utf8_prefix(p->value, 40));
    }
  }
  const Property* anchor = c.get(item.type == CalItem::Type::todo ? "DUE" : "DTSTART");
  if (anchor != nullptr && is_date(*anchor)) {
    const std::string v = trimmed(anchor->value);
    item.day = v.substr(0, 4) + "-" + v.substr(4, 2) + "-" + v.substr(6, 2);
  }
  if (const Property* d = c.get("DURATION"); d && item.start && !item.end && !item.due) {
    auto ms = duration_of(d->value);
    if (!ms) return "DURATION is not a duration: " + d->value.substr(0, utf8_prefix(d->value, 40));
    (item.type == CalItem::Type::event ? item.end : item.due) = *item.start + *ms;
  }
  std::string status = upper(trimmed(text_of(c, "STATUS")));
  item.cancelled = status == "CANCELLED";
  if (status == "COMPLETED" && !item.completed) {
    item.completed = item.due;
    if (!item.completed)
      if (const Property* stamp = c.get("DTSTAMP")) item.completed = time_of(*stamp, zone);
  }
  return item;
}

// A vCard's N (family;given;additional;prefix;suffix) from a name as it is
// written: "Ada King Lovelace" is Lovelace;Ada;King;; so that an address
// book sorting by family name finds it under L. One word is a given name.
std::string structured_name(std::string_view name) {
  std::vector<std::string> words;
  for (std::string_view w : text::split(text::trim(name), ' '))
    if (!w.empty()) words.emplace_back(w);
  if (words.empty()) return ";;;;";
  if (words.size() == 1) return ";" + escape(words[0]) + ";;;";
  std::string middle;
  for (std::size_t i = 1; i + 1 < words.size(); ++i)
    middle += (middle.empty() ? "" : " ") + words[i];
  return escape(words.back()) + ";" + escape(words.front()) + ";" + escape(middle) + ";;";
}

std::string write_card(const Card& card) {
  std::string out = "BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:-//peto//contacts//EN\r\n";
  out += fold("UID:" + escape(card.uid));
  out += fold("FN:" + escape(card.name));
  out += fold("N:" + structured_name(card.name));
  text_line(out, "EMAIL;TYPE=INTERNET", card.email);
  text_line(out, "TEL", card.phone);
  text_line(out, "TITLE", card.role);
  text_line(out, "ORG", card.organisation);
  text_line(out, "NOTE", card.notes);
  out += "END:VCARD\r\n";
  return out;
}

std::variant<Card, std::string> read_card(std::string_view text) {
  auto found = find_component(text, "VCARD", {});
  if (auto* error = std::get_if<std::string>(&found)) return *error;
  const Component& c = std::get<Component>(found);
  Card card;
  card.uid = trimmed(text_of(c, "UID"));
  card.name = trimmed(text_of(c, "FN"));
  if (card.name.empty()) {
    if (const Property* n = c.get("N"))
      for (int i : {1, 2, 0})  // given, additional, family
        if (std::string word = trimmed(part(n->value, i)); !word.empty())
          card.name += (card.name.empty() ? "" : " ") + word;
  }
  card.email = trimmed(preferred(c, "EMAIL"));
  if (card.email.rfind("mailto:", 0) == 0) card.email.erase(0, 7);
  card.phone = trimmed(preferred(c, "TEL"));
  if (card.phone.rfind("tel:", 0) == 0) card.phone.erase(0, 4);
  card.role = trimmed(text_of(c, "ROLE"));
  if (card.role.empty()) card.role = trimmed(text_of(c, "TITLE"));
  if (const Property* org = c.get("ORG")) card.organisation = trimmed(part(org->value, 0));
  card.notes = text_of(c, "NOTE");
  return card;
}

}  // namespace peto::formats
