#include "domain/calendar.h"

#include <date/date.h>

#include <algorithm>
#include <chrono>

namespace peto::domain {

namespace {

std::string ics_time(std::int64_t ms) {
  auto tp = std::chrono::time_point_cast<std::chrono::seconds>(
      std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(ms)));
  return date::format("%Y%m%dT%H%M%SZ", tp);
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == ';' || c == ',') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c != '\r') {
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
std::string fold(const std::string& line) {
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

}  // namespace

std::string interview_ics(const Record& interview, const std::string& uid, const std::string& title,
                          std::int64_t now_ms) {
  std::int64_t start = interview["starts_at"].get<std::int64_t>();
  std::int64_t end = interview["ends_at"].is_number() ? interview["ends_at"].get<std::int64_t>()
                                                      : start + 3600 * 1000;
  std::string out =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//peto//interviews//EN\r\n"
      "CALSCALE:GREGORIAN\r\nBEGIN:VEVENT\r\n";
  out += fold("UID:" + uid);
  out += "DTSTAMP:" + ics_time(now_ms) + "\r\n";
  out += "DTSTART:" + ics_time(start) + "\r\n";
  out += "DTEND:" + ics_time(end) + "\r\n";
  out += fold("SUMMARY:" + escape(title));
  if (interview["place"].is_string()) out += fold("LOCATION:" + escape(interview["place"]));
  if (interview["notes"].is_string()) out += fold("DESCRIPTION:" + escape(interview["notes"]));
  std::string outcome =
      interview["outcome"].is_string() ? interview["outcome"].get<std::string>() : "";
  out += std::string("STATUS:") + (outcome == "cancelled" ? "CANCELLED" : "CONFIRMED") + "\r\n";
  out += "END:VEVENT\r\nEND:VCALENDAR\r\n";
  return out;
}

}  // namespace peto::domain
