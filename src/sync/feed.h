// CalendarFeeds: one .ics address per account, for calendar apps that can
// only subscribe (no CalDAV).
//
//   sync::CalendarFeeds feeds(db, clock);
//   std::string token = feeds.create(owner);          // replaces any earlier one
//   // the address: <public url>/feeds/<token>/calendar.ics
//   std::optional<std::int64_t> who = feeds.owner_of(token);
//   std::string ics = feeds.render(*who);             // interviews and open reminders
//   feeds.revoke(owner);                              // the old address answers 404
//
// The token is 32 random bytes (core/token.h), shown once; only its SHA-256
// is stored (calendar_feeds.token_hash), so a copy of the database cannot
// read anyone's calendar. owner_of() compares in constant time through the
// hash lookup and ignores inactive accounts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.h"
#include "store/db.h"

namespace peto::sync {

class CalendarFeeds {
 public:
  CalendarFeeds(store::Db& db, const Clock& clock) : db_(db), clock_(clock) {}

  std::string create(std::int64_t owner);
  bool revoke(std::int64_t owner);  // false when there was none
  bool exists(std::int64_t owner);
  std::optional<Millis> created_at(std::int64_t owner);
  std::optional<std::int64_t> owner_of(const std::string& token);
  // One VCALENDAR: every interview (VEVENT) and every open reminder (VEVENT
  // at its due time, 15 minutes long) of `owner`, UIDs stable across renders.
  std::string render(std::int64_t owner);

 private:
  store::Db& db_;
  const Clock& clock_;
};

}  // namespace peto::sync
