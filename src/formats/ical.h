// iCalendar and vCard: calendar items and contact cards as iCalendar
// (RFC 5545) and vCard (RFC 6350) text, and back.
//
//   std::string ics = write_calendar({item}, now_ms);     // one VCALENDAR
//   auto read = read_calendar(text, "Europe/Lisbon");     // CalItem, or why not
//
// Writing: CRLF line ends, text escaped (\\ \; \, \n), lines folded at 75
// octets and never inside a UTF-8 sequence, times in UTC ("…Z"). Reading:
// lines unfolded, parameters and escapes understood, DTSTART/DTEND/DUE/
// COMPLETED as UTC ("…Z"), with TZID (through core/timezone.h), floating
// (read in `zone`, the account's) or VALUE=DATE (midnight UTC). The first
// VEVENT or VTODO is the item; VALARMs and unknown properties are ignored.
// Limits: 1 MiB of text, 10,000 lines, values cut to the record field's
// length (domain/cards.h). Junk is an error message, never an exception.
//
// Records become items and items record values in domain/cards.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace peto::formats {

struct CalItem {
  enum class Type { event, todo };
  Type type = Type::event;
  std::string uid;
  std::string summary;
  std::string location;
  std::string description;
  std::optional<std::int64_t> start;      // VEVENT DTSTART, UTC ms
  std::optional<std::int64_t> end;        // VEVENT DTEND
  std::optional<std::int64_t> due;        // VTODO DUE
  std::optional<std::int64_t> completed;  // VTODO COMPLETED (STATUS:COMPLETED alone: `due`)
  // "YYYY-MM-DD" for an all-day item (an event's DTSTART or a to-do's DUE is a
  // DATE); `start` or `due` is then the start of that day in the reader's zone.
  std::string day;
  bool cancelled = false;  // STATUS:CANCELLED
};

struct Card {
  std::string uid;
  std::string name;  // FN
  std::string email;
  std::string phone;         // TEL
  std::string role;          // ROLE (TITLE when there is no ROLE)
  std::string organisation;  // ORG, written only
  std::string notes;         // NOTE
};

// Text of one VCALENDAR holding `items` (PRODID -//peto//…, DTSTAMP = now).
std::string write_calendar(const std::vector<CalItem>& items, std::int64_t now_ms);
// The first VEVENT or VTODO, or why the text is not one.
std::variant<CalItem, std::string> read_calendar(std::string_view text, const std::string& zone);

std::string write_card(const Card& card);
std::variant<Card, std::string> read_card(std::string_view text);

// The server's text `theirs` with peto's properties taken from `ours` (text
// write_calendar/write_card made for the same record): in the first VEVENT,
// VTODO or VCARD of `theirs`, every property peto writes is replaced by
// ours (removed when ours has none), and everything else — other
// properties, parameters of lines peto does not write, sub-components such
// as VALARM, other components such as VTIMEZONE — is kept as it was.
// When `theirs` cannot be read (or is not the same type as `ours`), `ours`.
//
// peto's properties: VEVENT DTSTART, DTEND, DURATION, SUMMARY, LOCATION,
// DESCRIPTION, STATUS, DTSTAMP; VTODO SUMMARY, DUE, COMPLETED, STATUS,
// DTSTAMP, and PERCENT-COMPLETE, dropped when the STATUS changes; VCARD FN,
// N, TITLE, ORG, NOTE, and ROLE (peto reads it before TITLE: theirs' first
// ROLE takes ours' role, the others go). UID stays theirs (ours only when
// theirs has none). EMAIL and TEL: theirs' lines all stay when one has
// ours' value (addresses compared ignoring case, numbers by their digits);
// otherwise the preferred one (TYPE=pref or PREF, else the first) takes
// ours' value with its own parameters, or ours is added when theirs has
// none; no value in ours removes theirs' preferred one. Replaced lines keep
// their place, new ones go before the first sub-component. The item's lines
// are written unfolded and folded again at 75 octets; other lines are
// copied as they were, with CRLF line ends. Never throws.
std::string merge_member(const std::string& theirs, const std::string& ours);

}  // namespace peto::formats
