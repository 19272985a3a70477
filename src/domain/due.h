// Due: what the scheduler's announcers ask of a person's records, and the
// claims that make each announcement happen once (docs/SPEC.md §3.2–3.4).
//
// Each question is a plain read; each claim is a conditional UPDATE on the
// value the read saw, run by the caller inside the write transaction that
// also writes the announcement (notify/outbox.h), and returns only the rows
// it took. Two schedulers asking at once both read a row, but only one claim
// takes it. The announcers are in steps/ (reminders, quiet, closing).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "store/db.h"

namespace peto::domain::due {

// An application or listing as a message names it.
struct Named {
  std::int64_t id = 0;
  std::string role;
  std::string company;
};

// An active account that has something of this kind to hear about, with
// its profile and the setting that decides when (quiet_after_days or
// closing_notice_days).
struct Owner {
  std::int64_t id = 0;
  std::string email;
  std::string language;
  std::string time_zone;
  std::int64_t days = 0;
};

// ---- Reminders: outstanding, due by `now`, not yet announced, of active owners.
struct Reminder {
  std::int64_t id = 0;
  std::int64_t owner_id = 0;
  std::string title;
  Millis due_at = 0;
  std::optional<Named> application;  // when the reminder belongs to one
};
// The earliest `limit` of them, by due time.
std::vector<Reminder> reminders(store::Conn& conn, Millis now, int limit);
// Stamps notified_at = now on those of `ids` still unannounced and not done.
std::set<std::int64_t> claim_reminders(store::Conn& conn, const std::vector<std::int64_t>& ids,
                                       Millis now);

// ---- Gone quiet (docs/RULES.md #1120): applications waiting for the other
// side whose last activity is older than the owner's quiet_after_days.
// Owners with an application that can go quiet (days = quiet_after_days).
std::vector<Owner> quiet_owners(store::Conn& conn);
struct QuietApplication {
  Named application;
  Millis last_activity = 0;
};
// The owner's applications quiet since `cutoff` and not yet announced in
// this silence, the longest quiet first. One query, however many there are.
std::vector<QuietApplication> quiet_applications(store::Conn& conn, std::int64_t owner,
                                                 Millis cutoff);
// Stamps quiet_announced_at = now on those of `ids` still unannounced in
// their silence.
std::set<std::int64_t> claim_quiet(store::Conn& conn, const std::vector<std::int64_t>& ids,
                                   Millis now);

// ---- Closing listings: open, not applied to, not discarded, with a closing
// date not yet announced.
// Owners with such a listing closing on or after `earliest` (YYYY-MM-DD;
// days = closing_notice_days).
std::vector<Owner> closing_owners(store::Conn& conn, const std::string& earliest);
struct ClosingListing {
  Named listing;
  std::string closes_on;  // YYYY-MM-DD
};
// The owner's listings closing from `today` to `horizon` (both YYYY-MM-DD).
std::vector<ClosingListing> closing_listings(store::Conn& conn, std::int64_t owner,
                                             const std::string& today, const std::string& horizon);
// Marks those of `ids` announced for their current closing date; returns
// each claimed id with that date.
std::map<std::int64_t, std::string> claim_closing(store::Conn& conn,
                                                  const std::vector<std::int64_t>& ids);

}  // namespace peto::domain::due
