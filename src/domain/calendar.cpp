#include "domain/calendar.h"

#include "domain/cards.h"
#include "formats/ical.h"

namespace peto::domain {

std::string interview_ics(const Record& interview, const std::string& uid, const std::string& title,
                          std::int64_t now_ms) {
  return formats::write_calendar({domain::interview_item(interview, uid, title)}, now_ms);
}

std::string interview_uid(store::Db& db, std::int64_t owner, std::int64_t id) {
  return interview_uid(*db.acquire(), owner, id);
}

std::string interview_uid(store::Conn& conn, std::int64_t owner, std::int64_t id) {
  auto rows = conn.query("SELECT uid FROM interviews WHERE id = ? AND owner_id = ?", {id, owner});
  return rows.empty() ? std::string() : rows[0].text("uid");
}

std::map<std::int64_t, std::string> interview_uids(store::Db& db, std::int64_t owner) {
  std::map<std::int64_t, std::string> uids;
  for (const auto& r : db.query("SELECT id, uid FROM interviews WHERE owner_id = ?", {owner}))
    uids[r.int_at("id")] = r.text("uid");
  return uids;
}

std::optional<std::int64_t> reminder_due_at(store::Conn& conn, std::int64_t owner,
                                            std::int64_t id) {
  auto rows = conn.query("SELECT due_at FROM reminders WHERE id = ? AND owner_id = ?", {id, owner});
  return rows.empty() ? std::nullopt : rows[0].opt_int("due_at");
}

}  // namespace peto::domain
