#include "domain/due.h"

#include "domain/kinds.h"

namespace peto::domain::due {

namespace {

// Statuses in which an application waits for the other side, so silence means something.
constexpr const char* kQuietStatuses =
    "('applied', 'acknowledged', 'screening', 'interviewing', 'assessment')";

// A listing that can still close on someone: open, not discarded, with a
// date not yet announced, and not applied to (a draft alone is still to send).
std::string open_listing() {
  return "l.closed_at IS NULL AND l.state <> 'discarded' AND l.closes_on IS NOT NULL"
         " AND (l.closing_announced_for IS NULL OR l.closing_announced_for <> l.closes_on)"
         " AND NOT " +
         listing_applied("l");
}

// The last sign of life of the application row `t`: its latest timeline
// entry (kept on the row, insight_migrations), else when it was sent, else
// when it was made.
std::string last_activity(const std::string& t) {
  return "COALESCE(" + t + ".last_entry_at, " + t + ".applied_at, " + t + ".created_at)";
}

std::vector<Owner> owners_from(const store::Rows& rows) {
  std::vector<Owner> out;
  out.reserve(rows.size());
  for (const auto& r : rows)
    out.push_back({r.int_at("id"), r.text("email"), r.text("language"), r.text("time_zone"),
                   r.int_at("days")});
  return out;
}

std::set<std::int64_t> ids_of(const store::Rows& rows) {
  std::set<std::int64_t> out;
  for (const auto& r : rows) out.insert(r.int_at("id"));
  return out;
}

}  // namespace

std::vector<Reminder> reminders(store::Conn& conn, Millis now, int limit) {
  auto rows = conn.query(
      "SELECT r.id, r.owner_id, r.title, r.due_at, r.application_id, l.role, c.name"
      " FROM reminders r JOIN users u ON u.id = r.owner_id"
      " LEFT JOIN applications a ON a.id = r.application_id"
      " LEFT JOIN listings l ON l.id = a.listing_id"
      " LEFT JOIN companies c ON c.id = l.company_id"
      " WHERE r.done_at IS NULL AND r.notified_at IS NULL AND r.due_at <= ? AND u.active = 1"
      " ORDER BY r.due_at, r.id LIMIT ?",
      {now, limit});
  std::vector<Reminder> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    Reminder due{r.int_at("id"), r.int_at("owner_id"), r.text("title"), r.int_at("due_at"),
                 std::nullopt};
    if (!r.is_null("application_id"))
      due.application = Named{r.int_at("application_id"), r.text("role"), r.text("name")};
    out.push_back(std::move(due));
  }
  return out;
}

std::set<std::int64_t> claim_reminders(store::Conn& conn, const std::vector<std::int64_t>& ids,
                                       Millis now) {
  if (ids.empty()) return {};
  store::Params params{now};
  for (auto id : ids) params.emplace_back(id);
  return ids_of(conn.query(
      "UPDATE reminders SET notified_at = ? WHERE notified_at IS NULL AND done_at IS NULL"
      " AND id IN " +
          store::placeholders(ids.size()) + " RETURNING id",
      params));
}

std::vector<Owner> quiet_owners(store::Conn& conn) {
  return owners_from(conn.query(
      std::string("SELECT u.id, u.email, u.language, u.time_zone, u.quiet_after_days AS days"
                  " FROM users u"
                  " WHERE u.active = 1 AND u.quiet_after_days > 0 AND EXISTS (SELECT 1 FROM"
                  " applications a WHERE a.owner_id = u.id AND a.status IN ") +
      kQuietStatuses + ") ORDER BY u.id"));
}

std::vector<QuietApplication> quiet_applications(store::Conn& conn, std::int64_t owner,
                                                 Millis cutoff) {
  auto rows = conn.query(
      std::string("SELECT q.id, l.role, c.name, q.activity FROM (SELECT a.id, a.listing_id,"
                  " a.quiet_announced_at, ") +
          last_activity("a") + " AS activity FROM applications a WHERE a.owner_id = ?" +
          " AND a.status IN " + kQuietStatuses +
          ") q JOIN listings l ON l.id = q.listing_id JOIN companies c ON c.id = l.company_id"
          " WHERE q.activity <= ? AND (q.quiet_announced_at IS NULL"
          " OR q.quiet_announced_at < q.activity) ORDER BY q.activity, q.id",
      {owner, cutoff});
  std::vector<QuietApplication> out;
  out.reserve(rows.size());
  for (const auto& r : rows)
    out.push_back({{r.int_at("id"), r.text("role"), r.text("name")}, r.int_at("activity")});
  return out;
}

std::set<std::int64_t> claim_quiet(store::Conn& conn, const std::vector<std::int64_t>& ids,
                                   Millis now) {
  if (ids.empty()) return {};
  store::Params params{now};
  for (auto id : ids) params.emplace_back(id);
  // Claimed only if still unannounced in this silence: a second
  // scheduler's claim finds quiet_announced_at >= the last activity.
  return ids_of(
      conn.query(std::string("UPDATE applications SET quiet_announced_at = ? WHERE id IN ") +
                     store::placeholders(ids.size()) +
                     " AND (quiet_announced_at IS NULL OR quiet_announced_at < " +
                     last_activity("applications") + ") RETURNING id",
                 params));
}

std::vector<Owner> closing_owners(store::Conn& conn, const std::string& earliest) {
  return owners_from(
      conn.query(std::string("SELECT u.id, u.email, u.language, u.time_zone,"
                             " u.closing_notice_days AS days"
                             " FROM users u WHERE u.active = 1 AND u.closing_notice_days > 0"
                             " AND EXISTS (SELECT 1 FROM listings l WHERE l.owner_id = u.id AND ") +
                     open_listing() + " AND l.closes_on >= ?) ORDER BY u.id",
                 {earliest}));
}

std::vector<ClosingListing> closing_listings(store::Conn& conn, std::int64_t owner,
                                             const std::string& today, const std::string& horizon) {
  auto rows = conn.query(
      std::string("SELECT l.id, l.role, c.name, l.closes_on FROM listings l"
                  " JOIN companies c ON c.id = l.company_id WHERE l.owner_id = ? AND ") +
          open_listing() + " AND l.closes_on >= ? AND l.closes_on <= ? ORDER BY l.closes_on, l.id",
      {owner, today, horizon});
  std::vector<ClosingListing> out;
  out.reserve(rows.size());
  for (const auto& r : rows)
    out.push_back({{r.int_at("id"), r.text("role"), r.text("name")}, r.text("closes_on")});
  return out;
}

std::map<std::int64_t, std::string> claim_closing(store::Conn& conn,
                                                  const std::vector<std::int64_t>& ids) {
  if (ids.empty()) return {};
  store::Params params;
  for (auto id : ids) params.emplace_back(id);
  auto rows = conn.query("UPDATE listings SET closing_announced_for = closes_on WHERE id IN " +
                             store::placeholders(ids.size()) +
                             " AND (closing_announced_for IS NULL OR"
                             " closing_announced_for <> closes_on) RETURNING id, closes_on",
                         params);
  std::map<std::int64_t, std::string> out;
  for (const auto& r : rows) out[r.int_at("id")] = r.text("closes_on");
  return out;
}

}  // namespace peto::domain::due
