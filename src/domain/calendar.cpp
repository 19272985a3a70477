#include "domain/calendar.h"

#include "domain/cards.h"
#include "formats/ical.h"

namespace peto::domain {

std::string interview_ics(const Record& interview, const std::string& uid, const std::string& title,
                          std::int64_t now_ms) {
  return formats::write_calendar({domain::interview_item(interview, uid, title)}, now_ms);
}

std::string interview_uid(store::Db& db, std::int64_t owner, std::int64_t id) {
  auto rows = db.query("SELECT uid FROM interviews WHERE id = ? AND owner_id = ?", {id, owner});
  return rows.empty() ? std::string() : rows[0].text(0);
}

}  // namespace peto::domain
