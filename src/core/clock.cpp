#include "core/clock.h"

#include <cstdio>
#include <ctime>
#include <string_view>
#include <thread>

namespace peto {

Millis SystemClock::now_ms() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::chrono::steady_clock::time_point SystemClock::mono() const {
  return std::chrono::steady_clock::now();
}

void SystemClock::sleep_for(std::chrono::milliseconds d) const { std::this_thread::sleep_for(d); }

const Clock& system_clock() {
  static const SystemClock clock;
  return clock;
}

namespace {
std::tm utc_tm(Millis ms) {
  std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}
}  // namespace

std::string format_time(Millis ms) {
  std::tm tm = utc_tm(ms);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(((ms % 1000) + 1000) % 1000));
  return buf;
}

std::string format_time_s(Millis ms) {
  std::tm tm = utc_tm(ms);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::optional<Millis> parse_time(const std::string& text) {
  // Exactly "YYYY-MM-DDTHH:MM:SS" first: sscanf alone would take signs and spaces.
  static constexpr std::string_view shape = "dddd-dd-ddTdd:dd:dd";
  if (text.size() < shape.size()) return std::nullopt;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    bool digit = text[k] >= '0' && text[k] <= '9';
    if (shape[k] == 'd' ? !digit : (text[k] != shape[k] && !(k == 10 && text[k] == 't')))
      return std::nullopt;
  }
  int y, mo, d, h, mi, s, n = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%*c%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 ||
      n != 19)
    return std::nullopt;
  static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || h > 23 || mi > 59 || s > 60)
    return std::nullopt;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo == 2 && d == 29 && !leap) return std::nullopt;
  std::size_t i = 19;
  Millis frac = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (digits < 3) frac = frac * 10 + (text[i] - '0');
      ++digits, ++i;
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) frac *= 10;
  }
  long offset_s = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') && text[i + 3] == ':') {
    int oh = 0, om = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2 || oh > 23 || om > 59)
      return std::nullopt;
    offset_s = (oh * 3600L + om * 60L) * (text[i] == '+' ? 1 : -1);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
  tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
  std::time_t secs = timegm(&tm);
  return (static_cast<Millis>(secs) - offset_s) * 1000 + frac;
}

}  // namespace peto
