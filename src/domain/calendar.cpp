#include "domain/calendar.h"

#include "sync/cards.h"

namespace peto::domain {

std::string interview_ics(const Record& interview, const std::string& uid, const std::string& title,
                          std::int64_t now_ms) {
  return sync::write_calendar({sync::interview_item(interview, uid, title)}, now_ms);
}

}  // namespace peto::domain
