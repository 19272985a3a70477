#include "domain/quick_add.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <optional>
#include <regex>
#include <vector>

namespace peto::domain {

namespace {

namespace chr = std::chrono;

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::optional<chr::year_month_day> parse_iso(const std::string& s) {
  int y = 0;
  unsigned m = 0;
  unsigned d = 0;
  char tail = 0;
  if (s.size() != 10 || std::sscanf(s.c_str(), "%4d-%2u-%2u%c", &y, &m, &d, &tail) != 3)
    return std::nullopt;
  chr::year_month_day day{chr::year{y}, chr::month{m}, chr::day{d}};
  return day.ok() ? std::optional(day) : std::nullopt;
}

std::string iso(chr::year_month_day d) {
  char out[32];
  std::snprintf(out, sizeof out, "%04d-%02u-%02u", static_cast<int>(d.year()),
                static_cast<unsigned>(d.month()), static_cast<unsigned>(d.day()));
  return out;
}

constexpr std::array<std::string_view, 7> kWeekdays = {"sunday",   "monday", "tuesday", "wednesday",
                                                       "thursday", "friday", "saturday"};
constexpr std::array<std::string_view, 12> kMonths = {
    "january", "february", "march",     "april",   "may",      "june",
    "july",    "august",   "september", "october", "november", "december"};

// 1-12 for a month's name or its first three letters ("sept" too).
unsigned month_of(const std::string& word) {
  for (unsigned i = 0; i < kMonths.size(); ++i)
    if (word.size() >= 3 && kMonths[i].starts_with(word)) return i + 1;
  return 0;
}

// A count in words or digits, for "3 days ago" and "a week ago".
std::optional<int> count_of(const std::string& word) {
  if (word == "a" || word == "an" || word == "one") return 1;
  constexpr std::array<std::string_view, 9> words = {"two",   "three", "four", "five", "six",
                                                     "seven", "eight", "nine", "ten"};
  for (std::size_t i = 0; i < words.size(); ++i)
    if (word == words[i]) return static_cast<int>(i) + 2;
  if (word.empty() || word.size() > 3 || word.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoi(word);
}

// The day `words` name, counted back from `today`; nullopt when they name none.
std::optional<chr::year_month_day> read_day(std::string words, chr::year_month_day today) {
  words = lower(trim(words));
  if (words.starts_with("on ")) words = trim(words.substr(3));
  while (!words.empty() && (words.back() == '.' || words.back() == '!')) words.pop_back();
  const chr::sys_days now{today};
  if (words.empty() || words == "today") return today;
  if (words == "yesterday") return chr::year_month_day{now - chr::days{1}};
  if (words == "last week") return chr::year_month_day{now - chr::days{7}};

  std::smatch m;
  static const std::regex ago(R"(^(\w+) (day|days|week|weeks) ago$)");
  if (std::regex_match(words, m, ago)) {
    auto n = count_of(m[1]);
    if (!n) return std::nullopt;
    const int per = m[2].str().starts_with("week") ? 7 : 1;
    return chr::year_month_day{now - chr::days{*n * per}};
  }
  static const std::regex weekday(R"(^(last )?([a-z]+)$)");
  if (std::regex_match(words, m, weekday)) {
    const std::string name = m[2];
    for (unsigned i = 0; i < kWeekdays.size(); ++i) {
      if (name.size() < 3 || !kWeekdays[i].starts_with(name)) continue;
      // "monday" is the last Monday up to today; "last monday" is before today.
      const chr::weekday wanted{i};
      const chr::sys_days from = m[1].matched ? now - chr::days{1} : now;
      return chr::year_month_day{from - (chr::weekday{from} - wanted)};
    }
  }
  if (auto day = parse_iso(words)) return day;
  // "30 nov", "30 november 2026", "nov 30", "november 30, 2026": without a
  // year, the last such day up to today.
  static const std::regex day_month(R"(^(\d{1,2})(?:st|nd|rd|th)? ([a-z]+)\.?(?: (\d{4}))?$)");
  static const std::regex month_day(R"(^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?$)");
  std::string day_text;
  std::string month_text;
  std::string year_text;
  if (std::regex_match(words, m, day_month)) {
    day_text = m[1];
    month_text = m[2];
    year_text = m[3];
  } else if (std::regex_match(words, m, month_day)) {
    month_text = m[1];
    day_text = m[2];
    year_text = m[3];
  } else {
    return std::nullopt;
  }
  const unsigned month = month_of(month_text);
  if (month == 0) return std::nullopt;
  const chr::month_day md{chr::month{month}, chr::day{static_cast<unsigned>(std::stoi(day_text))}};
  chr::year year = year_text.empty() ? today.year() : chr::year{std::stoi(year_text)};
  chr::year_month_day day{year, md.month(), md.day()};
  if (year_text.empty() && day.ok() && chr::sys_days{day} > now)
    day = {year - chr::years{1}, md.month(), md.day()};
  return day.ok() ? std::optional(day) : std::nullopt;
}

// The address a pasted page names as its own, else the first in it.
std::string page_address(const std::string& text) {
  static const std::regex canonical(
      R"re(<link[^>]*rel=["']?canonical["']?[^>]*href=["']([^"']+)["'])re", std::regex::icase);
  static const std::regex og_url(
      R"re(<meta[^>]*property=["']og:url["'][^>]*content=["']([^"']+)["'])re", std::regex::icase);
  static const std::regex any(R"(https?://[^\s"'<>]+)", std::regex::icase);
  std::smatch m;
  for (const std::regex* r : {&canonical, &og_url, &any})
    if (std::regex_search(text, m, *r)) return m[m.size() > 1 ? 1 : 0];
  return {};
}

bool is_link(const std::string& s) {
  const std::string l = lower(s.substr(0, 8));
  return (l.starts_with("http://") || l.starts_with("https://")) &&
         s.find_first_of(" \t\r\n") == std::string::npos;
}

std::vector<std::string> parts_of(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= line.size()) {
    std::size_t end = line.find_first_of(",;", start);
    if (end == std::string::npos) end = line.size();
    if (std::string part = trim(std::string_view(line).substr(start, end - start)); !part.empty())
      out.push_back(std::move(part));
    start = end + 1;
  }
  return out;
}

void read_line(std::string line, const std::string& today, QuickAdd& out) {
  out.kind = QuickAdd::Kind::line;
  // A link anywhere in the line is the listing's.
  static const std::regex link(R"(https?://[^\s,;]+)", std::regex::icase);
  std::smatch m;
  if (std::regex_search(line, m, link)) {
    out.url = m[0];
    while (!out.url.empty() && (out.url.back() == '.' || out.url.back() == ')')) out.url.pop_back();
    line = m.prefix().str() + " " + m.suffix().str();
  }
  // "applied …" to the end of its part says when; what stands before it in
  // the part is read as the rest of the line is. The line's first word is
  // a role's ("Applied scientist at Initech applied today").
  static const std::regex applied(R"((^|\s)applied\b(.*)$)", std::regex::icase);
  std::vector<std::string> parts;
  for (std::string& part : parts_of(line)) {
    // In the line's first part the search starts after its first letter.
    const std::size_t skip = parts.empty() && !out.applied ? 1 : 0;
    if (!out.applied && std::regex_search(part.cbegin() + static_cast<std::ptrdiff_t>(skip),
                                          part.cend(), m, applied,
                                          skip == 0 ? std::regex_constants::match_default
                                                    : std::regex_constants::match_prev_avail)) {
      out.applied = true;
      const std::string when = trim(m[2].str());
      auto day = parse_iso(today);
      auto read = day ? read_day(when, *day) : std::nullopt;
      if (read)
        out.applied_on = iso(*read);
      else
        out.unread = when;
      if (std::string before = trim(part.substr(0, skip) + m.prefix().str()); !before.empty())
        parts.push_back(before);
      continue;
    }
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return;
  // The role and the company: "Role at Company", "Role @ Company" or
  // "Role - Company"; else the part after the role names the company.
  static const std::regex at(R"(^(.+?)\s+(?:at|@|-|–|—)\s+(.+)$)", std::regex::icase);
  static const std::regex glued_at(R"(^(.+?)\s*@\s*(.+)$)");
  std::size_t next = 1;
  if (std::regex_match(parts[0], m, at) || std::regex_match(parts[0], m, glued_at)) {
    out.role = trim(m[1].str());
    out.company = trim(m[2].str());
  } else {
    out.role = parts[0];
    if (parts.size() > 1) out.company = parts[next++];
  }
  for (; next < parts.size(); ++next)
    out.location += (out.location.empty() ? "" : ", ") + parts[next];
}

}  // namespace

QuickAdd read_quick_add(std::string_view text, const std::string& today) {
  QuickAdd out;
  const std::string t = trim(text);
  if (t.empty()) return out;
  if (is_link(t)) {
    out.kind = QuickAdd::Kind::link;
    out.url = t;
    return out;
  }
  static const std::regex tag(R"(<[a-zA-Z!/])");
  if (t.find('\n') != std::string::npos || std::regex_search(t, tag)) {
    out.kind = QuickAdd::Kind::page;
    out.url = page_address(t);
    return out;
  }
  read_line(t, today, out);
  return out;
}

}  // namespace peto::domain
