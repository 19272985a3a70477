// Dashboard: what needs doing now, for one person.
//
// Each list is one query scoped to the owner. "Gone quiet" is a single
// predicate (quiet_condition) that the dashboard and the scheduler's
// announcements share, so the page and the notices always agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "domain/records.h"

namespace peto::domain {

// SQL condition on an application aliased `a`, true when it has gone quiet:
// open and sent, no timeline activity since `cutoff` (now minus the person's
// quiet-after days), no reminder still to come and no interview waiting for
// its outcome. Takes two parameters, in order: now, cutoff (UTC ms).
std::string quiet_condition();

struct Dashboard {
  std::vector<Record> reminders_due;       // not done, due_at <= now; oldest first
  std::vector<Record> reminders_upcoming;  // due in the next 7 days
  std::vector<Record> gone_quiet;          // applications, longest-quiet first
  std::vector<Record> closing_soon;        // listings closing within the notice days
  std::vector<Record> interviews;          // scheduled, starting from now on
  std::int64_t open_applications = 0;
  std::int64_t undecided_listings = 0;
  std::int64_t listings = 0;  // every one, decided or not: none at all is a first visit
};

// `today` is the person's local date (YYYY-MM-DD); each list holds at most 20.
// All lists come from one read transaction, so they agree with each other.
Dashboard dashboard(store::Db& pool, std::int64_t owner, std::int64_t now, const std::string& today,
                    int quiet_after_days, int closing_notice_days);
// The same on a connection the caller holds (inside its own transaction).
Dashboard read_dashboard(store::Conn& db, std::int64_t owner, std::int64_t now,
                         const std::string& today, int quiet_after_days, int closing_notice_days);

}  // namespace peto::domain
