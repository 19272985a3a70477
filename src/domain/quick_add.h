// Quick add: what one field holds, read before anything is saved.
//
// The field takes a link, a pasted page, or a line a person would write in
// a notebook: "Data engineer at Acme, Berlin, applied yesterday". A link and
// a page go to the capture (which reads the posting); a line is read here,
// into the fields of a listing and, when it says "applied", the day the
// application went out, counted back from the person's own day. Nothing is
// guessed: a day that cannot be read is handed back as `unread`.
#pragma once

#include <string>
#include <string_view>

namespace peto::domain {

struct QuickAdd {
  enum class Kind { empty, link, page, line };
  Kind kind = Kind::empty;
  std::string url;         // link, page (the page's own address) and line
  std::string role;        // line
  std::string company;     // line: after "at", "@" or a dash
  std::string location;    // line: the part after the role and company
  bool applied = false;    // line: the words say it went out
  std::string applied_on;  // YYYY-MM-DD, when `applied` and the day was read
  std::string unread;      // the words about the day that could not be read
};

// `today` is the person's date ("YYYY-MM-DD") where they live.
QuickAdd read_quick_add(std::string_view text, const std::string& today);

}  // namespace peto::domain
