// What falls on which day for one person, for the calendar page: interviews,
// reminders, application deadlines, listings' closing dates and offers'
// answer-by dates, each on its day where the person lives.
//
//   AgendaQuery q{.zone = "Europe/Berlin", .from = "2027-01-01", .to = "2027-02-01",
//                 .now = clock.now_ms()};
//   for (const AgendaItem& i : agenda(db, owner, q)) ...   // by day, then time
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/db.h"

namespace peto::domain {

struct AgendaItem {
  std::string what;  // "interview", "reminder", "deadline", "closing", "answer_by"
  std::string kind;  // the record's kind: "interviews", "reminders", "applications"…
  std::int64_t id = 0;
  std::string title;               // a reminder's own words, or the role ("Data engineer")
  std::string company;             // for all but reminders: the role's company
  std::string day;                 // YYYY-MM-DD where the person lives
  std::optional<std::int64_t> at;  // UTC ms for what has a time (not all-day)
  bool done = false;               // a reminder done, an interview held or missed
  bool overdue = false;            // a reminder not done whose time has passed
};

struct AgendaQuery {
  std::string zone = "UTC";
  std::string from;  // first day, YYYY-MM-DD
  std::string to;    // the day after the last
  std::int64_t now = 0;
  // Also every reminder still to do whose time passed before `from`.
  bool with_overdue = false;
};

// When a reminder put off at `now` falls due again, where the person lives:
// "later" three hours on, "tomorrow" at 09:00, "next_week" on Monday at
// 09:00; nullopt for any other word.
std::optional<std::int64_t> snooze_until(const std::string& preset, std::int64_t now,
                                         const std::string& zone);

// The owner's items from q.from up to q.to: overdue ones first when asked,
// then by day, the whole-day ones before the timed ones of their day.
std::vector<AgendaItem> agenda(store::Db& db, std::int64_t owner, const AgendaQuery& q);

}  // namespace peto::domain
