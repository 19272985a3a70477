// Automatic reminders: the ones peto writes for a person, so that the usual
// next steps of a job search are on their list without typing them.
//
//   follow_up  N days after an application is first sent (the profile's
//              follow_up_days, 7 unless changed; 0 = off), all day, while the
//              application still waits for an answer (applied, acknowledged);
//   interview  24 hours before a timed interview, the day before an all-day
//              one, while it is scheduled and its application open;
//   answer_by  the day before an offer's answer-by date, while its
//              application is open;
//   closing    the day before a listing's closing date, while the listing is
//              open and not applied to (off unless the person switches it on:
//              the scheduler already announces listings about to close).
//
// Each is made once for what it is about (reminders.made_for names which of
// the four, made_from the application, interview, offer or listing; unique
// together), in the transaction of the change that calls for it, and only
// then: when the record is made, first gets its date, or (a follow-up) when
// the application is first sent. A reminder the person deleted is not made
// again by a later edit. Afterwards it keeps in step: when the date moves the
// reminder moves (and is to do again if it had been done); when its reason
// goes (the interview is cancelled, the application closes, the listing is
// applied to) it is marked done. The person may change its title; peto never
// rewrites it. A date already past makes none.
//
// The reminder is a plain reminder otherwise: it can be snoozed, done,
// edited and deleted, it goes to the trash with what it is about, and an
// export carries made_for/made_from so an import keeps the link.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/kinds.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

// The profile's switches (users columns, migration 19).
struct ReminderSwitches {
  int follow_up_days = 7;  // 0 = no follow-up reminders; at most 90
  bool interviews = true;
  bool answer_by = true;
  bool closing = false;
};

inline constexpr int kMaxFollowUpDays = 90;

// What a write did to the date a record's reminder hangs on.
enum class DateChange {
  none,   // left it alone (or there is none)
  given,  // the record was made, or got a date it did not have
  moved,  // changed it, or cleared it
};

// Keeps the automatic reminder of one record in step after a write to it,
// reading the record as it is now in `conn`'s transaction: `kind` is
// applications (its follow-up), interviews, offers or listings; any other
// kind is ignored. A reminder is made only on DateChange::given (and not
// for a time already past) and moved only when the date changed, so a
// snoozed reminder stays snoozed through other edits; whatever the change,
// one whose reason has gone is marked done.
void keep_reminder(store::Conn& conn, std::int64_t owner, const Kind& kind, std::int64_t id,
                   DateChange change, std::int64_t now);

// After an application's status changed: its follow-up, and the reminders of
// its interviews, offers and listing, which may no longer be wanted.
// `first_sent`: the application was sent for the first time by this change.
void keep_reminders_of_application(store::Conn& conn, std::int64_t owner,
                                   std::int64_t application_id, bool first_sent, std::int64_t now);

// The date a record's reminder hangs on, as text (a day, or a moment's
// digits); nullopt when it has none or its kind makes no reminder. Read
// before and after a write, it tells the DateChange.
std::optional<std::string> reminder_date(store::Conn& conn, const Kind& kind, std::int64_t id);
DateChange date_change(const std::optional<std::string>& before,
                       const std::optional<std::string>& after);

// The kind of record a made_for names ("interview" → "interviews"); "" for
// none.
std::string made_from_kind(const std::string& made_for);

std::vector<store::Migration> auto_reminder_migrations();

}  // namespace peto::domain
