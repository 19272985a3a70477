// Time zones: IANA names, local formatting and parsing for what people see.
//
// peto stores UTC milliseconds everywhere; a person's profile names the zone
// their pages are shown in and their form inputs are read in. The zone data is
// the system's tzdata, through Howard Hinnant's date library, so it updates
// with the operating system. An unknown zone name is never an error here: it
// formats as UTC (profiles are validated with is_valid_time_zone before they
// are saved). All functions are thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peto {

// True for a zone the tz database knows ("Europe/Lisbon", "UTC").
bool is_valid_time_zone(std::string_view iana_name);

// The zones a person picks from, "Region/City" and UTC, A to Z.
const std::vector<std::string>& time_zone_names();
// The zone meant by what a person typed: a zone's name in any case, or a
// city that names one zone only ("Berlin", "new york" -> "America/New_York");
// nullopt when none or several match.
std::optional<std::string> find_time_zone(std::string_view typed);

// `utc_ms` in `zone`, formatted with date::format's strftime-like `fmt`.
std::string format_local(std::int64_t utc_ms, const std::string& zone,
                         std::string_view fmt = "%Y-%m-%d %H:%M");

// The calendar date ("YYYY-MM-DD") that `utc_ms` falls on in `zone`.
std::string local_date(std::int64_t utc_ms, const std::string& zone);
// The same day as a number of days since 1970-01-01: two of them subtract
// to the whole days between, as the person's calendar counts them.
std::int64_t local_day(std::int64_t utc_ms, const std::string& zone);

// "YYYY-MM-DDTHH:MM" (an <input type="datetime-local">) or "YYYY-MM-DD HH:MM",
// optionally with ":SS", read as a wall time in `zone`; UTC ms, or nullopt for
// anything else. A wall time skipped by a clock change resolves to the moment
// of the change; one that happens twice resolves to the earlier.
std::optional<std::int64_t> parse_local(std::string_view text, const std::string& zone);

// `date` ("YYYY-MM-DD") plus `days`, as YYYY-MM-DD; `date` itself when it is
// not a date.
std::string add_days(const std::string& date, int days);

// Midnight UTC of a real calendar date "YYYY-MM-DD"; nullopt for junk or an
// impossible date ("2026-02-30").
std::optional<std::int64_t> parse_date_utc_ms(std::string_view yyyy_mm_dd);

}  // namespace peto
