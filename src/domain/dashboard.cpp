#include "domain/dashboard.h"

#include <optional>

#include "core/timezone.h"
#include "domain/kinds.h"

namespace peto::domain {

namespace {

constexpr std::int64_t kDayMs = 24LL * 3600 * 1000;

const char* kOpenSent =
    "a.status IN ('applied','acknowledged','screening','interviewing','assessment','offer')";

std::vector<Record> reminders(store::Conn& db, const std::string& where, const store::Params& p) {
  auto rows = db.query(
      "SELECT r.id, r.title, r.due_at, r.due_on, r.application_id,"
      " (SELECT l.role FROM applications a JOIN listings l ON l.id = a.listing_id"
      "  WHERE a.id = r.application_id) AS application_role"
      " FROM reminders r WHERE " +
          where + " ORDER BY r.due_at, r.id LIMIT 20",
      p);
  std::vector<Record> out;
  for (const auto& r : rows)
    out.push_back(
        {{"id", r.int_at("id")},
         {"title", r.text("title")},
         {"due_at", r.int_at("due_at")},
         {"due_on", r.is_null("due_on") ? nlohmann::json() : nlohmann::json(r.text("due_on"))},
         {"application_id", r.is_null("application_id")
                                ? nlohmann::json()
                                : nlohmann::json(r.int_at("application_id"))},
         {"application_role", r.is_null("application_role")
                                  ? nlohmann::json()
                                  : nlohmann::json(r.text("application_role"))}});
  return out;
}

}  // namespace

std::string quiet_condition() {
  return std::string(kOpenSent) +
         " AND NOT EXISTS (SELECT 1 FROM reminders r WHERE r.application_id = a.id"
         "  AND r.done_at IS NULL AND r.due_at > ?)"
         " AND NOT EXISTS (SELECT 1 FROM interviews i WHERE i.application_id = a.id"
         "  AND i.outcome = 'scheduled')"
         " AND COALESCE(a.last_entry_at, a.created_at) < ?";
}

Dashboard dashboard(store::Db& pool, std::int64_t owner, std::int64_t now, const std::string& today,
                    int quiet_after_days, int closing_notice_days) {
  auto conn = pool.acquire();
  return store::with_read(*conn, [&](store::Conn& db) {
    return read_dashboard(db, owner, now, today, quiet_after_days, closing_notice_days);
  });
}

Dashboard read_dashboard(store::Conn& db, std::int64_t owner, std::int64_t now,
                         const std::string& today, int quiet_after_days, int closing_notice_days) {
  Dashboard d;
  d.reminders_due =
      reminders(db, "r.owner_id = ? AND r.done_at IS NULL AND r.due_at <= ?", {owner, now});
  d.reminders_upcoming =
      reminders(db, "r.owner_id = ? AND r.done_at IS NULL AND r.due_at > ? AND r.due_at <= ?",
                {owner, now, now + 7 * kDayMs});

  auto quiet = db.query(
      "SELECT a.id, l.role, c.name, a.status, COALESCE(a.last_entry_at, a.created_at) AS last"
      " FROM applications a JOIN listings l ON l.id = a.listing_id"
      " JOIN companies c ON c.id = l.company_id"
      " WHERE a.owner_id = ? AND " +
          quiet_condition() + " ORDER BY last, a.id LIMIT 20",
      {owner, now, now - quiet_after_days * kDayMs});
  for (const auto& r : quiet)
    d.gone_quiet.push_back({{"id", r.int_at("id")},
                            {"listing_role", r.text("role")},
                            {"company_name", r.text("name")},
                            {"status", r.text("status")},
                            {"last_activity_at", r.int_at("last")},
                            {"quiet_days", (now - r.int_at("last")) / kDayMs}});

  auto closing = db.query(
      "SELECT l.id, l.role, c.name, l.closes_on FROM listings l"
      " JOIN companies c ON c.id = l.company_id"
      " WHERE l.owner_id = ? AND l.state <> 'discarded' AND l.closed_at IS NULL"
      " AND l.closes_on >= ? AND l.closes_on <= ? AND NOT " +
          listing_applied("l") + " ORDER BY l.closes_on, l.id LIMIT 20",
      {owner, today, add_days(today, closing_notice_days)});
  for (const auto& r : closing)
    d.closing_soon.push_back({{"id", r.int_at("id")},
                              {"role", r.text("role")},
                              {"company_name", r.text("name")},
                              {"closes_on", r.text("closes_on")}});

  auto interviews = db.query(
      "SELECT i.id, i.kind, i.starts_at, i.starts_on, i.place, i.application_id, l.role, c.name"
      " FROM interviews i JOIN applications a ON a.id = i.application_id"
      " JOIN listings l ON l.id = a.listing_id JOIN companies c ON c.id = l.company_id"
      " WHERE i.owner_id = ? AND i.outcome = 'scheduled'"
      " AND (i.starts_at >= ? OR (i.starts_on IS NOT NULL AND i.ends_at > ?))"
      " ORDER BY i.starts_at, i.id LIMIT 20",
      {owner, now - 2 * 3600 * 1000, now});
  for (const auto& r : interviews)
    d.interviews.push_back(
        {{"id", r.int_at("id")},
         {"kind", r.text("kind")},
         {"starts_at", r.int_at("starts_at")},
         {"starts_on",
          r.is_null("starts_on") ? nlohmann::json() : nlohmann::json(r.text("starts_on"))},
         {"place", r.text("place")},
         {"application_id", r.int_at("application_id")},
         {"listing_role", r.text("role")},
         {"company_name", r.text("name")}});

  auto counts = db.query(
      "SELECT (SELECT COUNT(*) FROM applications a WHERE a.owner_id = ? AND " +
          application_open("a") +
          ") AS open_applications,"
          " (SELECT COUNT(*) FROM listings l WHERE l.owner_id = ? AND l.state = 'new'"
          " AND l.closed_at IS NULL AND COALESCE(l.closes_on, '9999-12-31') >= ? AND NOT " +
          listing_taken_up("l") +
          ") AS undecided_listings,"
          " (SELECT COUNT(*) FROM listings l WHERE l.owner_id = ?) AS listings",
      {owner, owner, today, owner});
  d.open_applications = counts[0].int_at("open_applications");
  d.undecided_listings = counts[0].int_at("undecided_listings");
  d.listings = counts[0].int_at("listings");
  return d;
}

}  // namespace peto::domain
