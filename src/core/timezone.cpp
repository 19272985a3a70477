#include "core/timezone.h"

#include <date/tz.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>

namespace peto {

namespace {

using Ms = std::chrono::milliseconds;

// The zone for `name`, or nullptr when the database does not know it.
const date::time_zone* find_zone(std::string_view name) {
  if (name.empty() || name.size() > 64) return nullptr;
  try {
    return date::locate_zone(name);
  } catch (const std::exception&) {
    return nullptr;
  }
}

const date::time_zone* zone_or_utc(const std::string& name) {
  const date::time_zone* z = find_zone(name);
  return z != nullptr ? z : date::locate_zone("UTC");
}

// Reads exactly `n` digits at `pos`; -1 when they are not there.
int digits(std::string_view s, std::size_t pos, std::size_t n) {
  if (pos + n > s.size()) return -1;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

std::optional<date::year_month_day> parse_ymd(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  int y = digits(s, 0, 4), m = digits(s, 5, 2), d = digits(s, 8, 2);
  if (y < 1 || m < 1 || d < 1) return std::nullopt;
  date::year_month_day ymd{date::year{y}, date::month{static_cast<unsigned>(m)},
                           date::day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  return ymd;
}

}  // namespace

bool is_valid_time_zone(std::string_view iana_name) { return find_zone(iana_name) != nullptr; }

const std::vector<std::string>& time_zone_names() {
  static const std::vector<std::string> names = [] {
    // The zones of the system's tz database, without its links (the old
    // "America/Buenos_Aires" for "America/Argentina/Buenos_Aires"): its
    // text form lists each zone on a line "Z name …" and each link on "L".
    std::vector<std::string> all;
    std::ifstream zi("/usr/share/zoneinfo/tzdata.zi");
    for (std::string line; std::getline(zi, line);)
      if (line.starts_with("Z ")) all.push_back(line.substr(2, line.find(' ', 2) - 2));
    if (all.empty()) {
      try {
        for (const date::time_zone& z : date::get_tzdb().zones) all.emplace_back(z.name());
      } catch (const std::exception&) {
      }
    }
    std::vector<std::string> out;
    for (const std::string& name : all) {
      // Where people live: Region/City. "Etc/GMT+1" and the old
      // "EST5EDT" style names are left to those who type them.
      if (name.find('/') == std::string::npos || name.starts_with("Etc/") ||
          name.starts_with("posix/") || name.starts_with("right/") || !is_valid_time_zone(name))
        continue;
      out.push_back(name);
    }
    out.emplace_back("UTC");
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return names;
}

std::optional<std::string> find_time_zone(std::string_view typed) {
  std::string key;
  for (char c : typed) {
    if (c == ' ') c = '_';
    key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!key.empty() && key.front() == '_') key.erase(key.begin());
  while (!key.empty() && key.back() == '_') key.pop_back();
  if (key.empty() || key.size() > 64) return std::nullopt;
  if (const date::time_zone* z = find_zone(typed)) return std::string(z->name());
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  std::optional<std::string> found;
  for (const std::string& name : time_zone_names()) {
    const std::string l = lower(name);
    if (l == key) return name;
    const std::string city = l.substr(l.rfind('/') + 1);
    if (city == key) {
      if (found) return std::nullopt;  // two places of that name: say which
      found = name;
    }
  }
  return found;
}

// The three forms the pages use are written directly: date::format goes
// through an ostringstream, which was a visible share of a page's time.
std::string format_local(std::int64_t utc_ms, const std::string& zone, std::string_view fmt) {
  date::sys_time<Ms> tp{Ms{utc_ms}};
  const date::time_zone* z = zone_or_utc(zone);
  bool date_only = fmt == "%Y-%m-%d";
  char sep = fmt == "%Y-%m-%d %H:%M" ? ' ' : fmt == "%Y-%m-%dT%H:%M" ? 'T' : '\0';
  if (!date_only && sep == '\0') return date::format(std::string(fmt), date::make_zoned(z, tp));
  auto local = z->to_local(tp);
  auto days = date::floor<date::days>(local);
  date::year_month_day ymd{days};
  date::hh_mm_ss<Ms> time{local - days};
  char out[32];
  int n = date_only ? std::snprintf(out, sizeof out, "%04d-%02u-%02u", int(ymd.year()),
                                    unsigned(ymd.month()), unsigned(ymd.day()))
                    : std::snprintf(out, sizeof out, "%04d-%02u-%02u%c%02d:%02d", int(ymd.year()),
                                    unsigned(ymd.month()), unsigned(ymd.day()), sep,
                                    int(time.hours().count()), int(time.minutes().count()));
  return std::string(out, static_cast<std::size_t>(n));
}

std::string local_date(std::int64_t utc_ms, const std::string& zone) {
  return format_local(utc_ms, zone, "%Y-%m-%d");
}

std::int64_t local_day(std::int64_t utc_ms, const std::string& zone) {
  auto local = zone_or_utc(zone)->to_local(date::sys_time<Ms>{Ms{utc_ms}});
  return date::floor<date::days>(local).time_since_epoch().count();
}

std::optional<std::int64_t> parse_local(std::string_view text, const std::string& zone) {
  if (text.size() != 16 && text.size() != 19) return std::nullopt;
  auto ymd = parse_ymd(text.substr(0, 10));
  if (!ymd || (text[10] != 'T' && text[10] != ' ') || text[13] != ':') return std::nullopt;
  int hh = digits(text, 11, 2), mm = digits(text, 14, 2), ss = 0;
  if (text.size() == 19) {
    if (text[16] != ':') return std::nullopt;
    ss = digits(text, 17, 2);
  }
  if (hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 59) return std::nullopt;
  const date::time_zone* z = find_zone(zone);
  if (z == nullptr) z = date::locate_zone("UTC");
  date::local_time<std::chrono::seconds> local = date::local_days{*ymd} + std::chrono::hours{hh} +
                                                 std::chrono::minutes{mm} +
                                                 std::chrono::seconds{ss};
  auto sys = z->to_sys(local, date::choose::earliest);
  return std::chrono::duration_cast<Ms>(sys.time_since_epoch()).count();
}

std::optional<std::int64_t> parse_date_utc_ms(std::string_view yyyy_mm_dd) {
  auto ymd = parse_ymd(yyyy_mm_dd);
  if (!ymd) return std::nullopt;
  date::sys_days days{*ymd};
  return std::chrono::duration_cast<Ms>(days.time_since_epoch()).count();
}

std::string add_days(const std::string& date, int days) {
  // Through parse_date_utc_ms rather than date::parse, whose inlined parser
  // trips GCC 12's -Wmaybe-uninitialized at -O2.
  std::optional<std::int64_t> midnight = parse_date_utc_ms(date);
  if (!midnight) return date;
  return local_date(*midnight + static_cast<std::int64_t>(days) * 86'400'000, "UTC");
}

}  // namespace peto
