// Merging peto's text of a calendar entry or a contact into the text the
// server holds (formats/ical.h, merge_member): peto's own properties are
// replaced, everything another app added stays.
#include <algorithm>

#include "core/text.h"
#include "formats/ical.h"
#include "formats/ical_lines.h"

namespace peto::formats {

namespace {

using namespace ical_detail;
using text::lower;
using text::trimmed;
using text::upper;

// The item of a text in content lines: where it begins and ends, where new
// properties go (before its first sub-component, else before its END), and
// its own property lines (indices into the lines) as read.
struct ItemSpan {
  std::string name;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t insert = 0;
  std::vector<std::size_t> own;
  std::vector<Property> props;  // one per entry of `own`
};

// The first VEVENT or VTODO of a VCALENDAR (`card`: the VCARD itself) of
// lines find_component has accepted.
std::optional<ItemSpan> item_span(const std::vector<Line>& lines, bool card) {
  const std::size_t want = card ? 1 : 2;
  std::size_t depth = 0;
  std::optional<ItemSpan> span;
  bool inside = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto prop = parse_line(lines[i].text);
    if (!prop) return std::nullopt;
    if (prop->name == "BEGIN") {
      ++depth;
      std::string comp = upper(trimmed(prop->value));
      bool item = card ? comp == "VCARD" : comp == "VEVENT" || comp == "VTODO";
      if (!span && depth == want && item) {
        span = ItemSpan{};
        span->name = comp;
        span->begin = i;
        inside = true;
      } else if (inside && depth == want + 1 && span->insert == 0) {
        span->insert = i;
      }
      continue;
    }
    if (prop->name == "END") {
      if (depth == 0) return std::nullopt;
      if (inside && depth == want) {
        span->end = i;
        if (span->insert == 0) span->insert = i;
        inside = false;
      }
      --depth;
      continue;
    }
    if (inside && depth == want) {
      span->own.push_back(i);
      span->props.push_back(std::move(*prop));
    }
  }
  if (!span || span->end == 0) return std::nullopt;
  return span;
}

// The scheme an EMAIL or TEL value may carry ("mailto:", "tel:"), as
// written, or "".
std::string scheme_of(std::string_view value, bool tel) {
  std::string_view scheme = tel ? "tel:" : "mailto:";
  std::string_view v = value.substr(0, std::min(value.size(), scheme.size()));
  return lower(v) == scheme ? std::string(v) : std::string();
}

// Whether two EMAIL (ignoring case) or TEL (by digits) values are the same.
bool same_contact_value(std::string_view a_raw, std::string_view b_raw, bool tel) {
  std::string a = trimmed(unescape(a_raw)), b = trimmed(unescape(b_raw));
  a.erase(0, scheme_of(a, tel).size());
  b.erase(0, scheme_of(b, tel).size());
  if (tel) {
    std::string da, db;
    for (char c : a)
      if (std::isdigit(static_cast<unsigned char>(c))) da += c;
    for (char c : b)
      if (std::isdigit(static_cast<unsigned char>(c))) db += c;
    if (!da.empty() || !db.empty()) return da == db;
  }
  return lower(trimmed(a)) == lower(trimmed(b));
}

// The line of `p` before its value: group, name and parameters, and ":".
std::string head_of(const Line& line, const Property& p) {
  return line.text.substr(0, line.text.size() - p.value.size());
}

std::string status_of(const ItemSpan& span) {
  for (const Property& p : span.props)
    if (p.name == "STATUS") return upper(trimmed(unescape(p.value)));
  return {};
}

bool has(const ItemSpan& span, std::string_view name) {
  return std::any_of(span.props.begin(), span.props.end(),
                     [&](const Property& p) { return p.name == name; });
}

const std::string* first_value(const ItemSpan& span, std::string_view name) {
  for (const Property& p : span.props)
    if (p.name == name && !blank(p.value)) return &p.value;
  return nullptr;
}

// The properties peto writes for an item of this kind: the server's copies
// of them give way to peto's.
std::vector<std::string> owned_names(const ItemSpan& ours, bool card) {
  std::vector<std::string> owned;
  if (ours.name == "VEVENT")
    owned = {"DTSTART",  "DTEND",       "DURATION", "SUMMARY",
             "LOCATION", "DESCRIPTION", "STATUS",   "DTSTAMP"};
  else if (ours.name == "VTODO")
    // DURATION too: a task may not have both DUE and DURATION (RFC 5545).
    owned = {"SUMMARY", "DUE", "DURATION", "COMPLETED", "STATUS", "DTSTAMP"};
  else
    owned = {"FN", "N", "TITLE", "ORG", "NOTE"};
  if (card && has(ours, "ROLE")) owned.emplace_back("ROLE");
  return owned;
}

// One merge of the item `o` of our lines into the item `t` of theirs.
class Merge {
 public:
  Merge(const std::vector<Line>& their_lines, const ItemSpan& t, const std::vector<Line>& our_lines,
        const ItemSpan& o, bool card)
      : their_lines_(their_lines),
        t_(t),
        our_lines_(our_lines),
        o_(o),
        card_(card),
        owned_(owned_names(o, card)),
        emit_(t.own.size()) {
    // What each of theirs' own lines becomes: by default itself, refolded.
    for (std::size_t k = 0; k < t.own.size(); ++k) emit_[k] = fold(their_lines[t.own[k]].text);
  }

  std::string run(std::size_t size_hint) {
    replace_owned();
    if (o_.name == "VTODO") drop_stale_progress();
    if (card_) {
      if (!is_owned("ROLE")) carry_role();
      merge_contact("EMAIL");
      merge_contact("TEL");
    }
    return assemble(size_hint);
  }

 private:
  bool is_owned(std::string_view name) const {
    return std::find(owned_.begin(), owned_.end(), name) != owned_.end();
  }
  // Our lines named `name`, refolded.
  std::string ours_named(std::string_view name) const {
    std::string out;
    for (std::size_t k = 0; k < o_.props.size(); ++k)
      if (o_.props[k].name == name) out += fold(our_lines_[o_.own[k]].text);
    return out;
  }

  // The first of theirs' lines of an owned property becomes all of ours of
  // that name; the others go.
  void replace_owned() {
    std::vector<std::string> seen;
    for (std::size_t k = 0; k < t_.own.size(); ++k) {
      const std::string& name = t_.props[k].name;
      if (!is_owned(name)) continue;
      bool first = std::find(seen.begin(), seen.end(), name) == seen.end();
      if (first) seen.push_back(name);
      emit_[k] = first ? ours_named(name) : std::string();
    }
  }

  // A progress that no longer fits the status goes with it.
  void drop_stale_progress() {
    std::string before = status_of(t_), after = status_of(o_);
    if (before.empty()) before = "NEEDS-ACTION";
    if (before == after) return;
    for (std::size_t k = 0; k < t_.own.size(); ++k)
      if (t_.props[k].name == "PERCENT-COMPLETE") emit_[k].clear();
  }

  // peto reads ROLE before TITLE: theirs' first ROLE carries peto's role.
  void carry_role() {
    const std::string* role = first_value(o_, "TITLE");
    bool first = true;
    for (std::size_t k = 0; k < t_.own.size(); ++k) {
      if (t_.props[k].name != "ROLE") continue;
      emit_[k] = first && role != nullptr
                     ? fold(head_of(their_lines_[t_.own[k]], t_.props[k]) + *role)
                     : std::string();
      first = false;
    }
  }

  // EMAIL or TEL: ours replaces theirs' preferred value unless theirs
  // already has it; with nothing to replace, ours is added.
  void merge_contact(const std::string& name) {
    const bool tel = name == "TEL";
    const std::string* mine = first_value(o_, name);
    std::optional<std::size_t> pref;
    bool matched = false;
    for (std::size_t k = 0; k < t_.own.size(); ++k) {
      const Property& p = t_.props[k];
      if (p.name != name || blank(p.value)) continue;
      if (!pref || (p.preferred() && !t_.props[*pref].preferred())) pref = k;
      if (mine != nullptr && same_contact_value(p.value, *mine, tel)) matched = true;
    }
    if (mine == nullptr) {
      if (pref) emit_[*pref].clear();
    } else if (!matched) {
      if (pref) {
        const Property& p = t_.props[*pref];
        std::string value = *mine;
        std::string scheme = scheme_of(trimmed(p.value), tel);
        if (scheme_of(value, tel).empty()) value = scheme + value;
        emit_[*pref] = fold(head_of(their_lines_[t_.own[*pref]], p) + value);
      } else {
        added_.push_back(name);
      }
    }
  }

  // Theirs' lines as they become, with ours that theirs lacks inserted.
  std::string assemble(std::size_t size_hint) const {
    std::string inserted;
    for (std::size_t k = 0; k < o_.own.size(); ++k) {
      const std::string& name = o_.props[k].name;
      bool add = (is_owned(name) || name == "UID")
                     ? !has(t_, name)
                     : std::find(added_.begin(), added_.end(), name) != added_.end();
      if (add) inserted += fold(our_lines_[o_.own[k]].text);
    }
    std::string out;
    out.reserve(size_hint);
    std::size_t k = 0;  // next of theirs' own lines
    for (std::size_t i = 0; i < their_lines_.size(); ++i) {
      if (i == t_.insert) out += inserted;
      if (k < t_.own.size() && t_.own[k] == i)
        out += emit_[k++];
      else
        out += their_lines_[i].raw;
    }
    return out;
  }

  const std::vector<Line>& their_lines_;
  const ItemSpan& t_;
  const std::vector<Line>& our_lines_;
  const ItemSpan& o_;
  const bool card_;
  const std::vector<std::string> owned_;
  std::vector<std::string> emit_;
  std::vector<std::string> added_;  // contact properties of ours to add
};

// merge_member without the guard: nullopt when `theirs` does not do.
std::optional<std::string> merge_texts(std::string_view theirs, std::string_view ours) {
  const std::vector<std::string> items = {"VEVENT", "VTODO"};
  bool card = std::holds_alternative<Component>(find_component(ours, "VCARD", {}));
  if (!card && !std::holds_alternative<Component>(find_component(ours, "VCALENDAR", items)))
    return std::nullopt;
  auto check =
      card ? find_component(theirs, "VCARD", {}) : find_component(theirs, "VCALENDAR", items);
  if (!std::holds_alternative<Component>(check)) return std::nullopt;
  auto split_theirs = split_lines(theirs);
  auto split_ours = split_lines(ours);
  const auto* their_lines = std::get_if<std::vector<Line>>(&split_theirs);
  const auto* our_lines = std::get_if<std::vector<Line>>(&split_ours);
  if (their_lines == nullptr || our_lines == nullptr) return std::nullopt;
  auto their_span = item_span(*their_lines, card);
  auto our_span = item_span(*our_lines, card);
  if (!their_span || !our_span || their_span->name != our_span->name) return std::nullopt;

  std::string out = Merge(*their_lines, *their_span, *our_lines, *our_span, card)
                        .run(theirs.size() + ours.size());
  // What peto cannot read back (a VEVENT with a DUE that is not a time)
  // would stop the next pull: then ours alone.
  bool reads = card ? std::holds_alternative<Card>(read_card(out))
                    : std::holds_alternative<CalItem>(read_calendar(out, "UTC"));
  if (!reads) return std::nullopt;
  return out;
}

}  // namespace

std::string merge_member(const std::string& theirs, const std::string& ours) {
  try {
    if (auto merged = merge_texts(theirs, ours)) return *merged;
  } catch (...) {
    // Out of memory at worst: the text peto wrote is still a whole member.
  }
  return ours;
}

}  // namespace peto::formats
